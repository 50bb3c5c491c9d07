import { writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { diffRuns, type RunReport } from '../reporters/run-diff.ts';
import { regressed, sinceLastNight, sinceLines, type Night } from '../reporters/nights.ts';
import { childEnv, runCli, TS_NODE } from './evidence-harness.ts';

/** A conformance.json of these `ID=outcome` pairs, a TOK-NO-* requirement a SHOULD. */
const run = (outcomes: string): RunReport => ({
  finishedAt: 'then',
  result: 'x',
  requirements: outcomes.split(' ').map((pair) => {
    const [id = '', outcome = ''] = pair.split('=');
    return { id, level: id.startsWith('TOK-NO') ? 'SHOULD' : 'MUST', outcome };
  }),
});

test('a diff lists the requirements that changed outcome, what broke first', () => {
  const before = run('ORD-409=passed CU-TAGS-APPEND=failed TOK-NO-STORE=passed ASM-RES-IDS=passed');
  const after = run('ORD-409=blocked CU-TAGS-APPEND=passed TOK-NO-STORE=warning ASM-RES-IDS=passed');
  expect(diffRuns(before, after)).toEqual([
    { id: 'ORD-409', level: 'MUST', before: 'passed', after: 'blocked', direction: 'worse' },
    { id: 'TOK-NO-STORE', level: 'SHOULD', before: 'passed', after: 'warning', direction: 'worse' },
    { id: 'CU-TAGS-APPEND', level: 'MUST', before: 'failed', after: 'passed', direction: 'better' },
  ]);
  expect(diffRuns(after, after)).toEqual([]);
});

test('npm run diff exits 1 when something got worse, 0 otherwise, 2 on a file that is not a matrix', async () => {
  const write = (name: string, value: unknown) => {
    writeFileSync(test.info().outputPath(name), JSON.stringify(value));
    return test.info().outputPath(name);
  };
  const good = write('good.json', run('ORD-409=passed'));
  const bad = write('bad.json', run('ORD-409=failed'));
  const env = childEnv(test.info().outputPath(), {});
  const [node, ...loader] = TS_NODE;
  const diff = (...args: string[]) => runCli(node, [...loader, 'scripts/diff.ts', ...args], env);
  const other = write('other.json', { hello: 1 });
  const [worse, better, notMatrix] = await Promise.all([diff(good, bad), diff(bad, good), diff(good, other)]);
  expect(worse.code, worse.stderr).toBe(1);
  expect(worse.stdout).toContain('| ORD-409 | MUST | passed | failed | **worse** |');
  expect(better.code, better.stderr).toBe(0);
  expect(notMatrix.code).toBe(2);
  expect(notMatrix.stderr).toContain('not a conformance.json');
});

test('since last night: a p95 or retries change counts only past its floor, its share and with enough calls; a night that stopped early is not the one compared with', () => {
  const op = (p95Ms: number, retries: number, calls = 20) => {
    return { operation: 'createOrder', calls, medianMs: 5, p95Ms, maxMs: p95Ms, retries };
  };
  const night = (operations: ReturnType<typeof op>[], stoppedEarly = false, outcome = 'passed'): Night => ({
    finishedAt: 'n',
    result: 'r',
    stoppedEarly,
    counts: {},
    requirements: [{ id: 'ORD-409', level: 'MUST', outcome }],
    requests: 0,
    retries: 0,
    operations,
  });
  const changes = (before: Night, after: Night) => sinceLastNight([before], after)?.operations.map((c) => c.what);
  expect(changes(night([op(30, 14)]), night([op(70, 19)])), 'within noise: 40 ms, 5 of 14 retries').toEqual([]);
  expect(changes(night([op(30, 0)]), night([op(400, 19)]))).toEqual(['p95', 'retries']);
  expect(changes(night([op(30, 0, 3)]), night([op(400, 19, 3)])), 'too few calls').toEqual([]);
  const since = sinceLastNight(
    [night([op(30, 0)], false, 'failed'), night([], true)],
    night([op(30, 0)], false, 'passed'),
  );
  expect(since?.requirements.map((c) => `${c.before} -> ${c.after}`)).toEqual(['failed -> passed']);
  expect(regressed(since)).toBe(false);
  const stopped = sinceLastNight([night([op(30, 0)])], night([], true, 'uncovered'));
  expect(stopped && sinceLines(stopped).slice(1), 'one line for what a stopped night did not reach').toEqual([
    '1 requirement without a test tonight (were passed)',
  ]);
});
