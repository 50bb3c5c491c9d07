import { spawnSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FullResult, TestCase, TestResult } from '@playwright/test/reporter';
import { expect, test } from '@playwright/test';
import { interfaceInfo, requirement, requirements } from '../catalog/catalog.ts';
import { loadConfig } from '../runner/config/load-config.ts';
import { citeAnnotation, markAnnotation } from '../kit/verdict-marks.ts';
import { allureEnrichment, TEST_VERDICT } from '../reporters/allure-enrichment.ts';
import ConformanceReporter from '../reporters/conformance-reporter.ts';
import { MARKDOWN_MAX_CHARS } from '../reporters/matrix-markdown.ts';
import { certificationOf, reportsOf } from '../runner/config/resolve.ts';
import type { RunConfig } from '../runner/config/run-config.ts';
import { mergedReporters } from '../runner/run-reporters.ts';
import { ProjectProgress } from '../reporters/console-progress.ts';
import { loadLedger, type LedgerEntry } from '../schemas/ledger.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { serializeRedacted } from '../reporters/serialize-redacted.ts';
import { documentHeadings, SPEC_DOCUMENT, SpecParts } from '../reporters/spec-parts.ts';
import type { Profile, TestRecord } from '../reporters/verdicts.ts';
import { offlineHtml, remoteReferences } from '../scripts/evidence/allure-single-file.ts';
import { redactedConfiguration } from '../scripts/evidence/configuration.ts';
import { keyIdOf, newKeyPair, privateKeyFromPem, type DsseEnvelope } from '../scripts/evidence/dsse.ts';
import { signingKeyFrom } from '../scripts/evidence/signing-key.ts';
import {
  PUBLIC_KEY_FILE,
  sealBundle,
  sha256,
  STATEMENT_FILE,
  verifyBundle,
  type CertificationPredicate,
  type Statement,
} from '../scripts/evidence/statement.ts';
import {
  compareSource,
  gitState,
  pinSource,
  SOURCE_LIST_FILE,
  SOURCE_PATHS,
} from '../scripts/evidence/source-digest.ts';
import { redactedCommand } from '../scripts/evidence/client-identity.ts';
import { repoRoot } from './evidence-harness.ts';
import { Redactor } from '../kit/redact.ts';
import { curlOf, redactExchange, type Exchange } from '../kit/http/exchange.ts';

const cite = (...ids: string[]) => ids.map(citeAnnotation);
const pass = (id: string) => markAnnotation({ kind: 'pass', id, detail: '' });
const fail = (id: string) => markAnnotation({ kind: 'fail', id, detail: 'Expected: a token | Actual: none' });
const warn = (id: string) => markAnnotation({ kind: 'warn', id, detail: 'Cache-Control absent' });

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'evidence-unit-'));
}

interface FakeTest {
  title: string;
  status: TestResult['status'];
  annotations: Array<{ type: string; description?: string }>;
  error?: string;
}

