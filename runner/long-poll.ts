/**
 * What a long poll of a worker answers: `promise`'s value when it settles within `ms`, else `fallback` (the worker asks
 * again). The timer ends with the answer, so that no poll leaves one running after the run.
 */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
