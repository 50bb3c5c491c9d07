import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunConfig } from './run-config.ts';

/**
 * Playwright loads playwright.config.ts again in every worker. The runner resolves the run's configuration once and
 * hands it to its workers here, as one serialization in a variable of the environment they inherit from it, after the
 * runner's process id; a process that the runner started reads it back and reads no variable of the configuration
 * itself. The value is written by this code of the same version in the runner: its type is the check, no schema (a
 * RunConfig holds nothing a JSON round trip changes, which SurvivesJson holds at compile time and
 * selftest/config.spec.ts for a resolved run). Any other process that inherits the variable (a run started from
 * inside a test) is not that runner's worker and resolves its own.
 */
export const HAND_OFF_VARIABLE = 'CONFORMANCE_RUN_CONFIG';

/**
 * T, with every member a JSON round trip would change or drop (a function, a Date, a Map, a bigint) made never; an
 * unknown member is a JSON value read from a file, and stays.
 */
type SurvivesJson<T> = unknown extends T
  ? T
  : T extends string | number | boolean | null
    ? T
    : T extends readonly (infer U)[]
      ? readonly SurvivesJson<U>[]
      : T extends
            ((...args: never[]) => unknown) | Date | Map<unknown, unknown> | Set<unknown> | RegExp | bigint | symbol
        ? never
        : T extends object
          ? { [K in keyof T]: SurvivesJson<T[K]> }
          : never;

/** Longer than this, the serialization goes to a file only its owner reads (one string of an environment is at most 128 KiB). */
const INLINE_LIMIT = 100_000;
const FILE_PREFIX = 'file:';

/** In the runner: hands the resolved configuration to the workers it will start (they inherit its environment). */
export function handOff(run: RunConfig, env: Record<string, string | undefined>): void {
  const crossing: SurvivesJson<RunConfig> = run;
  // Before anything may give the suite a toJSON that redacts it (reporters/serialize-redacted.ts).
  const text = JSON.stringify(crossing);
  if (text.length <= INLINE_LIMIT) {
    env[HAND_OFF_VARIABLE] = `${process.pid} ${text}`;
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'conformance-run-'));
  const file = join(dir, 'run-config.json');
  writeFileSync(file, text, { mode: 0o600 });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  env[HAND_OFF_VARIABLE] = `${process.pid} ${FILE_PREFIX}${file}`;
}

/**
 * The configuration the runner that started this process handed it; undefined when this
 * process is not a worker of the runner that handed it (`parent`: the process that started this one).
 */
export function handedOff(
  env: Readonly<Record<string, string | undefined>>,
  parent: number = process.ppid,
): RunConfig | undefined {
  const given = env[HAND_OFF_VARIABLE] ?? '';
  const space = given.indexOf(' ');
  if (space < 0 || Number(given.slice(0, space)) !== parent) return undefined;
  const payload = given.slice(space + 1);
  const text = payload.startsWith(FILE_PREFIX) ? readFileSync(payload.slice(FILE_PREFIX.length), 'utf8') : payload;
  return JSON.parse(text) as RunConfig;
}
