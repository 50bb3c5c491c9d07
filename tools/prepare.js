// npm's prepare: npm runs it in this folder when a user installs the suite from git (npm install
// git+https://…#v0.1.0), which runs no prepack, and then packs the folder as it is: so the build (dist/) happens here
// then. In the clone's own npm ci and npm install npm was started in this folder: nothing to build there (the command
// runs the TypeScript sources), and npm pack builds through prepack. Plain JavaScript, so that it runs without tsx.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// eslint-disable-next-line no-restricted-properties -- where npm was started (npm's INIT_CWD), not a setting
const started = process.env['INIT_CWD'];
if (started !== undefined && resolve(started) !== resolve(root)) {
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'tools/build.ts'], { cwd: root, stdio: 'inherit' });
  process.exit(built.status ?? 1);
}
