/** A JSON object (not an array, not null): the one test for it, shared by the suite and the sandbox. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
