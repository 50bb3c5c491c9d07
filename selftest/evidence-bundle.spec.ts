import { createHash, randomBytes } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, expect, test as base } from '@playwright/test';
import { catalogSha256, interfaceInfo, isRequirementId } from '../catalog/catalog.ts';
import { limitedClient, resellerClient } from '../sandbox/credentials.ts';
import { expiredTokenFor } from '../sandbox/tokens.ts';
import { suiteVersion } from '../reporters/run-environment.ts';
import { newKeyPair } from '../scripts/evidence/dsse.ts';
import { gitState, SOURCE_LIST_FILE, SOURCE_PATHS, type SourceClaim } from '../scripts/evidence/source-digest.ts';
import { verifyBundleCommand } from '../scripts/verify-bundle.ts';
import {
  childEnv,
  filesUnder,
  freePort,
  inProcess,
  readText,
  repoRoot,
  runCli,
  scanForSecrets,
  TS_NODE,
  type CliRun,
} from './evidence-harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const SEED = '424242';
/** Where the document is published, for the reports' links (unset, they name the parts without linking). */
const SPEC_URL = 'https://spec.example.test/interface.md';

interface CertifiedRun {
  run: CliRun;
  work: string;
  /** The order template the run was given, outside the checkout (ORDER_TEMPLATE). */
  orderTemplate: string;
  bundle: string;
  reportsDir: string;
  testResultsDir: string;
  /** Every secret configured or obtained during the run, by name. */
  secrets: Record<string, string>;
  /** The signer's public key, as a certifier would have it. */
  publicKey: string;
}

/**
 * One certification run, shared by every test of this file: `npm run certify` on the auth checks against the
 * embedded sandbox, with canary credentials the sandbox was told to accept and a file receiving every token it
 * issued, so the tests can search every artifact for them.
 */
async function certifyWithCanaries(): Promise<CertifiedRun> {
  const work = mkdtempSync(join(tmpdir(), 'evidence-certify-'));
  const tag = randomBytes(6).toString('hex');
  const clientSecret = `canary-secret-${randomBytes(12).toString('hex')}`;
  const apiKey = Buffer.from(`canary-client-${tag}:${clientSecret}`, 'utf8').toString('base64');
  const tokenSecret = `canary-token-secret-${randomBytes(12).toString('hex')}`;
  const issuedTokens = join(work, 'issued-tokens.txt');
  writeFileSync(issuedTokens, '');
  const reportsDir = join(work, 'reports');
  const testResultsDir = join(work, 'test-results');
  const certificationDir = join(work, 'certification');
  const keyDir = join(work, 'keys');
  // The scripts started as their npm scripts start them (node --import tsx <file>: cli.spec.ts), without npm's processes.
  const certify = [...TS_NODE.slice(1), 'scripts/certify.ts'];
  const newKey = await runCli(TS_NODE[0], [...certify, '--new-key', '--key-dir', keyDir], childEnv(work, {}));
  if (newKey.code !== 0) throw new Error(`certify --new-key failed:\n${newKey.stdout}\n${newKey.stderr}`);
  const privateKey = readText(join(keyDir, 'certify-signing-key.pem'));
  const orderTemplate = join(work, 'my-order.json');
  copyFileSync(join(repoRoot, 'fixtures', 'order-template.json'), orderTemplate);
  const env = childEnv(work, {
    ORDER_TEMPLATE: orderTemplate,
    CONFORMANCE_LEDGER: join(work, 'no-ledger.json'),
    CERTIFY_SIGNING_KEY_FILE: join(keyDir, 'certify-signing-key.pem'),
    SPEC_URL: SPEC_URL,
    API_KEY: apiKey,
    SANDBOX_EXTRA_API_KEYS: apiKey,
    SANDBOX_TOKEN_SECRET: tokenSecret,
    SANDBOX_ISSUED_TOKENS_FILE: issuedTokens,
    SANDBOX_PORT: String(await freePort()),
    WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
    REPORTS_DIR: reportsDir,
    TEST_RESULTS_DIR: testResultsDir,
    CERTIFICATION_DIR: certificationDir,
    SEED,
  });
  const run = await runCli(TS_NODE[0], [...certify, '--project', 'auth'], env, 150_000);
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
  };
  secrets['signing private key'] = privateKey.split('\n')[1] ?? privateKey;
  return {
    run,
    work,
    orderTemplate,
    bundle: join(certificationDir, bundles[0] ?? 'missing'),
    reportsDir,
    testResultsDir,
    secrets,
    publicKey: join(keyDir, 'certify-signing-key.pub.pem'),
  };
}

