import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** A checkout the bench measures: this one, or another commit's, made in a scratch folder. */
export interface Checkout {
  /** "this commit", or the commit asked for. */
  name: string;
  root: string;
  /** Playwright's CLI in the checkout's own node_modules. */
  playwrightCli: string;
}

export const checkoutAt = (name: string, root: string): Checkout => ({
  name,
  root,
  playwrightCli: join(root, 'node_modules/@playwright/test/cli.js'),
});

/**
 * Another commit of this repository, ready to run: a detached git worktree in a scratch folder, its dependencies from
 * its own lock file (`npm ci`), and `../shared` beside it as beside this checkout (the interface document the
 * self-tests read). `remove` takes it away again.
 */
export function otherCommit(repoRoot: string, rev: string): Checkout & { remove: () => void } {
  const commit = execFileSync('git', ['rev-parse', '--short', `${rev}^{commit}`], { cwd: repoRoot, encoding: 'utf8' });
  const scratch = mkdtempSync(join(tmpdir(), `bench-against-${commit.trim()}-`));
  const root = join(scratch, 'checkout');
  execFileSync('git', ['worktree', 'add', '--detach', root, rev], { cwd: repoRoot, stdio: 'ignore' });
  const shared = resolve(repoRoot, '..', 'shared');
  if (existsSync(shared)) symlinkSync(shared, join(scratch, 'shared'));
  console.log(`  against ${rev} (${commit.trim()}): npm ci in ${root}`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'ignore' });
  return {
    ...checkoutAt(`${rev} (${commit.trim()})`, root),
    remove: () => {
      execFileSync('git', ['worktree', 'remove', '--force', root], { cwd: repoRoot, stdio: 'ignore' });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
