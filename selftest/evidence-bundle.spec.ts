import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { catalogSha256, interfaceInfo, isRequirementId } from '../catalog/catalog.ts';
import { limitedClient, resellerClient } from '../sandbox/credentials.ts';
import { fault } from '../sandbox/faults.ts';
import { expiredTokenFor } from '../sandbox/tokens.ts';
import { suiteVersion } from '../reporters/run-environment.ts';
import { newKeyPair, type DsseEnvelope } from '../scripts/evidence/dsse.ts';
import { PUBLIC_KEY_FILE, sha256, STATEMENT_FILE, type Statement } from '../scripts/evidence/statement.ts';
import { gitState, SOURCE_LIST_FILE, SOURCE_PATHS, type SourceClaim } from '../scripts/evidence/source-digest.ts';
import { verifyBundleCommand } from '../scripts/verify-bundle.ts';
import {
  childEnv,
  filesUnder,
  freePort,
  inProcess,
  readJson,
  readText,
  repoRoot,
  runCli,
  scanForSecrets,
  TS_NODE,
  type CliRun,
} from './evidence-harness.ts';

const SEED = '424242';
/** Where the document is published, for the reports' links (unset, they name the parts without linking). */
const SPEC_URL = 'https://spec.example.test/interface.md';
/** A fault whose SHOULD warning fails the run under certify-strict, not under certify. */
const SHOULD_FAULT = 'token-no-cache-control';

/**
 * One certification run, shared by every test of this file: `npm run certify` on the auth checks against the
 * embedded sandbox, with canary credentials the sandbox was told to accept and a file receiving every token it
 * issued, so the tests can search every artifact for them. PROFILE=certify-strict and a SHOULD fault: the profile
 * reaches the run's verdict (every profile × outcome is verdict-table.spec.ts's, the reporter as Playwright feeds it).
 */
async function certifyWithCanaries() {
  const work = mkdtempSync(join(tmpdir(), 'evidence-certify-'));
  const tag = randomBytes(6).toString('hex');
  const clientSecret = `canary-secret-${randomBytes(12).toString('hex')}`;
  const apiKey = Buffer.from(`canary-client-${tag}:${clientSecret}`, 'utf8').toString('base64');
  const tokenSecret = `canary-token-secret-${randomBytes(12).toString('hex')}`;
  const issuedTokens = join(work, 'issued-tokens.txt');
  writeFileSync(issuedTokens, '');
  const certificationDir = join(work, 'certification');
  // The signer's pair made here: certify --new-key writing it is package.spec.ts's.
  const { privatePem, publicPem } = newKeyPair();
  const [privateKeyFile, publicKey] = [join(work, 'signing-key.pem'), join(work, 'signing-key.pub.pem')];
  writeFileSync(privateKeyFile, privatePem);
  writeFileSync(publicKey, publicPem);
  const orderTemplate = join(work, 'my-order.json');
  copyFileSync(join(repoRoot, 'fixtures', 'order-template.json'), orderTemplate);
  const env = childEnv(work, {
    ORDER_TEMPLATE: orderTemplate,
    CONFORMANCE_LEDGER: join(work, 'no-ledger.json'),
    CERTIFY_SIGNING_KEY_FILE: privateKeyFile,
    SPEC_URL,
    PROFILE: 'certify-strict',
    SANDBOX_FAULTS: SHOULD_FAULT,
    API_KEY: apiKey,
    SANDBOX_EXTRA_API_KEYS: apiKey,
    SANDBOX_TOKEN_SECRET: tokenSecret,
    SANDBOX_ISSUED_TOKENS_FILE: issuedTokens,
    SANDBOX_PORT: String(await freePort()),
    WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
    TEST_RESULTS_DIR: join(work, 'test-results'),
    CERTIFICATION_DIR: certificationDir,
    SEED,
  });
  // Started as its npm script starts it (node --import tsx <file>: cli.spec.ts), without npm's processes.
  const run = await runCli(TS_NODE[0], [...TS_NODE.slice(1), 'scripts/certify.ts', '--project', 'auth'], env, 240_000);
  const bundles = existsSync(certificationDir) ? readdirSync(certificationDir) : [];
  const tokens = readText(issuedTokens).split('\n').filter(Boolean);
  const secrets: Record<string, string> = {
    'API key': apiKey,
    'client secret': clientSecret,
    'sandbox token secret': tokenSecret,
    'reseller API key': resellerClient.apiKey,
    'no-entitlement API key': limitedClient.apiKey,
    ...Object.fromEntries(
      (['identity', 'stepup', 'orders'] as const).map((service) => [
        `expired ${service} token`,
        expiredTokenFor('signed', tokenSecret, service),
      ]),
    ),
    ...Object.fromEntries(tokens.map((token, index) => [`issued token ${index + 1}`, token])),
    'signing private key': privatePem.split('\n')[1] ?? privatePem,
  };
  // The signer's public key, as a certifier would have it.
  return { run, work, orderTemplate, bundle: join(certificationDir, bundles[0] ?? 'missing'), secrets, publicKey };
}

