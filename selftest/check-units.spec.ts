import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { requirements } from '../catalog/catalog.ts';
import { clientRequirements } from '../catalog/client-catalog.ts';
import { clientChecks, clientChecksByName } from '../kit/checks/client/checks.ts';
import { checks as serverChecksByName, registry as checksByName } from '../kit/checks/registry.ts';
import type { Findings } from '../kit/findings.ts';
import { marksOf } from '../kit/verdict-marks.ts';
import * as credentials from '../sandbox/credentials.ts';
import { bareVerdict } from './bare-verdict.ts';
import { clientUnits } from './check-units/client.ts';
import { serverUnits } from './check-units/server.ts';
import type { CheckUnit } from './check-units/unit.ts';

type Tally = { passed: number; failed: number; observed: string[] };

/** Findings that tally one requirement: a verdict citing every requirement for a target's check, a client's judge's. */
function tallied(side: 'server' | 'client', id: string): { findings: Findings; tally: () => Tally } {
  if (side === 'server') {
    const { verdict, annotations } = bareVerdict(requirements.map((r) => r.id));
    const marks = (...kinds: string[]) => marksOf(annotations).filter((m) => m.id === id && kinds.includes(m.kind));
    const tally = () => ({
      passed: marks('pass').length,
      failed: marks('fail', 'warn').length,
      observed: marks('observed').map((m) => m.detail ?? ''),
    });
    return { findings: verdict, tally };
  }
  const seen: Tally = { passed: 0, failed: 0, observed: [] };
  const findings: Findings = {
    check: (checked, ok, evidence) => {
      if (checked === id) seen[ok ? 'passed' : 'failed'] += 1;
      if (!ok) evidence();
      return ok;
    },
    observe: (observed, text) => void (observed === id && seen.observed.push(text)),
    sent: (exchange) => exchange.label,
    redacted: (value) => JSON.stringify(value) ?? String(value),
  };
  return { findings, tally: () => seen };
}

const levelOf = (id: string) => [...requirements, ...clientRequirements].find((r) => r.id === id)?.level;

/** Why a check's units do not show it passing its good inputs and failing its bad ones; empty when they do. */
async function problemsOf(name: string): Promise<string[]> {
  const side = name in clientChecksByName ? 'client' : 'server';
  const unit: CheckUnit | undefined = (side === 'client' ? clientUnits : serverUnits)[name];
  if (!unit) return [`${name}: no good and bad input in selftest/check-units/${side}.ts`];
  const { id } = unit;
  const level = levelOf(id);
  if (!level) return [`${name}: ${id} is no requirement`];
  const run = (kind: 'good' | 'bad') =>
    Promise.all(
      [...unit[kind]].map(async ([named, call]) => {
        const input = named ? `${kind} input (${named})` : `${kind} input`;
        const { findings, tally } = tallied(side, id);
        try {
          return { input, returned: (await call(findings as never, id)) as unknown, ...tally() };
        } catch (error) {
          return { input, error: error instanceof Error ? error.message.split('\n')[0] : String(error), ...tally() };
        }
      }),
    );
  const [goods, bads] = [await run('good'), await run('bad')];
  const problems = [...goods, ...bads].map((j) => 'error' in j && `${j.input} threw: ${j.error}`);
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
      problems.push(good.failed > 0 && `the ${good.input} failed ${id} ${good.failed} times`);
      problems.push(good.passed === 0 && `the ${good.input} passed no check of ${id}`);
      problems.push('returned' in good && good.returned === false && `the check returned false on the ${good.input}`);
    }
    for (const bad of bads) {
      problems.push(bad.failed === 0 && `the ${bad.input} failed no check of ${id}`);
      problems.push('returned' in bad && bad.returned === true && `the check returned true on the ${bad.input}`);
    }
  }
  return problems.filter((p) => typeof p === 'string').map((p) => `${name} (${id}): ${p}`);
}

test('every registered check passes its good input and fails its bad one, each taken from a recorded exchange', async () => {
  const problems = (await Promise.all(Object.keys(checksByName).map(problemsOf))).flat();
  const stale = [...Object.keys(serverUnits), ...Object.keys(clientUnits)].filter((name) => !(name in checksByName));
  problems.push(...stale.map((name) => `${name}: a unit of no registered check`));
  expect(problems).toEqual([]);
  const both = Object.keys(serverChecksByName).filter((name) => name in clientChecksByName);
  expect(both, "one name for a target's check and a client's").toEqual([]);
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
    const tokens = text.match(/Bearer (?!\[)[A-Za-z0-9._~+/-]{8,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g) ?? [];
    return [...secrets.filter((s) => text.includes(s)), ...tokens].map((s) => `${file}: ${s.slice(0, 12)}…`);
  });
  expect(secrets.length).toBeGreaterThan(0);
  expect(found).toEqual([]);
});
