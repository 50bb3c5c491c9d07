import { generateKeyPairSync, createPublicKey } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { resolveRun } from '../runner/config/resolve.ts';
import { mergedReporters } from '../runner/run-reporters.ts';
import { ProjectProgress } from '../reporters/console-progress.ts';
import { loadLedger, type LedgerEntry } from '../schemas/ledger.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { serializeRedacted } from '../reporters/serialize-redacted.ts';
import { documentHeadings, SPEC_DOCUMENT, SpecParts } from '../reporters/spec-parts.ts';
import type { TestRecord } from '../reporters/verdicts.ts';
import { offlineHtml, remoteReferences } from '../scripts/evidence/allure-single-file.ts';
import { redactedConfiguration } from '../scripts/evidence/configuration.ts';
import { newKeyPair, privateKeyFromPem } from '../scripts/evidence/dsse.ts';
import { signingKeyFrom } from '../scripts/evidence/signing-key.ts';
import { sealBundle, sha256, verifyBundle, type Statement } from '../scripts/evidence/statement.ts';
import {
  compareSource,
  gitState,
  pinSource,
  SOURCE_LIST_FILE,
  SOURCE_PATHS,
} from '../scripts/evidence/source-digest.ts';
import { redactedCommand } from '../scripts/evidence/client-identity.ts';
import { inProcess, repoRoot } from './evidence-harness.ts';
import { Redactor } from '../kit/redact.ts';

// The units of the conformance reporter, the Allure labels, the source a bundle pins and redaction. Every profile ×
// outcome, the ledger's known and ignored rows and a run with no test are verdict-table.spec.ts's rows; the tamper
// cases of a signed bundle are evidence-bundle.spec.ts's table, on a real certify bundle.
type Annotations = TestRecord['annotations'];
const cite = (...ids: string[]) => ids.map(citeAnnotation);
const pass = (id: string) => markAnnotation({ kind: 'pass', id, detail: '' });
const fail = (id: string) => markAnnotation({ kind: 'fail', id, detail: 'Expected: a token | Actual: none' });
const warn = (id: string) => markAnnotation({ kind: 'warn', id, detail: 'Cache-Control absent' });
const blocked = (id: string) => markAnnotation({ kind: 'blocked', id, detail: 'no token' });
const record = (annotations: Annotations, status: TestRecord['status'] = 'passed'): TestRecord => ({
  title: 't',
  project: 'auth',
  location: 'x:1',
  status,
  annotations,
});
const configOf = (env: Record<string, string>) => loadConfig(env, { repoRoot, embedded: false });
const sandboxEnv = sandboxTargetEnv({ url: 'http://127.0.0.1:1', flavor: 'reference', tokenSecret: 's' });