// The run is made before the file's first test, in a hook: a worker-scoped fixture would give the file a worker of its
// own, which Playwright starts after every other self-test's, so that the run ended npm test alone.
let certified: Awaited<ReturnType<typeof certifyWithCanaries>>;
test.describe.configure({ mode: 'default' });
test.beforeAll(async () => {
  test.setTimeout(300_000);
  certified = await certifyWithCanaries();
});
test.afterAll(() => certified && rmSync(certified.work, { recursive: true, force: true }));

const output = (run: CliRun) => `${run.stdout}\n${run.stderr}`;
/** verify-bundle called in this process: verifyBundleCommand is the script's whole work. */
const verifyBundle = (...args: string[]) => inProcess(() => verifyBundleCommand(args));

const sha256Of = (path: string) => sha256(readFileSync(path));

test(`npm run certify writes one bundle with the matrix, JUnit, single-file report, redacted configuration and what judged what, and exits with its verdict: a run of one project is partial, and under PROFILE=certify-strict the ${fault(SHOULD_FAULT).requirement} warning of the fault ${SHOULD_FAULT} fails it too`, () => {
  const { run, bundle } = certified;
  expect(existsSync(bundle), `no bundle was written; output:\n${output(run).slice(-3000)}`).toBe(true);
  expect(readdirSync(bundle).sort()).toEqual([
    'allure-report.html',
    'certificate.json',
    'configuration.json',
    'conformance.json',
    'conformance.md',
    'junit.xml',
    'signing-key.pub.pem',
    SOURCE_LIST_FILE,
    'statement.dsse.json',
  ]);
  const matrix = readJson<{ profile: string; result: string; reasons: string[] }>(join(bundle, 'conformance.json'));
  expect(run.code, output(run).slice(-3000)).toBe(1);
  expect(matrix.profile).toBe('certify-strict');
  expect(matrix.result).toMatch(
    /^not conformant: partial run \(\d+ of \d+ MUST in this run\); 1 SHOULD warning \(TOK-NO-STORE\)$/,
  );
  expect(matrix.reasons).toEqual([
    expect.stringMatching(/^partial run: \d+ MUST requirements without a test in this run /),
    'SHOULD requirements warned (certify-strict profile): TOK-NO-STORE',
  ]);
  const certificate = readJson<Record<string, unknown>>(join(bundle, 'certificate.json'));
  expect(certificate).toMatchObject({
    suite: { version: suiteVersion },
    interface: { version: interfaceInfo.version },
    catalogSha256,
    profile: 'certify-strict',
    seed: Number(SEED),
    exitCode: 1,
    bundleProblems: [],
    verdict: { word: 'not conformant', words: matrix.result, exitCode: 1, conformant: false },
    // The concurrency rounds the run tried are stated (none in a run of the auth project).
    concurrency: { tried: 0 },
  });
  for (const stamp of ['startedAt', 'finishedAt'])
    expect(certificate[stamp]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const configuration = readJson<Array<{ name: string; value?: string }>>(join(bundle, 'configuration.json'));
  const valueOf = (name: string) => configuration.find((v) => v.name === name)?.value;
  expect([valueOf('API_KEY'), valueOf('SANDBOX_TOKEN_SECRET'), valueOf('SEED')]).toEqual([
    '[REDACTED]',
    '[REDACTED]',
    SEED,
  ]);
  expect(output(run), 'the summary table is printed').toContain('Conformance by requirement');
});

test("the signed bundle verifies offline against the signer's key through verify-bundle; the statement pins every file a setting points at, the order template outside the checkout by its SHA-256 beside its path", async () => {
  const verified = await verifyBundle('--public-key', certified.publicKey, '--allow-partial', certified.bundle);
  expect(verified.code, output(verified)).toBe(0);
  expect(verified.stdout).toContain('its 8 files match their digests');
  expect(verified.stdout).toMatch(
    /^Signature and files verified; verdict: not conformant: partial run .*\(certify-strict profile\)$/m,
  );
  const template = certified.orderTemplate;
  expect(verified.stdout).toContain(`ORDER_TEMPLATE: ${template} SHA-256 ${sha256Of(template)}`);
  const envelope = readJson<DsseEnvelope>(join(certified.bundle, STATEMENT_FILE));
  const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as Statement;
  expect(statement.predicate['files']).toEqual([
    { variable: 'ORDER_TEMPLATE', path: template, sha256: sha256Of(template) },
    // A ledger is read when it is there; none is, and the statement says so.
    { variable: 'CONFORMANCE_LEDGER', path: join(certified.work, 'no-ledger.json') },
  ]);
});

const flip = (file: string) => {
  const bytes = readFileSync(file);
  bytes[10] = bytes[10]! ^ 0x01;
  writeFileSync(file, bytes);
};
/** conformance.json changed and its digest recomputed in the statement, which is no longer the one signed. */
const digestRecomputed = (copy: string) => {
  const [changed, path] = [join(copy, 'conformance.json'), join(copy, STATEMENT_FILE)];
  flip(changed);
  const envelope = readJson<DsseEnvelope>(path);
  const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as Statement;
  statement.subject.find((s) => s.name === 'conformance.json')!.digest.sha256 = sha256Of(changed);
  envelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
  writeFileSync(path, JSON.stringify(envelope));
};

// Each way a bundle can be tampered with, or verified wrongly, on a copy of the run's bundle: verify-bundle refuses it
// naming what is wrong.
type How = { key?: 'other' | 'none'; flags?: string[]; code?: number };
const tampers: Array<[what: string, names: string | RegExp, change?: (copy: string) => void, how?: How]> = [
  ['one byte of a file changed', 'conformance.md: changed', (c) => flip(join(c, 'conformance.md'))],
  ['a file added', 'extra.txt: not in the signed statement', (c) => writeFileSync(join(c, 'extra.txt'), 'x')],
  ['a file removed', 'junit.xml: missing', (c) => rmSync(join(c, 'junit.xml'))],
  ['the statement removed', `${STATEMENT_FILE}: missing`, (c) => rmSync(join(c, STATEMENT_FILE))],
  [
    'a file changed and its digest recomputed in the statement',
    /the signature by key [0-9a-f]{64} does not match the statement: the statement was changed after signing/,
    digestRecomputed,
  ],
  [
    "the signer's public key in the bundle replaced",
    `${PUBLIC_KEY_FILE}: changed`,
    (c) => writeFileSync(join(c, PUBLIC_KEY_FILE), newKeyPair().publicPem),
  ],
  [
    'another key given',
    /statement\.dsse\.json: signed by key [0-9a-f]{64}, not by the key given/,
    undefined,
    { key: 'other' },
  ],
  ['no key given', '--public-key is required', undefined, { key: 'none', code: 2 }],
  ['a partial run without --allow-partial', 'the run was partial (--project auth)', undefined, { flags: [] }],
  [
    'a run not conformant, with --require-conformant',
    'the run did not end conformant: not conformant: partial run',
    undefined,
    { flags: ['--allow-partial', '--require-conformant'] },
  ],
];
for (const [what, names, change, { key, flags = ['--allow-partial'], code = 1 } = {}] of tampers)
  test(`verify-bundle refuses ${what}, naming it`, async () => {
    const copy = mkdtempSync(join(certified.work, 'tampered-'));
    cpSync(certified.bundle, copy, { recursive: true });
    change?.(copy);
    const otherKey = `${copy}.pub.pem`;
    writeFileSync(otherKey, newKeyPair().publicPem);
    const keyArgs = key === 'none' ? [] : ['--public-key', key === 'other' ? otherKey : certified.publicKey];
    const refused = await verifyBundle(...keyArgs, ...flags, copy);
    expect(refused.code, output(refused)).toBe(code);
    expect(refused.stderr).toMatch(names);
  });

test('the statement pins the source that ran; verify-bundle --source passes on an unchanged copy of the checkout and names a source file that differs', async () => {
  const certificate = readJson<{ source: SourceClaim }>(join(certified.bundle, 'certificate.json'));
  expect(certificate.source).toMatchObject({ ...gitState(repoRoot), paths: SOURCE_PATHS, list: SOURCE_LIST_FILE });
  // A copy outside any git checkout, as a tarball would give it: the digest does not need git. Which files differ,
  // are missing or were added is a unit of evidence-units.spec.ts.
  const checkout = join(certified.work, 'checkout');
  for (const path of SOURCE_PATHS) cpSync(join(repoRoot, path), join(checkout, path), { recursive: true });
  const verify = () =>
    verifyBundle('--public-key', certified.publicKey, '--allow-partial', '--source', checkout, certified.bundle);
  const unchanged = await verify();
  expect(unchanged.code, output(unchanged)).toBe(0);
  expect(unchanged.stdout).toContain(
    `${certificate.source.files} source files of ${SOURCE_PATHS.join(', ')} identical to the run's`,
  );
  writeFileSync(join(checkout, 'kit', 'redact.ts'), '// edited\n', { flag: 'a' });
  const changed = await verify();
  expect(changed.code, output(changed)).toBe(1);
  expect(changed.stderr).toContain('kit/redact.ts: differs');
});

test('JUnit gives every test the requirement IDs it verifies as properties, and a title without IDs', () => {
  const junit = readText(join(certified.bundle, 'junit.xml'));
  const all = [...junit.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)];
  // One run-level case, the verdict (its failure: verdict-table.spec.ts); every other case is a check.
  expect(all.filter(([, , classname]) => classname === 'verdict').map(([, name]) => name)).toEqual([
    'verdict (certify-strict profile)',
  ]);
  const cases = all.filter(([, , classname]) => classname !== 'verdict');
  expect(cases.length).toBeGreaterThan(0);
  const problems = cases.flatMap(([, name = '', , inner = '']) => {
    const cited = [...inner.matchAll(/<property name="requirement" value="([^"]*)"\s*\/?>/g)].map((m) => m[1] ?? '');
    return [
      ...(cited.length === 0 ? [`${name}: no requirement property`] : []),
      ...cited.filter((id) => !isRequirementId(id)).map((id) => `${name}: unknown requirement ${id}`),
      ...name
        .split(/\s+/)
        .filter(isRequirementId)
        .map((id) => `${name}: its name carries the requirement ID ${id}`),
    ];
  });
  expect(problems, 'JUnit test cases').toEqual([]);
});

