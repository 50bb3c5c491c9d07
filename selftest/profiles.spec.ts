import { expect, test } from '@playwright/test';
import { keepsAllureHistory, type Profile } from '../kit/verdict-marks.ts';
import { playwrightOptions } from '../runner/config/playwright-options.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import type { RunConfig } from '../runner/config/run-config.ts';
import { configSchema } from '../schemas/variables.ts';
import { repoRoot, validEnv } from './config-env.ts';

// What each profile does besides its verdict, as docs/verdicts.md ("What else a profile changes") and the schema's
// PROFILE say: nightly keeps the Allure history, and no profile retries a test or changes the webhook mode. Held from
// the resolved configuration and the Playwright configuration of each profile, no run. (The verdict of each profile
// is the table of docs/verdicts.md, held by selftest/verdict-table.spec.ts.)

const profiles = configSchema.properties['PROFILE']?.enum as Profile[];

/** The targets whose webhook mode differs: the embedded sandbox, a real one with and without a public URL, a passive window. */
const targets: Record<string, Record<string, string>> = {
  'the embedded sandbox': {},
  'a real target without WEBHOOK_PUBLIC_URL': validEnv,
  'a real target with WEBHOOK_PUBLIC_URL': { ...validEnv, WEBHOOK_PUBLIC_URL: 'https://tunnel.example.com/hooks' },
  'a real target with WEBHOOK_MODE=passive': { ...validEnv, WEBHOOK_MODE: 'passive' },
};

const resolve = (env: Record<string, string>, profile: Profile): RunConfig =>
  resolveRun(
    { ...env, PROFILE: profile, ENV_FILE: '/dev/null', SEED: '1', RUN_TAG: 'profiles', SANDBOX_TOKEN_SECRET: 's' },
    repoRoot,
  );

/** The Playwright configuration of a run, as a plain value (the projects' configuration without its profile). */
const playwrightOf = (run: RunConfig) => {
  const options = playwrightOptions(run, './tests');
  return JSON.parse(
    JSON.stringify({
      ...options,
      projects: options.projects.map((p) => ({ ...p, use: { config: { ...p.use?.config, profile: undefined } } })),
    }),
  ) as unknown;
};

for (const profile of profiles) {
  test(`${profile}: no test retried, the webhook mode WEBHOOK_MODE's, nothing else of the run changed${keepsAllureHistory(profile) ? '; the Allure history kept' : ''}`, () => {
    for (const [name, env] of Object.entries(targets)) {
      const run = resolve(env, profile);
      const gate = resolve(env, 'gate');
      expect(run.suite.profile).toBe(profile);
      expect(playwrightOptions(run, './tests').retries, `${name}: a test runs once`).toBe(0);
      expect({ ...run, suite: { ...run.suite, profile: 'gate' } }, `${name}: the run's configuration`).toEqual({
        ...gate,
        variables: { ...gate.variables, PROFILE: profile },
      });
      expect(playwrightOf(run), `${name}: the Playwright configuration`).toEqual(playwrightOf(gate));
    }
    expect(keepsAllureHistory(profile), 'npm run report appends to the Allure history').toBe(profile === 'nightly');
  });
}