/** Feeds the conformance reporter the results of fake tests, as Playwright would, and returns what it wrote and printed. */
async function conformanceRun(profile: Profile, tests: FakeTest[], ledger: LedgerEntry[] = []) {
  const dir = scratch();
  const reporter = new ConformanceReporter({ outputDir: dir, profile, environment: { seed: '1' }, ledger });
  reporter.onBegin({ rootDir: '/repo' } as never, {} as never);
  tests.forEach((t, index) => {
    const testCase = {
      id: String(index),
      title: t.title,
      annotations: [],
      location: { file: '/repo/tests/auth/x.spec.ts', line: index + 1 },
      parent: { project: () => ({ name: 'auth' }) },
    };
    const errors = t.error ? [{ message: t.error }] : [];
    reporter.onTestEnd(
      testCase as unknown as TestCase,
      { status: t.status, annotations: t.annotations, errors } as unknown as TestResult,
    );
  });
  const printed: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void printed.push(args.join(' '));
  let outcome: Awaited<ReturnType<ConformanceReporter['onEnd']>>;
  try {
    outcome = await reporter.onEnd({ status: 'passed' } as FullResult);
  } finally {
    console.log = log;
  }
  const json = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as {
    result: string;
    reasons: string[];
    uncoveredMust: string[];
    requirements: Array<{ id: string; outcome: string; tests: Array<{ title: string; outcome: string }> }>;
  };
  const markdown = readFileSync(join(dir, 'conformance.md'), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  return { status: outcome?.status, json, markdown, printed: printed.join('\n') };
}

test.describe('conformance reporter: matrix, summary and exit status', () => {
  const passing = (id: string): FakeTest => ({
    title: `${id} passes`,
    status: 'passed',
    annotations: [...cite(id), pass(id)],
  });
  const mustFailing: FakeTest = {
    title: 'TOK-ISSUED no token',
    status: 'failed',
    annotations: [...cite('TOK-ISSUED'), fail('TOK-ISSUED')],
    error: 'RequirementFailure: TOK-ISSUED (MUST, part 4.1)',
  };
  const shouldWarning = (status: TestResult['status']): FakeTest => ({
    title: 'TOK-NO-STORE cache',
    status,
    annotations: [...cite('TOK-NO-STORE'), warn('TOK-NO-STORE')],
  });

  test('every requirement gets a verdict and the tests behind it; an uncited MUST is listed as uncovered', async () => {
    const run = await conformanceRun('gate', [
      passing('TOK-GRANT-TYPE'),
      shouldWarning('passed'),
      {
        title: 'ORD-403 skipped',
        status: 'skipped',
        annotations: [
          ...cite('ORD-403'),
          markAnnotation({
            kind: 'not-configured',
            id: 'ORD-403',
            detail: 'no client without the entitlements is configured (ORDERS_NO_ENTITLEMENT_API_KEY)',
          }),
        ],
      },
    ]);
    const verdictOf = (id: string) => run.json.requirements.find((r) => r.id === id);
    expect(run.json.requirements).toHaveLength(requirements.length);
    expect(verdictOf('TOK-GRANT-TYPE')).toMatchObject({
      outcome: 'passed',
      tests: [{ title: 'TOK-GRANT-TYPE passes', outcome: 'passed' }],
    });
    expect(verdictOf('TOK-NO-STORE')?.outcome).toBe('warning');
    expect(verdictOf('ORD-403')?.outcome).toBe('not-configured');
    expect(verdictOf('TOK-ISSUED')?.outcome).toBe('uncovered');
    expect(run.json.uncoveredMust).toContain('TOK-ISSUED');
    expect(run.json.uncoveredMust).not.toContain('TOK-GRANT-TYPE');
    expect(run.markdown).toContain(
      '| TOK-NO-STORE | SHOULD | 4.1 | [warning](#tok-no-store-should-part-41-warning) | 1 |',
    );
    expect(run.markdown, 'a filtered run lists only the requirements it cites').not.toContain('| TOK-ISSUED |');
    expect(run.markdown).toContain(
      `${requirements.length - 3} requirements have no test in this run (a filtered run) and are not listed.`,
    );
    expect(run.markdown, 'each warning has a section with its statement and evidence').toMatch(
      /### TOK-NO-STORE \(SHOULD, part 4\.1\): warning\n\n.*no-store[\s\S]*Cache-Control absent/,
    );
    expect(run.printed, 'the summary table is printed').toMatch(
      /level\s+failed\s+blocked\s+warning\s+known\s+passed\s+observed\s+not-exercised\s+not-configured\s+not-produced\s+uncovered\s+total/,
    );
    expect(run.printed).toMatch(
      /Not in this run: \d+ MUST without a test \(a --grep or --project filter; .*TOK-ISSUED/,
    );
    expect(run.printed, 'the not-configured row names what to set').toContain(
      'Not configured: 1 MUST (ORD-403); set ORDERS_NO_ENTITLEMENT_API_KEY',
    );
    expect(run.markdown).toContain('| ORD-403 | MUST | 7 | not configured (set ORDERS_NO_ENTITLEMENT_API_KEY) | 1 |');
    const must = requirements.filter((r) => r.level === 'MUST').length;
    expect(run.json.result, 'a run that leaves MUST requirements out is partial, never conformant').toBe(
      `partial run: 1 of ${must} MUST exercised, no failures, with 1 warning (TOK-NO-STORE); incomplete: 1 MUST not configured (set ORDERS_NO_ENTITLEMENT_API_KEY)`,
    );
  });

  test('gate and nightly fail only on a MUST failure; certify also on MUST without a test, listing SHOULD warnings; certify-strict also on them', async () => {
    expect((await conformanceRun('gate', [mustFailing])).status).toBe('failed');
    expect((await conformanceRun('nightly', [mustFailing])).status).toBe('failed');
    expect((await conformanceRun('gate', [passing('TOK-GRANT-TYPE'), shouldWarning('passed')])).status).toBe('passed');
    expect((await conformanceRun('nightly', [passing('TOK-GRANT-TYPE'), shouldWarning('passed')])).status).toBe(
      'passed',
    );
    const certify = await conformanceRun('certify', [passing('TOK-GRANT-TYPE'), shouldWarning('passed')]);
    expect(certify.status).toBe('failed');
    expect(certify.json.reasons.join('\n')).not.toContain('TOK-NO-STORE');
    expect(certify.json.reasons.join('\n')).toMatch(
      /^partial run: \d+ MUST requirements without a test in this run \(.*TOK-ISSUED/m,
    );
    const strict = await conformanceRun('certify-strict', [passing('TOK-GRANT-TYPE'), shouldWarning('failed')]);
    expect(strict.status).toBe('failed');
    expect(strict.json.reasons.join('\n')).toContain(
      'SHOULD requirements warned (certify-strict profile): TOK-NO-STORE',
    );
  });

  test('certify passes with SHOULD warnings, listing them; certify-strict fails on them', async () => {
    const all = requirements
      .filter((r) => r.level !== 'INFO')
      .map((r) => (r.id === 'TOK-NO-STORE' ? shouldWarning('passed') : passing(r.id)));
    const certify = await conformanceRun('certify', all);
    expect(certify.status).toBe('passed');
    expect(certify.json.result).toBe('conformant, with 1 warning (TOK-NO-STORE)');
    expect(certify.printed).toContain('Warnings: 1 SHOULD (TOK-NO-STORE), listed, not failed');
    const strict = await conformanceRun('certify-strict', all);
    expect(strict.status).toBe('failed');
    expect(strict.json.result).toBe('not conformant: 1 SHOULD warning (TOK-NO-STORE)');
  });

  test('certify passes when every MUST and SHOULD requirement passed', async () => {
    const all = requirements.filter((r) => r.level !== 'INFO').map((r) => passing(r.id));
    const run = await conformanceRun('certify', all);
    expect(run.json.reasons).toEqual([]);
    expect(run.status).toBe('passed');
    expect(run.json.result).toBe('conformant');
  });

  test('a run where every requirement fails, each with a long detail, gives a Markdown matrix that fits a PR comment', async () => {
    const long = `Expected: the documented answer | Actual: ${'x'.repeat(4_000)}`;
    const failing = requirements.map((r): FakeTest => ({
      title: `${r.id} fails`,
      status: 'failed',
      annotations: [...cite(r.id), markAnnotation({ kind: 'fail', id: r.id, detail: long })],
      error: long,
    }));
    const run = await conformanceRun('gate', failing);
    expect(run.json.requirements.filter((r) => r.outcome === 'failed')).toHaveLength(requirements.length);
    expect(run.markdown.length).toBeLessThan(MARKDOWN_MAX_CHARS);
    expect(run.markdown).toMatch(/more requirement sections? did not fit the [\d,]+ characters this file keeps to/);
  });

  test('the matrix stays readable: a clean run fits in 200 lines, no line is longer than 300 characters', async () => {
    const all = requirements.map((r) =>
      r.level === 'INFO'
        ? {
            title: `${r.id} observed`,
            status: 'passed' as const,
            annotations: [...cite(r.id), markAnnotation({ kind: 'observed', id: r.id, detail: 'x'.repeat(400) })],
          }
        : passing(r.id),
    );
    const run = await conformanceRun('gate', all);
    const lines = run.markdown.split('\n');
    expect(lines.length).toBeLessThan(200);
    expect(lines.filter((line) => line.length > 300)).toEqual([]);
    expect(run.json.result).toBe('conformant');
  });

  test('the console: a line per project when its last test ends, every test only with CONFORMANCE_VERBOSE=1', () => {
    const progress = new ProjectProgress(
      new Map([
        ['auth', 2],
        ['orders', 1],
      ]),
    );
    const record = (
      project: string,
      status: TestRecord['status'],
      annotations: TestRecord['annotations'] = [],
    ): TestRecord => ({ title: 't', project, location: 'x:1', status, annotations });
    expect(progress.add(record('auth', 'passed'))).toBeUndefined();
    expect(
      progress.add(
        record('auth', 'skipped', [markAnnotation({ kind: 'blocked', id: 'TOK-ISSUED', detail: 'no token' })]),
      ),
    ).toBe('  auth    2 tests: 1 blocked, 1 passed');
    expect(progress.unfinished()).toEqual(['  orders  1 test: 1 did not run']);
    const suite = loadConfig(sandboxTargetEnv({ url: 'http://127.0.0.1:1', flavor: 'reference', tokenSecret: 's' }), {
      repoRoot: process.cwd(),
      embedded: false,
    });
    const runOf = (verbose: boolean): RunConfig => ({
      suite,
      preflight: false,
      reports: reportsOf({}, {}),
      console: { quiet: true, verbose, ci: false },
      certification: certificationOf({}),
      given: [],
      variables: {},
    });
    const listed = (verbose: boolean) => mergedReporters(runOf(verbose)).map(([name]) => name);
    expect(listed(false)).not.toContain('list');
    expect(listed(true)).toContain('list');
    const conformance = mergedReporters(runOf(true)).find(([name]) => name.endsWith('conformance-reporter.ts'));
    expect(conformance?.[1]).toMatchObject({ verbose: true });
  });

  test('a run in which no test ran is never conformant', async () => {
    const run = await conformanceRun('gate', []);
    expect(run.status).toBe('failed');
    expect(run.json.reasons[0]).toContain('No test ran');
  });
});

test.describe('Allure labels from the catalog', () => {
  // The catalog's headings: the reports title and link a part alike in every clone, the document beside it or not.
  const parts = new SpecParts('spec/interface.md');
  const record = (annotations: TestRecord['annotations'], status: TestRecord['status'] = 'passed'): TestRecord => ({
    title: 't',
    project: 'auth',
    location: 'x:1',
    status,
    annotations,
  });

  test('epic is the spec part, feature the requirement with its level, parent suite the project, severity from the highest level, a link per clause', () => {
    const { labels, links, description } = allureEnrichment(
      record([
        ...cite('TOK-NO-STORE', 'TOK-ISSUED', 'TOK-SCOPE-ONLY'),
        pass('TOK-ISSUED'),
        pass('TOK-SCOPE-ONLY'),
        warn('TOK-NO-STORE'),
      ]),
      parts,
    );
    const values = (name: string) => labels.filter((l) => l.name === name).map((l) => l.value);
    expect(values('epic')).toEqual(['4.1 Token endpoint', '5.3 Authentication']);
    expect(values('feature')).toEqual(['TOK-NO-STORE (SHOULD)', 'TOK-ISSUED (MUST)', 'TOK-SCOPE-ONLY (MUST)']);
    expect(values('parentSuite')).toEqual(['auth']);
    expect(values('severity')).toEqual(['critical']);
    expect(values('tag')).toEqual(['MUST', 'SHOULD']);
    expect(values('verdict')).toEqual([TEST_VERDICT.shouldWarning]);
    expect(links.map((l) => l.url)).toEqual([
      'spec/interface.md#41-token-endpoint',
      'spec/interface.md#5-authentication',
    ]);
    expect(description).toContain(
      `**TOK-ISSUED** (MUST, part 4.1): ${requirement('TOK-ISSUED').statement} → **passed**`,
    );
  });

  test('the verdict label separates MUST failures, SHOULD warnings and requirements not exercised', () => {
    const verdict = (annotations: TestRecord['annotations'], status?: TestRecord['status']) =>
      allureEnrichment(record(annotations, status), parts).verdict;
    expect(verdict([...cite('TOK-ISSUED', 'TOK-NO-STORE'), fail('TOK-ISSUED'), warn('TOK-NO-STORE')], 'failed')).toBe(
      TEST_VERDICT.mustFailed,
    );
    expect(verdict([...cite('TOK-NO-STORE'), warn('TOK-NO-STORE')])).toBe(TEST_VERDICT.shouldWarning);
    expect(verdict(cite('ORD-403'), 'skipped')).toBe(TEST_VERDICT.notConfigured);
    expect(
      verdict(
        [...cite('CU-TAGS-APPEND'), markAnnotation({ kind: 'blocked', id: 'CU-TAGS-APPEND', detail: 'no case' })],
        'failed',
      ),
    ).toBe(TEST_VERDICT.blocked);
    expect(verdict([...cite('TOK-ISSUED'), pass('TOK-ISSUED')])).toBe(TEST_VERDICT.passed);
    expect(allureEnrichment(record(cite('TOK-LIFETIME')), parts).labels).toContainEqual({
      name: 'severity',
      value: 'minor',
    });
  });

  test('a part no heading has still links to the document', () => {
    expect(new SpecParts('https://spec.example/interface.md', []).of('7')).toEqual({
      part: '7',
      title: '',
      url: 'https://spec.example/interface.md',
    });
  });

  test("the catalog's headings are the interface document's, where the document is beside the repository", () => {
    const document = resolve(repoRoot, SPEC_DOCUMENT);
    test.skip(!existsSync(document), `${SPEC_DOCUMENT} is not beside this clone: nothing to compare the headings with`);
    expect(interfaceInfo.headings).toEqual(documentHeadings(readFileSync(document, 'utf8')));
    expect(interfaceInfo.headings.length).toBeGreaterThan(0);
  });
});

test.describe('signed certification bundle (in-toto Statement in a DSSE envelope, Ed25519)', () => {
  const signer = privateKeyFromPem(newKeyPair().privatePem);
  const signerPublic = createPublicKey(signer);
  const scope: CertificationPredicate['run'] = { partial: false, filters: [] };

  function sealedBundle(run = scope): string {
    const dir = scratch();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'conformance.json'), '{"result":"conformant"}\n');
    writeFileSync(join(dir, 'sub', 'junit.xml'), '<testsuites/>\n');
    // The two files, and the signer's public key that sealing writes beside them.
    expect(sealBundle(dir, { result: 'conformant', run }, signer).subjects).toBe(3);
    expect(readFileSync(join(dir, PUBLIC_KEY_FILE), 'utf8')).toBe(
      signerPublic.export({ type: 'spki', format: 'pem' }).toString(),
    );
    return dir;
  }

  test("a sealed bundle verifies against the signer's public key; its statement names every file with its SHA-256", () => {
    const dir = sealedBundle();
    const verified = verifyBundle(dir, signerPublic);
    expect(verified).toMatchObject({ ok: true, verified: 3, problems: [] });
    expect(verified.statement?.subject.map((s) => s.name)).toEqual([
      'conformance.json',
      PUBLIC_KEY_FILE,
      'sub/junit.xml',
    ]);
    expect(verified.statement?._type).toBe('https://in-toto.io/Statement/v1');
    rmSync(dir, { recursive: true, force: true });
  });

  test('one changed byte, a missing file or an added file is refused, naming the file', () => {
    const dir = sealedBundle();
    const original = readFileSync(join(dir, 'conformance.json'));
    const changed = Buffer.from(original);
    changed[2] = changed[2]! ^ 1;
    writeFileSync(join(dir, 'conformance.json'), changed);
    expect(verifyBundle(dir, signerPublic).problems).toEqual([expect.stringMatching(/^conformance\.json: changed/)]);
    writeFileSync(join(dir, 'conformance.json'), original);
    writeFileSync(join(dir, 'extra.txt'), 'x');
    expect(verifyBundle(dir, signerPublic).problems).toEqual(['extra.txt: not in the signed statement']);
    rmSync(join(dir, 'extra.txt'));
    rmSync(join(dir, 'sub', 'junit.xml'));
    expect(verifyBundle(dir, signerPublic).problems).toEqual(['sub/junit.xml: missing']);
    rmSync(join(dir, STATEMENT_FILE));
    expect(verifyBundle(dir, signerPublic).problems[0]).toContain(`${STATEMENT_FILE}: missing`);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a file changed and its digest recomputed in the statement is refused: the signature no longer holds', () => {
    const dir = sealedBundle();
    writeFileSync(join(dir, 'conformance.json'), '{"result":"conformant","edited":true}\n');
    const envelopePath = join(dir, STATEMENT_FILE);
    const envelope = JSON.parse(readFileSync(envelopePath, 'utf8')) as DsseEnvelope;
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as Statement;
    statement.subject[0]!.digest.sha256 = sha256(readFileSync(join(dir, 'conformance.json')));
    envelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    writeFileSync(envelopePath, JSON.stringify(envelope));
    expect(verifyBundle(dir, signerPublic).problems).toEqual([
      expect.stringMatching(/statement was changed after signing/),
    ]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('another key, or a bundle re-signed by someone else, is refused naming both keys', () => {
    const dir = sealedBundle();
    const other = privateKeyFromPem(newKeyPair().privatePem);
    expect(verifyBundle(dir, createPublicKey(other)).problems).toEqual([
      expect.stringMatching(
        new RegExp(`signed by key ${keyIdOf(signer)}, not by the key given \\(${keyIdOf(other)}\\)`),
      ),
    ]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a bundle of a partial run is refused unless a partial run is allowed', () => {
    const dir = sealedBundle({ partial: true, filters: ['--project', 'auth'] });
    expect(verifyBundle(dir, signerPublic).problems).toEqual([
      expect.stringMatching(/^the run was partial \(--project auth\)/),
    ]);
    expect(verifyBundle(dir, signerPublic, { allowPartial: true }).ok).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a signing key that is not Ed25519, or not a key, is refused naming the variable', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expect(() => signingKeyFrom({ signingKey: rsa })).toThrow(
      /^CERTIFY_SIGNING_KEY=\[REDACTED\]: an rsa key, not Ed25519$/,
    );
    expect(() => signingKeyFrom({ signingKeyFile: '/no/such/key.pem' })).toThrow(
      'CERTIFY_SIGNING_KEY_FILE=/no/such/key.pem: no such file',
    );
    expect(signingKeyFrom({}).origin).toBe('made for this run');
  });
});

test.describe("the source a bundle pins (git commit, every source file's SHA-256)", () => {
  const signer = privateKeyFromPem(newKeyPair().privatePem);

  /** A checkout without git (a tarball): one file under each source path. */
  function tarballCheckout(): string {
    const dir = scratch();
    for (const path of SOURCE_PATHS) {
      const file = path.includes('.') ? join(dir, path) : join(dir, path, 'nested', 'module.ts');
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, `// ${path}\n`);
    }
    writeFileSync(join(dir, 'README.md'), 'not a source file\n');
    return dir;
  }

  /** A bundle sealed with the checkout's source pinned, as certify writes it. */
  function bundleOf(checkout: string, claimEdit: (claim: Record<string, unknown>) => void = () => undefined): string {
    const bundle = scratch();
    const { claim, list } = pinSource(checkout);
    writeFileSync(join(bundle, SOURCE_LIST_FILE), list);
    const edited = { ...claim } as unknown as Record<string, unknown>;
    claimEdit(edited);
    sealBundle(
      bundle,
      { run: { partial: false, filters: [] }, source: edited as unknown as CertificationPredicate['source'] },
      signer,
    );
    return bundle;
  }

  test('without git the commit is unknown and the digest still covers one file per source path, and nothing else', () => {
    const checkout = tarballCheckout();
    expect(gitState(checkout)).toEqual({ commit: 'unknown', dirty: 'unknown' });
    const { claim, list } = pinSource(checkout);
    expect(claim).toMatchObject({
      commit: 'unknown',
      dirty: 'unknown',
      files: SOURCE_PATHS.length,
      list: SOURCE_LIST_FILE,
      digest: { sha256: sha256(list) },
    });
    expect(list).toContain(`${sha256('// tests\n')}  tests/nested/module.ts\n`);
    expect(list).not.toContain('README.md');
    rmSync(checkout, { recursive: true, force: true });
  });

  test('a checkout differing from the run by one file, a missing file or an added one is named; the same checkout passes', () => {
    const checkout = tarballCheckout();
    const bundle = bundleOf(checkout);
    const statement = verifyBundle(bundle, createPublicKey(signer)).statement as Statement;
    expect(compareSource(statement.predicate, bundle, checkout).problems).toEqual([]);
    writeFileSync(join(checkout, 'kit', 'nested', 'module.ts'), '// kit, edited\n');
    rmSync(join(checkout, 'catalog', 'nested', 'module.ts'));
    writeFileSync(join(checkout, 'tests', 'nested', 'extra.spec.ts'), '// added\n');
    writeFileSync(join(checkout, 'README.md'), 'edited, not a source file\n');
    expect(compareSource(statement.predicate, bundle, checkout).problems).toEqual([
      `catalog/nested/module.ts: loaded by the run, missing from ${checkout}`,
      expect.stringMatching(
        /^kit\/nested\/module\.ts: differs \(SHA-256 [0-9a-f]{64} in .*, [0-9a-f]{64} in the run\)$/,
      ),
      `tests/nested/extra.spec.ts: in ${checkout}, not among the files of the run`,
    ]);
    rmSync(checkout, { recursive: true, force: true });
    rmSync(bundle, { recursive: true, force: true });
  });

  test("a source claim whose digest is not its list's is refused, and a statement without one cannot be compared", () => {
    const checkout = tarballCheckout();
    const wrong = bundleOf(checkout, (claim) => (claim['digest'] = { sha256: '0'.repeat(64) }));
    expect(verifyBundle(wrong, createPublicKey(signer)).problems).toEqual([
      expect.stringMatching(/^source-files\.sha256: its SHA-256 is [0-9a-f]{64}, the statement's source digest 0{64}$/),
    ]);
    const malformed = bundleOf(checkout, (claim) => delete claim['commit']);
    expect(verifyBundle(malformed, createPublicKey(signer)).problems).toEqual([
      expect.stringMatching(/^the statement's source is not well-formed/),
    ]);
    expect(compareSource({ run: { partial: false, filters: [] } }, wrong, checkout).problems).toEqual([
      expect.stringMatching(/^the statement pins no source/),
    ]);
    for (const dir of [checkout, wrong, malformed]) rmSync(dir, { recursive: true, force: true });
  });
});

test.describe('a client is named by its command, credentials masked', () => {
  test('credentials in variables, options, headers and URLs are masked; references and other words are kept', () => {
    const redactor = new Redactor(['registered-secret-value']);
    expect(redactedCommand('npx tsx examples/reseller-client/client.ts --verbose', redactor)).toBe(
      'npx tsx examples/reseller-client/client.ts --verbose',
    );
    expect(
      redactedCommand(
        'API_KEY=abc123 CLIENT_TOKEN="x y" ./client --api-key s3cr3t --password=hunter2 --name shop',
        redactor,
      ),
    ).toBe(
      'API_KEY=[REDACTED] CLIENT_TOKEN=[REDACTED] ./client --api-key [REDACTED] --password=[REDACTED] --name shop',
    );
    expect(
      redactedCommand(
        "curl -H 'Authorization: Bearer abcdefabcdef12' -H 'x-api-key: zzz' https://user:pw@host/x",
        redactor,
      ),
    ).toBe("curl -H 'Authorization: Bearer [REDACTED]' -H 'x-api-key: [REDACTED]' https://user:[REDACTED]@host/x");
    expect(
      redactedCommand(
        './c registered-secret-value API_KEY=$API_KEY --token "$TOKEN" --keystore ./k --author me',
        redactor,
      ),
    ).toBe('./c [REDACTED] API_KEY=$API_KEY --token "$TOKEN" --keystore ./k --author me');
    expect(redactedCommand("--run 'API_KEY=abc npx client'", redactor)).toBe("--run 'API_KEY=[REDACTED] npx client'");
  });

  test("a client certification's statement that does not name the client is refused", () => {
    const signer = privateKeyFromPem(newKeyPair().privatePem);
    const dir = scratch();
    writeFileSync(join(dir, 'client-conformance.json'), '{}\n');
    sealBundle(dir, { role: 'client', run: { partial: false, filters: [] } }, signer);
    expect(verifyBundle(dir, createPublicKey(signer)).problems).toEqual([
      'the statement of a client certification does not name the client (client.command expected)',
    ]);
    sealBundle(
      dir,
      { role: 'client', client: { command: 'npx client', version: '1.0' }, run: { partial: false, filters: [] } },
      signer,
    );
    expect(verifyBundle(dir, createPublicKey(signer)).problems).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});

test.describe('secrets stay out of evidence', () => {
  const key = 'c2VjcmV0LWNsaWVudDpzZWNyZXQtdmFsdWU=';
  const env = {
    IDENTITY_BASE_URL: 'https://api.example.com/identity',
    IDENTITY_TOKEN_URL: 'https://login.example.com/identity/v1/token',
    STEPUP_BASE_URL: 'https://api.example.com/step-up',
    STEPUP_TOKEN_URL: 'https://login.example.com/stepup/v1/token',
    ORDERS_BASE_URL: 'https://api.example.com/commerce',
    API_KEY: key,
    CLIENT_ID: 'client-123',
  };

  test('the redacted configuration lists every variable, secrets as [REDACTED]', () => {
    const suite = loadConfig(env, { repoRoot: process.cwd(), embedded: false });
    const rows = redactedConfiguration({ suite, variables: env });
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(rows.find((r) => r.name === 'API_KEY')).toEqual({
      name: 'API_KEY',
      value: '[REDACTED]',
      source: 'set',
      secret: true,
    });
    expect(rows.find((r) => r.name === 'CLIENT_ID')?.value).toBe('client-123');
    expect(rows.find((r) => r.name === 'PROFILE')).toMatchObject({ value: 'gate', source: 'default' });
    expect(rows.find((r) => r.name === 'RESELLER_API_KEY')).toMatchObject({ source: 'unset' });
  });

  test('a configuration object serializes with its secrets masked and keeps them for its own use', () => {
    const suite = serializeRedacted(
      {
        services: { identity: { apiKey: key, expiredToken: 'expired-token-value' } },
        secrets: [key, 'expired-token-value'],
      },
      [key, 'expired-token-value'],
    );
    const json = JSON.stringify({ use: { suite } });
    expect(json).not.toContain(key);
    expect(json).not.toContain('expired-token-value');
    expect(json).toContain('[REDACTED]');
    expect(suite.services.identity.apiKey).toBe(key);
  });

  test('a body that is not UTF-8 text is replayed and attached byte for byte, its secrets masked', () => {
    const secret = 'registered-secret-0123';
    const bytes = Buffer.concat([
      Buffer.from(`{"note":"${secret}","id":"`),
      Buffer.from([0xff, 0x00, 0x27, 0x25, 0x5c, 0x0a, 0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const exchange = {
      label: 'order',
      request: {
        method: 'POST',
        url: 'https://api.example.com/v2/orders',
        headers: [['content-type', 'application/json']],
        body: bytes.toString('utf8'),
        bytes,
      },
      status: 400,
      headers: {},
      rawHeaders: [],
      text: '',
      json: undefined,
      attempts: [],
      durationMs: 1,
    } as Exchange;
    const redactor = new Redactor([secret]);
    const masked = Buffer.from(bytes.toString('latin1').replace(secret, '[REDACTED]'), 'latin1');
    const replay = curlOf(exchange, redactor);
    expect(replay).not.toContain(secret);
    const printf = /^(printf '(?:[^']|'\\'')*') \| curl /.exec(replay)?.[1];
    expect(printf, replay).toBeDefined();
    expect(spawnSync('sh', ['-c', printf as string]).stdout.toString('hex')).toBe(masked.toString('hex'));
    expect(Buffer.from(redactExchange(exchange, redactor).request.bodyBase64 ?? '', 'base64').toString('hex')).toBe(
      masked.toString('hex'),
    );
  });

  test('the offline report loses its remote scripts and gains a policy that blocks the network', () => {
    const html =
      '<html><head><title>r</title></head><body><script async src="https://www.googletagmanager.com/gtag/js?id=G-1"></script>\n<script>\n window.dataLayer = [];\n gtag("config");\n</script><script src="data:text/javascript;base64,AA=="></script></body></html>';
    expect(remoteReferences(html)).toEqual(['https://www.googletagmanager.com/gtag/js?id=G-1']);
    const offline = offlineHtml(html);
    expect(remoteReferences(offline)).toEqual([]);
    expect(offline).not.toContain('dataLayer');
    expect(offline).toContain('data:text/javascript;base64,AA==');
    expect(offline).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none';[^"]*connect-src data: blob:/,
    );
  });
});

test.describe('expected-failure ledger (conformance-ledger.json)', () => {
  const failing: FakeTest = {
    title: 'ORD-409 duplicate',
    status: 'failed',
    annotations: [...cite('ORD-409'), fail('ORD-409')],
    error: 'RequirementFailure: ORD-409',
  };
  const passingOrder: FakeTest = {
    title: 'ORD-409 duplicate',
    status: 'passed',
    annotations: [...cite('ORD-409'), pass('ORD-409')],
  };
  const entry = (expires: string): LedgerEntry => ({
    requirement: 'ORD-409',
    reason: 'answers 400; fix planned',
    owner: 'risk team',
    expires,
  });

  test('a listed failure reads known and does not fail the gate', async () => {
    const run = await conformanceRun('gate', [failing], [entry('2999-12-31')]);
    expect(run.status).toBe('passed');
    expect(run.json.requirements.find((r) => r.id === 'ORD-409')?.outcome).toBe('known');
    expect(run.json.reasons).toEqual([]);
  });

  test('an expired entry fails the run, and so does an entry whose requirement no longer fails', async () => {
    const expired = await conformanceRun('gate', [failing], [entry('2020-01-01')]);
    expect(expired.status).toBe('failed');
    expect(expired.json.reasons.join('\n')).toContain('Ledger entry for ORD-409 (risk team) expired on 2020-01-01');
    const unused = await conformanceRun('gate', [passingOrder], [entry('2999-12-31')]);
    expect(unused.status).toBe('failed');
    expect(unused.json.reasons.join('\n')).toContain(
      'Ledger entry for ORD-409 (risk team) is unused: the requirement is passed',
    );
  });

  test('an entry whose requirement changed level since it was written is a notice to remove it, not a failure', async () => {
    const run = await conformanceRun('gate', [passingOrder], [{ ...entry('2999-12-31'), level: 'SHOULD' }]);
    expect(run.status).toBe('passed');
    expect(run.json.reasons).toEqual([]);
    expect(run.printed).toContain(
      'Notice: ORD-409 is now MUST (the ledger entry was written for SHOULD): remove this entry (risk team)',
    );
    const info = requirements.find((r) => r.level === 'INFO')?.id ?? '';
    const observed: FakeTest = {
      title: `${info} observed`,
      status: 'passed',
      annotations: [...cite(info), markAnnotation({ kind: 'observed', id: info, detail: 'seen' })],
    };
    const nowInfo = await conformanceRun('gate', [observed], [{ ...entry('2999-12-31'), requirement: info }]);
    expect(nowInfo.json.reasons).toEqual([]);
    expect(nowInfo.printed).toContain(`Notice: ${info} is now INFO: remove this entry (risk team)`);
  });

  test('the certify profile ignores the ledger', async () => {
    const run = await conformanceRun('certify', [failing], [entry('2999-12-31')]);
    expect(run.status).toBe('failed');
    expect(run.json.requirements.find((r) => r.id === 'ORD-409')?.outcome).toBe('failed');
  });

  test('a malformed ledger, or one naming an unknown requirement, is refused before any test with the variable named', () => {
    const dir = scratch();
    const path = join(dir, 'ledger.json');
    writeFileSync(path, JSON.stringify({ entries: [{ requirement: 'ORD-409', reason: 'x', owner: 'y' }] }));
    expect(() =>
      loadConfig(
        {
          ...sandboxTargetEnv({ url: 'http://127.0.0.1:1', flavor: 'reference', tokenSecret: 's' }),
          CONFORMANCE_LEDGER: path,
        },
        { repoRoot: process.cwd(), embedded: false },
      ),
    ).toThrow(/CONFORMANCE_LEDGER: .*ledger\.json is not a valid ledger.*expires/);
    writeFileSync(path, JSON.stringify({ entries: [{ ...entry('2999-12-31'), requirement: 'ORD-999' }] }));
    expect(() => loadLedger(path)).toThrow(/names requirements the catalog does not have: ORD-999/);
    expect(loadLedger(join(dir, 'absent.json')), 'no ledger file, no entries').toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});