test('Allure results carry the labels, the environment and the exchanges', () => {
  const dir = join(certified.work, 'reports', 'allure-results');
  type Result = { name: string; labels: Array<{ name: string; value: string }>; links: Array<{ url: string }> };
  const results = readdirSync(dir)
    .filter((f) => f.endsWith('-result.json'))
    .map((f) => readJson<Result>(join(dir, f)));
  expect(results.length).toBeGreaterThan(0);
  // What each label holds is a unit of evidence-units.spec.ts; here, that every result has them.
  const problems = results.flatMap((result) => {
    const label = (name: string) => result.labels.find((l) => l.name === name)?.value ?? '';
    return [
      ...['epic', 'feature', 'severity', 'tag', 'verdict'].filter((name) => !label(name)).map((n) => `no ${n} label`),
      ...(label('parentSuite') === 'auth' ? [] : [`parentSuite ${label('parentSuite')}`]),
      ...(result.links.length > 0 ? [] : ['no link']),
      ...result.links.filter((l) => !l.url.startsWith(`${SPEC_URL}#`)).map((l) => `link ${l.url}`),
    ].map((problem) => `${result.name}: ${problem}`);
  });
  expect(problems, 'Allure results').toEqual([]);
  const environment = readText(join(dir, 'environment.properties'));
  const keys = ['suite version', 'interface version', 'catalog SHA-256', 'profile', 'seed', 'identity base URL'];
  const lacks = keys.filter((key) => !environment.includes(key.replace(/ /g, '\\ ')));
  expect(lacks, 'environment.properties lacks').toEqual([]);
  expect(
    readdirSync(dir).some((f) => f.endsWith('-attachment.json')),
    'exchanges are attached',
  ).toBe(true);
});

test('no secret configured or obtained during the run appears in any artifact, report or output', () => {
  const tokens = Object.keys(certified.secrets).filter((name) => name.startsWith('issued token'));
  expect(tokens.length, 'the sandbox issued tokens during the run').toBeGreaterThan(0);
  const files = [join(certified.work, 'reports'), join(certified.work, 'test-results'), certified.bundle]
    .filter(existsSync)
    .flatMap(filesUnder);
  expect(files.some((f) => f.endsWith('allure-report.html'))).toBe(true);
  const sources = [
    ...files.map((file) => ({ name: file.slice(certified.work.length + 1), text: readText(file) })),
    { name: 'stdout', text: certified.run.stdout },
    { name: 'stderr', text: certified.run.stderr },
  ];
  expect(scanForSecrets(sources, certified.secrets)).toEqual([]);
  const hidden = Buffer.from(`Authorization: Bearer ${certified.secrets['issued token 1']}`).toString('base64');
  const control = [{ name: 'control', text: `x ${hidden} y` }];
  expect(scanForSecrets(control, certified.secrets), 'the scan finds a secret hidden in base64').not.toEqual([]);
});
