import nodeModule from 'node:module';

/**
 * Node's module compile cache (Node 22.1 and later; Node 20 has none) for this process and every process it starts
 * with its environment: Playwright's workers and, in the self-tests, the child runs and the proof. A process then
 * takes the V8 code of Playwright's modules and the suite's from the cache instead of compiling them again: a full run
 * spends about 7 % less CPU time (docs/performance.md). The cache is a quiet optimisation: where Node cannot enable it,
 * nothing changes.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv): void {
  const { enableCompileCache: enable } = nodeModule as {
    enableCompileCache?: () => { directory?: string };
  };
  const directory = enable?.().directory;
  if (directory) env['NODE_COMPILE_CACHE'] ??= directory;
}
