import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { requirement, requirements } from '../catalog/catalog.ts';
import { clientRequirements } from '../catalog/client-catalog.ts';
import { clientChecks, clientChecksByName } from '../kit/checks/client/checks.ts';
import { checks as serverChecksByName, registry as checksByName } from '../kit/checks/registry.ts';
import type { Evidence, Findings } from '../kit/findings.ts';
import { marksOf } from '../kit/verdict-marks.ts';
import * as credentials from '../sandbox/credentials.ts';
import { bareVerdict } from './bare-verdict.ts';
import { clientUnits } from './check-units/client.ts';
import { serverUnits } from './check-units/server.ts';
import type { CheckUnit, UnitInput } from './check-units/unit.ts';

// Every registered check against its two units (selftest/check-units/): the good input passes, the bad one fails,
// each recorded from the reference sandbox or the example client (tools/check-units/record.ts).

/** What one call of a check recorded under the unit's requirement. */
interface Judged {
  passed: number;
  failed: number;
  observed: string[];
  /** What the check returned: a judging check says whether its requirement held. */
  returned?: unknown;
  error?: string;
}

async function judged(run: () => Promise<{ findings: Findings; read: () => Judged }>, call: (f: Findings) => unknown) {
  const { findings, read } = await run();
  try {
    const returned: unknown = await call(findings);
    return { ...read(), returned };
  } catch (error) {
    return { ...read(), error: error instanceof Error ? error.message.split('\n')[0] : String(error) };
  }
}

/** A verdict citing every requirement, as a test citing the unit's would; its marks read back. */
const serverFindings = (id: string) => async () => {
  const { verdict, annotations } = bareVerdict(requirements.map((r) => r.id));
  return {
    findings: verdict,
    read: (): Judged => {
      const marks = marksOf(annotations).filter((m) => m.id === id);
      return {
        passed: marks.filter((m) => m.kind === 'pass').length,
        failed: marks.filter((m) => m.kind === 'fail' || m.kind === 'warn').length,
        observed: marks.filter((m) => m.kind === 'observed').map((m) => m.detail ?? ''),
      };
    },
  };
};

/** The client judge's findings, reduced to what they hold for the unit's requirement. */
const clientFindings = (id: string) => async () => {
  const seen: Judged = { passed: 0, failed: 0, observed: [] };
  const findings: Findings = {
    check: (checked: string, ok: boolean, evidence: () => Evidence) => {
      if (checked === id) {
        if (ok) seen.passed += 1;
        else seen.failed += 1;
      }
      if (!ok) evidence();
      return ok;
    },
    observe: (observed: string, text: string) => void (observed === id && seen.observed.push(text)),
    sent: (exchange) => exchange.label,
    redacted: (value) => JSON.stringify(value) ?? String(value),
  };
  return { findings, read: () => seen };
};

const levelOf = (id: string) =>
  clientRequirements.find((r) => r.id === id)?.level ??
  (requirements.some((r) => r.id === id) ? requirement(id).level : undefined);

/** A unit's inputs of one kind by name: a single one is named after its kind. */
const inputsOf = (inputs: CheckUnit<never>['good'], kind: string): Array<[string, UnitInput<never>]> =>
  typeof inputs === 'function'
    ? [[kind, inputs]]
    : Object.entries(inputs).map(([name, input]) => [`${kind} (${name})`, input]);

/** Why a check's units do not show it passing its good inputs and failing its bad ones; empty when they do. */
async function problemsOf(
  name: string,
  unit: CheckUnit<never> | undefined,
  side: 'server' | 'client',
): Promise<string[]> {
  if (!unit || !unit.good || !unit.bad) return [`${name}: no good and bad input in selftest/check-units/${side}.ts`];
  const level = levelOf(unit.id);
  if (!level) return [`${name}: ${unit.id} is no requirement`];
  const findings = side === 'server' ? serverFindings(unit.id) : clientFindings(unit.id);
  const run = async (inputs: CheckUnit<never>['good'], kind: string) =>
    Promise.all(
      inputsOf(inputs, kind).map(async ([input, call]) => ({
        input,
        ...(await judged(findings, (f) => call(f as never, unit.id))),
      })),
    );
  const goods = await run(unit.good, 'good input');
  const bads = await run(unit.bad, 'bad input');
  const problems: Array<string | false | undefined> = [...goods, ...bads].map(
    (j) => j.error && `${j.input} threw: ${j.error}`,
  );
  if (goods.length === 0 || bads.length === 0) problems.push('no good or no bad input');
  if (level === 'INFO') {
    const seen = new Set(goods.flatMap((j) => j.observed));
    for (const bad of bads)
      problems.push(
        bad.observed.every((o) => seen.has(o)) &&
          `the ${bad.input} observed nothing a good one did not (${bad.observed.join('; ') || 'nothing'})`,
      );
  } else {
    for (const good of goods) {
      problems.push(good.failed > 0 && `the ${good.input} failed ${unit.id} ${good.failed} times`);
      problems.push(good.passed === 0 && `the ${good.input} passed no check of ${unit.id}`);
      problems.push(good.returned === false && `the check returned false on the ${good.input}`);
    }
    for (const bad of bads) {
      problems.push(bad.failed === 0 && `the ${bad.input} failed no check of ${unit.id}`);
      problems.push(bad.returned === true && `the check returned true on the ${bad.input}`);
    }
  }
  return problems.filter((p): p is string => typeof p === 'string').map((p) => `${name} (${unit.id}): ${p}`);
}

test('every registered check passes its good input and fails its bad one, each taken from a recorded exchange', async () => {
  const problems: string[] = [];
  for (const name of Object.keys(checksByName)) {
    const side = name in clientChecksByName ? 'client' : 'server';
    const unit = (side === 'client' ? clientUnits : serverUnits)[name] as CheckUnit<never> | undefined;
    problems.push(...(await problemsOf(name, unit, side)));
  }
  const stale = [...Object.keys(serverUnits), ...Object.keys(clientUnits)].filter((name) => !(name in checksByName));
  problems.push(...stale.map((name) => `${name}: a unit of no registered check`));
  expect(problems).toEqual([]);
  expect(Object.keys(serverChecksByName).length + Object.keys(clientChecksByName).length).toBe(
    Object.keys(checksByName).length,
  );
});

test('every client requirement has its one check, and every client check a requirement', () => {
  expect(Object.keys(clientChecks).sort()).toEqual(clientRequirements.map((r) => r.id).sort());
});

test('the recorded exchanges carry no API key, client secret or token', () => {
  const dir = new URL('./check-units/recorded/', import.meta.url);
  const secrets = Object.values(credentials)
    .filter((c): c is { apiKey: string; clientSecret: string } => typeof c === 'object' && c !== null && 'apiKey' in c)
    .flatMap((c) => [c.apiKey, c.clientSecret]);
  const found = readdirSync(dir).flatMap((file) => {
    const text = readFileSync(new URL(file, dir), 'utf8');
    // A bearer credential, and a token of the sandbox's shape (base64url JSON, a dot, its signature) anywhere.
    const tokens = [...text.matchAll(/Bearer (?!\[)[A-Za-z0-9._~+/-]{8,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g)].map(
      (m) => m[0],
    );
    return [...secrets.filter((s) => text.includes(s)), ...tokens].map((s) => `${file}: ${s.slice(0, 12)}…`);
  });
  expect(secrets.length).toBeGreaterThan(0);
  expect(found).toEqual([]);
});
