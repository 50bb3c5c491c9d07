/**
 * mulberry32: a small, fast 32-bit generator of numbers in [0, 1), the same draws from the same 32-bit seed. Fast enough
 * for 10^6 trials per cell of the client-retry simulation (a cryptographic one would take minutes), and what the far
 * flavor's delivery queue draws its delays from.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
