import { randomBytes, randomInt } from 'node:crypto';

/** The seed and run tag of a run that sets no SEED or RUN_TAG. */
export interface RunIdentity {
  seed: number;
  runTag: string;
}

/** Chosen once per run, as values (runner/config/resolve.ts); the record of the run's variables shows them. */
export function chooseRunIdentity(): RunIdentity {
  return { seed: randomInt(1e9), runTag: randomBytes(4).toString('hex') };
}