const scratchDirs: string[] = [];
function scratch(): string {
  scratchDirs.push(mkdtempSync(join(tmpdir(), 'evidence-unit-')));
  return scratchDirs.at(-1) as string;
}
test.afterAll(() => scratchDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A test citing `id` and marked `mark`; a failed one carries the error the check threw. */
const fakeTest = (id: string, mark: Annotations[number], status: TestResult['status'] = 'passed') => ({
  title: `${id} ${status}`,
  status,
  annotations: [...cite(id), mark],
  ...(status === 'failed' && { error: `RequirementFailure: ${id}` }),
});
type FakeTest = ReturnType<typeof fakeTest>;

/** Feeds the conformance reporter the results of fake tests, as Playwright would, and returns what it wrote and printed. */
async function conformanceRun(tests: FakeTest[], ledger: LedgerEntry[] = []) {
  const dir = scratch();
  const reporter = new ConformanceReporter({ outputDir: dir, profile: 'gate', environment: { seed: '1' }, ledger });
  reporter.onBegin({ rootDir: '/repo' } as never, {} as never);
  tests.forEach((t, index) => {
    const location = { file: '/repo/tests/auth/x.spec.ts', line: index + 1 };
    const parent = { project: () => ({ name: 'auth' }) };
    const testCase = { id: String(index), title: t.title, annotations: [], location, parent };
    const result = { status: t.status, annotations: t.annotations, errors: t.error ? [{ message: t.error }] : [] };
    reporter.onTestEnd(testCase as unknown as TestCase, result as unknown as TestResult);
  });
  let status: string | undefined;
  const { stdout } = await inProcess(async () => {
    status = (await reporter.onEnd({ status: 'passed' } as FullResult))?.status;
    return 0;
  });
  const json = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as {
    reasons: string[];
    uncoveredMust: string[];
    requirements: Array<{ id: string; outcome: string; tests: Array<{ title: string; outcome: string }> }>;
  };
  return { status, json, markdown: readFileSync(join(dir, 'conformance.md'), 'utf8'), printed: stdout };
}

test.describe('conformance reporter: matrix, summary and console', () => {
  test('every requirement gets a verdict and the tests behind it; a filtered run lists only what it cites and names the MUSTs left out', async () => {
    const run = await conformanceRun([
      fakeTest('TOK-GRANT-TYPE', pass('TOK-GRANT-TYPE')),
      fakeTest('TOK-NO-STORE', warn('TOK-NO-STORE')),
    ]);
    const verdictOf = (id: string) => run.json.requirements.find((r) => r.id === id);
    expect(run.json.requirements).toHaveLength(requirements.length);
    expect(verdictOf('TOK-GRANT-TYPE')).toMatchObject({
      outcome: 'passed',
      tests: [{ title: 'TOK-GRANT-TYPE passed', outcome: 'passed' }],
    });
    expect(verdictOf('TOK-NO-STORE')?.outcome).toBe('warning');
    expect(verdictOf('TOK-ISSUED')?.outcome).toBe('uncovered');
    expect(run.json.uncoveredMust).toContain('TOK-ISSUED');
    expect(run.json.uncoveredMust).not.toContain('TOK-GRANT-TYPE');
    expect(run.markdown).toContain(
      '| TOK-NO-STORE | SHOULD | 4.1 | [warning](#tok-no-store-should-part-41-warning) | 1 |',
    );
    expect(run.markdown).toContain(
      `${requirements.length - 2} requirements have no test in this run (a filtered run) and are not listed.`,
    );
    expect(run.printed, 'the summary table is printed').toMatch(
      /level\s+failed\s+blocked\s+warning\s+known\s+passed\s+observed\s+not-exercised\s+not-configured\s+not-produced\s+uncovered\s+total/,
    );
    expect(run.printed).toMatch(
      /Not in this run: \d+ MUST without a test \(a --grep or --project filter; .*TOK-ISSUED/,
    );
  });

  // A matrix that fits where it is read: a PR comment when everything fails at length, 200 lines when all is clean.
  const long = `Expected: the documented answer | Actual: ${'x'.repeat(4_000)}`;
  const sized = [
    {
      what: 'every requirement failing with a long detail fits a PR comment',
      tests: () =>
        requirements.map((r) => ({
          ...fakeTest(r.id, markAnnotation({ kind: 'fail', id: r.id, detail: long }), 'failed'),
          error: long,
        })),
      holds: (markdown: string) => {
        expect(markdown.length).toBeLessThan(MARKDOWN_MAX_CHARS);
        expect(markdown).toMatch(/more requirement sections? did not fit the [\d,]+ characters this file keeps to/);
      },
    },
    {
      what: 'a clean run fits in 200 lines, none longer than 300 characters',
      tests: () =>
        requirements.map((r) =>
          fakeTest(
            r.id,
            r.level === 'INFO' ? markAnnotation({ kind: 'observed', id: r.id, detail: 'x'.repeat(400) }) : pass(r.id),
          ),
        ),
      holds: (markdown: string) => {
        expect(markdown.split('\n').length).toBeLessThan(200);
        expect(markdown.split('\n').filter((line) => line.length > 300)).toEqual([]);
      },
    },
  ];
  for (const { what, tests, holds } of sized)
    test(`the Markdown matrix: ${what}`, async () => holds((await conformanceRun(tests())).markdown));

  test('the console: a line per project when its last test ends, every test only with CONFORMANCE_VERBOSE=1', () => {
    const progress = new ProjectProgress(
      new Map([
        ['auth', 2],
        ['orders', 1],
      ]),
    );
    expect(progress.add(record([]))).toBeUndefined();
    expect(progress.add(record([blocked('TOK-ISSUED')], 'skipped'))).toBe('  auth    2 tests: 1 blocked, 1 passed');
    expect(progress.unfinished()).toEqual(['  orders  1 test: 1 did not run']);
    const reportersOf = (verbose: Record<string, string>) =>
      mergedReporters(resolveRun({ ...sandboxEnv, ENV_FILE: '/dev/null', ...verbose }, repoRoot));
    expect(reportersOf({}).map(([name]) => name)).not.toContain('list');
    const verbose = reportersOf({ CONFORMANCE_VERBOSE: '1' });
    expect(verbose.map(([name]) => name)).toContain('list');
    expect(verbose.find(([name]) => name.endsWith('conformance-reporter.ts'))?.[1]).toMatchObject({ verbose: true });
  });
});

test.describe('Allure labels from the catalog', () => {
  // The catalog's headings: the reports title and link a part alike in every clone, the document beside it or not.
  const parts = new SpecParts('spec/interface.md');

  test('epic is the spec part, feature the requirement with its level, parent suite the project, severity from the highest level, a link per clause, to the document where no heading names the part', () => {
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
    const lower = allureEnrichment(record(cite('TOK-LIFETIME')), parts).labels;
    expect(lower, 'severity from the highest level').toContainEqual({ name: 'severity', value: 'minor' });
    expect(values('tag')).toEqual(['MUST', 'SHOULD']);
    expect(values('verdict')).toEqual([TEST_VERDICT.shouldWarning]);
    expect(links.map((l) => l.url)).toEqual([
      'spec/interface.md#41-token-endpoint',
      'spec/interface.md#5-authentication',
    ]);
    expect(description).toContain(
      `**TOK-ISSUED** (MUST, part 4.1): ${requirement('TOK-ISSUED').statement} → **passed**`,
    );
    const url = 'https://spec.example/interface.md';
    expect(new SpecParts(url, []).of('7'), 'a part no heading has still links to the document').toEqual({
      part: '7',
      title: '',
      url,
    });
  });

  // [the test's status, its verdict label, the requirements it cites, its marks]
  const verdicts: Array<[TestRecord['status'], string, string[], ...Annotations]> = [
    ['failed', TEST_VERDICT.mustFailed, ['TOK-ISSUED', 'TOK-NO-STORE'], fail('TOK-ISSUED'), warn('TOK-NO-STORE')],
    ['passed', TEST_VERDICT.shouldWarning, ['TOK-NO-STORE'], warn('TOK-NO-STORE')],
    ['skipped', TEST_VERDICT.notConfigured, ['ORD-403']],
    ['failed', TEST_VERDICT.blocked, ['CU-TAGS-APPEND'], blocked('CU-TAGS-APPEND')],
    ['passed', TEST_VERDICT.passed, ['TOK-ISSUED'], pass('TOK-ISSUED')],
  ];
  for (const [status, verdict, ids, ...marks] of verdicts) {
    const annotations = [...cite(...ids), ...marks];
    test(`the verdict label of a ${status} test marked ${annotations.map((a) => a.type).join(', ')}: ${verdict}`, () => {
      expect(allureEnrichment(record(annotations, status), parts).verdict).toBe(verdict);
    });
  }

  test("the catalog's headings are the interface document's, where the document is beside the repository", () => {
    const document = resolve(repoRoot, SPEC_DOCUMENT);
    test.skip(!existsSync(document), `${SPEC_DOCUMENT} is not beside this clone: nothing to compare the headings with`);
    expect(interfaceInfo.headings).toEqual(documentHeadings(readFileSync(document, 'utf8')));
    expect(interfaceInfo.headings.length).toBeGreaterThan(0);
  });
});

test.describe("a bundle's statement: the source it pins (git commit, every source file's SHA-256), the client it names", () => {
  const signer = privateKeyFromPem(newKeyPair().privatePem);
  const verify = (bundle: string) => verifyBundle(bundle, createPublicKey(signer));
  const run = { partial: false, filters: [] };

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

  /** A bundle of `files` sealed with `predicate`, as certify seals one. */
  function sealed(predicate: Record<string, unknown>, files: Record<string, string> = {}): string {
    const bundle = scratch();
    for (const [name, text] of Object.entries(files)) writeFileSync(join(bundle, name), text);
    sealBundle(bundle, { run, ...predicate }, signer);
    return bundle;
  }

  test('without git the commit is unknown and the digest covers one file per source path, and nothing else; a checkout differing from the run by one file, a missing file or an added one is named, the same checkout passes', () => {
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
    const bundle = sealed({ source: claim }, { [SOURCE_LIST_FILE]: list });
    const statement = verify(bundle).statement as Statement;
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
  });

  // A client certification naming its client verifies: client-certification.spec.ts, on a real client bundle.
  test("a source claim whose digest is not its list's, a malformed one, and a client certification naming no client are refused; a statement without a source cannot be compared", () => {
    const checkout = tarballCheckout();
    const { claim, list } = pinSource(checkout);
    const listed = { [SOURCE_LIST_FILE]: list };
    const statements: Array<[what: string, predicate: Record<string, unknown>, files: object, problems: unknown[]]> = [
      [
        'a wrong digest',
        { source: { ...claim, digest: { sha256: '0'.repeat(64) } } },
        listed,
        [
          expect.stringMatching(
            /^source-files\.sha256: its SHA-256 is [0-9a-f]{64}, the statement's source digest 0{64}$/,
          ),
        ],
      ],
      [
        'no commit',
        { source: { ...claim, commit: undefined } },
        listed,
        [expect.stringMatching(/^the statement's source is not well-formed/)],
      ],
      [
        'a client certification naming no client',
        { role: 'client' },
        {},
        ['the statement of a client certification does not name the client (client.command expected)'],
      ],
    ];
    for (const [what, predicate, files, problems] of statements)
      expect.soft(verify(sealed(predicate, files as Record<string, string>)).problems, what).toEqual(problems);
    expect(compareSource({ run }, sealed({}), checkout).problems).toEqual([
      expect.stringMatching(/^the statement pins no source/),
    ]);
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
  const redactor = new Redactor(['registered-secret-value']);
  const command = (line: string) => () => redactedCommand(line, redactor);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  const thrown = (call: () => unknown) => () => {
    try {
      call();
      return 'nothing thrown';
    } catch (error) {
      return (error as Error).message;
    }
  };
  // What each writer makes of a secret, and the words it keeps: [where, what it gives, its secrets, what it must give
  // (all of it, or a part of it when `within`)].
  const redactions: Array<[string, () => string, string[], string, within?: 'within']> = [
    [
      'a client command: credentials in variables and options',
      command('API_KEY=abc123 CLIENT_TOKEN="x y" ./client --api-key s3cr3t --password=hunter2 --name shop'),
      ['abc123', 'x y', 's3cr3t', 'hunter2'],
      'API_KEY=[REDACTED] CLIENT_TOKEN=[REDACTED] ./client --api-key [REDACTED] --password=[REDACTED] --name shop',
    ],
    [
      'a client command: credentials in headers and a URL',
      command("curl -H 'Authorization: Bearer abcdefabcdef12' -H 'x-api-key: zzz' https://user:pw@host/x"),
      ['abcdefabcdef12', 'zzz', ':pw@'],
      "curl -H 'Authorization: Bearer [REDACTED]' -H 'x-api-key: [REDACTED]' https://user:[REDACTED]@host/x",
    ],
    [
      'a client command: a registered secret, references and other words kept',
      command('./c registered-secret-value API_KEY=$API_KEY --token "$TOKEN" --keystore ./k --author me'),
      ['registered-secret-value'],
      './c [REDACTED] API_KEY=$API_KEY --token "$TOKEN" --keystore ./k --author me',
    ],
    [
      'a client command: a command inside --run, and one without credentials kept whole',
      () => [command("--run 'API_KEY=abc npx client'")(), command('npx tsx client.ts --verbose')()].join('\n'),
      ['abc npx'],
      "--run 'API_KEY=[REDACTED] npx client'\nnpx tsx client.ts --verbose",
    ],
    [
      'the configuration: every variable listed, secrets as [REDACTED]',
      () => {
        const rows = redactedConfiguration({ suite: configOf(env), variables: env });
        expect(rows.find((r) => r.name === 'CLIENT_ID')?.value).toBe('client-123');
        expect(rows.find((r) => r.name === 'PROFILE')).toMatchObject({ value: 'gate', source: 'default' });
        expect(rows.find((r) => r.name === 'RESELLER_API_KEY')).toMatchObject({ source: 'unset' });
        return JSON.stringify(rows);
      },
      [key],
      '{"name":"API_KEY","value":"[REDACTED]","source":"set","secret":true}',
      'within',
    ],
    [
      'a configuration object: serialized masked, its secrets kept for its own use',
      () => {
        const secrets = [key, 'expired-token-value'];
        const services = { identity: { apiKey: key, expiredToken: 'expired-token-value' } };
        const suite = serializeRedacted({ services, secrets }, secrets);
        expect(suite.services.identity.apiKey).toBe(key);
        return JSON.stringify({ use: { suite } });
      },
      [key, 'expired-token-value'],
      '"apiKey":"[REDACTED]"',
      'within',
    ],
    [
      'a signing key that is not Ed25519, refused naming the variable',
      thrown(() => signingKeyFrom({ signingKey: rsa.toString() })),
      [rsa.toString().split('\n')[1] as string],
      'CERTIFY_SIGNING_KEY=[REDACTED]: an rsa key, not Ed25519',
    ],
  ];
  for (const [where, given, secrets, gives, within] of redactions)
    test(`redacted: ${where}`, () => {
      const text = given();
      for (const secret of secrets) expect(text).not.toContain(secret);
      if (within) expect(text).toContain(gives);
      else expect(text).toBe(gives);
    });

  test('a signing key file that is not there is refused naming the variable; without a key one is made', () => {
    expect(() => signingKeyFrom({ signingKeyFile: '/no/such/key.pem' })).toThrow(
      'CERTIFY_SIGNING_KEY_FILE=/no/such/key.pem: no such file',
    );
    expect(signingKeyFrom({}).origin).toBe('made for this run');
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
  const entry = (expires: string, id = 'ORD-409'): LedgerEntry => ({
    requirement: id,
    reason: 'answers 400; fix planned',
    owner: 'risk team',
    expires,
  });

  test('an expired entry fails the run, and so does an entry whose requirement no longer fails', async () => {
    const stale: Array<[FakeTest, expires: string, reason: string]> = [
      [fakeTest('ORD-409', fail('ORD-409'), 'failed'), '2020-01-01', 'ORD-409 (risk team) expired on 2020-01-01'],
      [fakeTest('ORD-409', pass('ORD-409')), '2999-12-31', 'ORD-409 (risk team) is unused: the requirement is passed'],
    ];
    for (const [ran, expires, reason] of stale) {
      const run = await conformanceRun([ran], [entry(expires)]);
      expect.soft(run.status, reason).toBe('failed');
      expect.soft(run.json.reasons.join('\n')).toContain(`Ledger entry for ${reason}`);
    }
  });

  test('a malformed ledger, or one naming an unknown requirement, is refused before any test with the variable named', () => {
    const dir = scratch();
    const path = join(dir, 'ledger.json');
    writeFileSync(path, JSON.stringify({ entries: [{ requirement: 'ORD-409', reason: 'x', owner: 'y' }] }));
    expect(() => configOf({ ...sandboxEnv, CONFORMANCE_LEDGER: path })).toThrow(
      /CONFORMANCE_LEDGER: .*ledger\.json is not a valid ledger.*expires/,
    );
    writeFileSync(path, JSON.stringify({ entries: [entry('2999-12-31', 'ORD-999')] }));
    expect(() => loadLedger(path)).toThrow(/names requirements the catalog does not have: ORD-999/);
    expect(loadLedger(join(dir, 'absent.json')), 'no ledger file, no entries').toEqual([]);
  });
});