// The run is made before the file's first test, in a hook: a worker-scoped fixture would give the file a worker of its
// own, which Playwright starts after every other self-test's, so that the run ended npm test alone.
let shared: CertifiedRun | undefined;
const test = base.extend<{ certified: CertifiedRun }>({
  certified: async ({}, use) => use(shared as CertifiedRun),
});
test.describe.configure({ mode: 'default' });
test.beforeAll(async () => {
  test.setTimeout(300_000);
  shared = await certifyWithCanaries();
});
test.afterAll(() => shared && rmSync(shared.work, { recursive: true, force: true }));

const output = (run: CliRun) => `${run.stdout}\n${run.stderr}`;

test('npm run certify writes one bundle with the matrix, JUnit, single-file report, redacted configuration and what judged what', ({
  certified,
}) => {
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
  const certificate = JSON.parse(readText(join(bundle, 'certificate.json'))) as Record<string, unknown>;
  expect(certificate).toMatchObject({
    suite: { version: suiteVersion },
    interface: { version: interfaceInfo.version },
    catalogSha256,
    profile: 'certify',
    seed: Number(SEED),
    exitCode: run.code,
    bundleProblems: [],
  });
  // The concurrency rounds the run tried are stated (none in a run of the auth project).
  expect(certificate['concurrency']).toMatchObject({ tried: 0 });
  for (const stamp of ['startedAt', 'finishedAt'])
    expect(certificate[stamp]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const configuration = JSON.parse(readText(join(bundle, 'configuration.json'))) as Array<{
    name: string;
    value?: string;
  }>;
  expect(configuration.find((v) => v.name === 'API_KEY')?.value).toBe('[REDACTED]');
  expect(configuration.find((v) => v.name === 'SANDBOX_TOKEN_SECRET')?.value).toBe('[REDACTED]');
  expect(configuration.find((v) => v.name === 'SEED')?.value).toBe(SEED);
  expect(output(run), 'the summary table is printed').toContain('Conformance by requirement');
});

test('the statement pins every file a setting points at: the order template outside the checkout, by its SHA-256 beside its path', ({
  certified,
}) => {
  const envelope = JSON.parse(readText(join(certified.bundle, 'statement.dsse.json'))) as { payload: string };
  const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as {
    predicate: { files: Array<{ variable: string; path: string; sha256?: string }> };
  };
  const digest = createHash('sha256').update(readFileSync(certified.orderTemplate)).digest('hex');
  expect(statement.predicate.files).toEqual([
    { variable: 'ORDER_TEMPLATE', path: certified.orderTemplate, sha256: digest },
    // A ledger is read when it is there; none is, and the statement says so.
    { variable: 'CONFORMANCE_LEDGER', path: join(certified.work, 'no-ledger.json') },
  ]);
});

test('certify exits with its verdict: a run of one project is partial, nothing failed, and the statement says so', ({
  certified,
}) => {
  const matrix = JSON.parse(readText(join(certified.bundle, 'conformance.json'))) as {
    result: string;
    reasons: string[];
  };
  expect(certified.run.code, output(certified.run).slice(-3000)).toBe(1);
  expect(matrix.result).toMatch(/^not conformant: partial run \(\d+ of \d+ MUST in this run\)$/);
  expect(matrix.reasons).toEqual([
    expect.stringMatching(/^partial run: \d+ MUST requirements without a test in this run /),
  ]);
  const certificate = JSON.parse(readText(join(certified.bundle, 'certificate.json'))) as {
    verdict: Record<string, unknown>;
  };
  expect(certificate.verdict).toMatchObject({
    word: 'not conformant',
    words: matrix.result,
    exitCode: 1,
    conformant: false,
  });
});

test("the signed bundle verifies offline against the signer's key, refused as partial without --allow-partial, refused with another key, without one, or with one changed byte", async ({
  certified,
}) => {
  // Through the real command once; then its other exit paths called in this process (verifyBundleCommand is the
  // script's whole work), on the same bundle. Each refusal's rule is a unit of evidence-units.spec.ts.
  const verified = await runCli(
    TS_NODE[0],
    [
      ...TS_NODE.slice(1),
      'scripts/verify-bundle.ts',
      '--public-key',
      certified.publicKey,
      '--allow-partial',
      certified.bundle,
    ],
    childEnv(certified.work, {}),
  );
  expect(verified.code, output(verified)).toBe(0);
  expect(verified.stdout).toContain('its 8 files match their digests');
  expect(verified.stdout).toMatch(
    /^Signature and files verified; verdict: not conformant: partial run .*\(certify profile\)$/m,
  );
  const templateDigest = createHash('sha256').update(readFileSync(certified.orderTemplate)).digest('hex');
  expect(verified.stdout, 'the files the settings pointed at, beside their digests').toContain(
    `ORDER_TEMPLATE: ${certified.orderTemplate} SHA-256 ${templateDigest}`,
  );
  const verify = (...args: string[]) => inProcess(() => verifyBundleCommand(args));
  const required = verify(
    '--public-key',
    certified.publicKey,
    '--allow-partial',
    '--require-conformant',
    certified.bundle,
  );
  expect(required.code, output(required)).toBe(1);
  expect(required.stderr).toContain('the run did not end conformant: not conformant: partial run');
  const partial = verify('--public-key', certified.publicKey, certified.bundle);
  expect(partial.code, output(partial)).toBe(1);
  expect(partial.stderr).toContain('the run was partial (--project auth)');
  const otherKey = join(certified.work, 'other-key.pub.pem');
  writeFileSync(otherKey, newKeyPair().publicPem);
  const wrongKey = verify('--public-key', otherKey, '--allow-partial', certified.bundle);
  expect(wrongKey.code, output(wrongKey)).toBe(1);
  expect(wrongKey.stderr).toMatch(/statement\.dsse\.json: signed by key [0-9a-f]{64}, not by the key given/);
  const missingKey = verify(certified.bundle);
  expect(missingKey.code, output(missingKey)).toBe(2);
  expect(missingKey.stderr).toContain('--public-key is required');
  const copy = join(certified.work, 'tampered');
  cpSync(certified.bundle, copy, { recursive: true });
  const target = join(copy, 'conformance.md');
  const bytes = readFileSync(target);
  bytes[10] = bytes[10]! ^ 0x01;
  writeFileSync(target, bytes);
  const tampered = verify('--public-key', certified.publicKey, '--allow-partial', copy);
  expect(tampered.code, output(tampered)).toBe(1);
  expect(tampered.stderr).toContain('conformance.md: changed');
});

test('the statement pins the source that ran; verify-bundle --source passes on an unchanged copy of the checkout and names the file when one file of any source path differs', ({
  certified,
}) => {
  const certificate = JSON.parse(readText(join(certified.bundle, 'certificate.json'))) as { source: SourceClaim };
  expect(certificate.source).toMatchObject({ ...gitState(repoRoot), paths: SOURCE_PATHS, list: SOURCE_LIST_FILE });
  // A copy outside any git checkout, as a tarball would give it: the digest does not need git.
  const checkout = join(certified.work, 'checkout');
  for (const path of SOURCE_PATHS) cpSync(join(repoRoot, path), join(checkout, path), { recursive: true });
  // The command called in this process (its start through the real command: the test above).
  const verify = () =>
    inProcess(() =>
      verifyBundleCommand([
        '--public-key',
        certified.publicKey,
        '--allow-partial',
        '--source',
        checkout,
        certified.bundle,
      ]),
    );
  const unchanged = verify();
  expect(unchanged.code, output(unchanged)).toBe(0);
  expect(unchanged.stdout).toContain(
    `${certificate.source.files} source files of ${SOURCE_PATHS.join(', ')} identical to the run's`,
  );
  for (const path of SOURCE_PATHS) {
    const file = [join(checkout, path)].flatMap((at) =>
      statSync(at).isDirectory() ? filesUnder(at).sort() : [at],
    )[0] as string;
    const name = relative(checkout, file).split(sep).join('/');
    const original = readFileSync(file);
    writeFileSync(file, Buffer.concat([original, Buffer.from('\n')]));
    const changed = verify();
    writeFileSync(file, original);
    expect(changed.code, `${name} changed: ${output(changed)}`).toBe(1);
    expect(changed.stderr, `${name} changed`).toContain(`${name}: differs`);
  }
});

test('JUnit gives every test the requirement IDs it verifies as properties, and a title without IDs', ({
  certified,
}) => {
  const junit = readText(join(certified.bundle, 'junit.xml'));
  const all = [...junit.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)];
  // One run-level case, the verdict, fails exactly when the run's exit code is not 0; every other case is a check.
  const verdicts = all.filter(([, , classname]) => classname === 'verdict');
  expect(verdicts.map(([, name]) => name)).toEqual(['verdict (certify profile)']);
  expect(verdicts[0]?.[3]?.includes('<failure'), 'the verdict case fails exactly when the exit code is not 0').toBe(
    certified.run.code !== 0,
  );
  const cases = all
    .filter(([, , classname]) => classname !== 'verdict')
    .map(([whole, name, , inner]) => [whole, name, inner] as const);
  expect(cases.length).toBeGreaterThan(0);
  // Every case judged, then one assertion: the list of what is wrong, whole.
  const problems = cases.flatMap(([, name = '', inner = '']) => {
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

test('Allure results carry the labels, the environment and the exchanges', ({ certified }) => {
  const dir = join(certified.reportsDir, 'allure-results');
  const results = readdirSync(dir)
    .filter((f) => f.endsWith('-result.json'))
    .map(
      (f) =>
        JSON.parse(readText(join(dir, f))) as {
          name: string;
          labels: Array<{ name: string; value: string }>;
          links: Array<{ url: string }>;
        },
    );
  expect(results.length).toBeGreaterThan(0);
  // Every result judged, then one assertion: the list of what is wrong, whole.
  const problems = results.flatMap((result) => {
    const label = (name: string) => result.labels.find((l) => l.name === name)?.value;
    const names = new Set(result.labels.map((l) => l.name));
    const wrong = (what: string) => [`${result.name}: ${what}`];
    return [
      ...['epic', 'feature', 'parentSuite', 'severity', 'tag', 'verdict']
        .filter((name) => !names.has(name))
        .flatMap((name) => wrong(`no ${name} label`)),
      ...(label('parentSuite') === 'auth' ? [] : wrong(`parentSuite ${label('parentSuite')}, not auth`)),
      ...(/^(\d+(\.\d+)?|part \d)/.test(label('epic') ?? '') ? [] : wrong(`epic ${label('epic')}, not a spec part`)),
      ...(/^[A-Z0-9-]+ \((MUST|SHOULD|INFO)\)$/.test(label('feature') ?? '')
        ? []
        : wrong(`feature ${label('feature')}, not a requirement with its level`)),
      ...(result.links.length > 0 ? [] : wrong('no link')),
      ...result.links.filter((l) => !l.url.startsWith(`${SPEC_URL}#`)).flatMap((l) => wrong(`link ${l.url}`)),
    ];
  });
  expect(problems, 'Allure results').toEqual([]);
  const environment = readText(join(dir, 'environment.properties'));
  for (const key of [
    'suite\\ version',
    'interface\\ version',
    'catalog\\ SHA-256',
    'profile',
    'seed',
    'identity\\ base\\ URL',
  ])
    expect(environment).toContain(key);
  expect(
    readdirSync(dir).some((f) => f.endsWith('-attachment.json')),
    'exchanges are attached',
  ).toBe(true);
});

test('no secret configured or obtained during the run appears in any artifact, report or output', ({ certified }) => {
  const tokens = Object.keys(certified.secrets).filter((name) => name.startsWith('issued token'));
  expect(tokens.length, 'the sandbox issued tokens during the run').toBeGreaterThan(0);
  const files = [certified.reportsDir, certified.testResultsDir, certified.bundle]
    .filter(existsSync)
    .flatMap(filesUnder);
  expect(files.some((f) => f.endsWith('allure-report.html'))).toBe(true);
  const sources = [
    ...files.map((file) => ({ name: file.slice(certified.work.length + 1), text: readText(file) })),
    { name: 'stdout', text: certified.run.stdout },
    { name: 'stderr', text: certified.run.stderr },
  ];
  expect(scanForSecrets(sources, certified.secrets)).toEqual([]);
  expect(
    scanForSecrets(
      [
        {
          name: 'control',
          text: `x ${Buffer.from(`Authorization: Bearer ${tokens.length ? certified.secrets['issued token 1'] : ''}`).toString('base64')} y`,
        },
      ],
      certified.secrets,
    ),
    'the scan finds a secret hidden in base64',
  ).not.toEqual([]);
});

test('the single-file report opens offline in Chromium, shows the requirement IDs and sends no request beyond the file', async ({
  certified,
}) => {
  if (!existsSync(CHROMIUM)) {
    const reason = `no Chromium at ${CHROMIUM} (apt-get install chromium): the offline check of the report did not run`;
    console.log(`skipped: ${reason}`);
    test.skip(true, reason);
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const context = await browser.newContext();
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const page = await context.newPage();
    const reportUrl = pathToFileURL(join(certified.bundle, 'allure-report.html')).href;
    await page.goto(reportUrl);
    await expect(page.getByText(`${interfaceInfo.title} ${interfaceInfo.version} certification`)).toBeVisible();
    for (const id of ['TOK-ISSUED', 'TOK-NO-STORE']) {
      await page.getByTestId('search-input').fill(id);
      const found = page.getByText(new RegExp(`^${id}\\b`)).first();
      // The tree opens one level per click, and re-renders as the search applies: each attempt looks at the tree as it
      // is now and opens one section not opened yet, until the ID shows.
      const opened = new Set<string>();
      await expect(async () => {
        if (await found.isVisible()) return;
        for (const section of await page.getByTestId('tree-section').all()) {
          const node = (await section.getAttribute('data-tree-node-id')) ?? '';
          if (opened.has(node)) continue;
          opened.add(node);
          await section.getByTestId('tree-section-title').first().click({ timeout: 2_000 });
          break;
        }
        await expect(found).toBeVisible({ timeout: 500 });
      }).toPass({ timeout: 30_000 });
      await expect(found, `${id} is shown in the report`).toBeVisible();
    }
    const outside = requests.filter((url) => !/^(file|data|blob):/.test(url));
    test.info().annotations.push({
      type: 'requests',
      description: `${requests.length} request(s), none beyond the file: ${[...new Set(requests.map((u) => u.slice(0, 40)))].join(', ')}`,
    });
    expect(outside, 'requests that left for a non-file URL').toEqual([]);
  } finally {
    await browser.close();
  }
});
