import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interfaceInfo, type OperationId } from '../catalog/catalog.ts';
import { clientCatalogSha256, clientRequirements } from '../catalog/client-catalog.ts';
import { freePort } from '../harness/http/free-port.ts';
import { Redactor } from '../harness/redact.ts';
import { shellWord } from '../harness/shell-quote.ts';
import { matrixHtml } from '../reporters/matrix-html.ts';
import { matrixMarkdown } from '../reporters/matrix-markdown.ts';
import { junitXml } from '../reporters/junit.ts';
import { runVerdict } from '../reporters/run-verdict.ts';
import { verdictsFor } from '../reporters/verdicts.ts';
import { resellerClient } from '../sandbox/credentials.ts';
import { flavorModule } from '../sandbox/flavors/index.ts';
import { operationRouteText } from '../sandbox/layout.ts';
import { flavors, type Flavor } from '../sandbox/server.ts';
import { startSandbox, type DeliveryAnswer, type RecordedExchange } from '../sandbox/server.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';
import { signingKeyFrom, type SigningKey } from './evidence/signing-key.ts';
import { sealBundle } from './evidence/statement.ts';
import { parseCli, usageOf } from './cli.ts';
import { judgeClient, type ScenarioStep } from './client/judge.ts';

// npm run certify-client -- --run "<command>" | --listen [options]
// Starts a sandbox that records every request, runs the reseller's client against it with the sandbox's URLs and
// credentials in its environment, then judges what the client sent (catalog/client-requirements.json) and writes the
// client matrix, JUnit and, with --bundle, a signed certification bundle that npm run verify-bundle checks. Every
// MUST is exercised by default: order calls are answered 503 and the part-6 events are delivered to the client; a
// certifier who turns either off gets those rows "not configured", and a MUST the traffic never reached fails the run.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

const cliSpec = {
  summary: "Certifies a reseller's client: runs it against a recording sandbox and judges what it sent (catalog/client-requirements.json).",
  usage: 'npm run certify-client -- --run "<command>" | --listen [options]',
  options: {
    run: { type: 'string' },
    listen: { type: 'boolean' },
    scenario: { type: 'string' },
    'inject-503': { type: 'string' },
    'webhook-target': { type: 'string' },
    'no-webhooks': { type: 'boolean' },
    flavor: { type: 'string' },
    bundle: { type: 'boolean' },
    out: { type: 'string' },
  },
  describe: {
    run: 'the client: a command started with the sandbox\'s URLs and credentials in its environment',
    listen: 'no command: print the variables and record until Ctrl-C',
    scenario: 'a JSON file of the operations the client must perform',
    'inject-503': 'share (0 to 1) of order calls answered 503 (default 1: every call, so retries are judged; 0 leaves CLI-ORDER-RETRY not configured)',
    'webhook-target': "the client's webhook address (default http://127.0.0.1:$WEBHOOK_PORT/, a free port given to the client as WEBHOOK_PORT)",
    'no-webhooks': 'deliver no part-6 event (the webhook rows are then not configured)',
    flavor: `sandbox flavor (${flavors.join(', ')})`,
    bundle: 'also write a certification bundle for npm run verify-bundle',
    out: 'where the matrix goes (default reports/client)',
  },
  epilogue: 'The client gets the sandbox URLs, routes and credentials as variables (see the README), WEBHOOK_PORT included.\nExit codes: 0 conformant, 1 not conformant (a MUST failed or was not exercised), 2 bad options.',
} as const;
const { values } = parseCli(cliSpec);
function usage(message: string): never {
  console.error(`certify-client: ${message}\n\n${usageOf(cliSpec)}`);
  process.exit(2);
}
if (!values.run && !values.listen) usage('give --run "<command>" or --listen');
const flavor = (values.flavor ?? 'reference') as Flavor;
if (!flavors.includes(flavor)) usage(`--flavor ${values.flavor} is not one of ${flavors.join(', ')}`);
const inject = Number(values['inject-503'] ?? 1);
if (!(inject >= 0 && inject <= 1)) usage('--inject-503 takes a share from 0 to 1');
let scenario: ScenarioStep[] | undefined;
if (values.scenario) {
  try {
    scenario = (JSON.parse(readFileSync(values.scenario, 'utf8')) as { steps: ScenarioStep[] }).steps;
    if (!Array.isArray(scenario)) throw new Error('no "steps" list');
  } catch (error) {
    usage(`--scenario ${values.scenario}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

let signer: SigningKey | undefined;
try {
  if (values.bundle) signer = signingKeyFrom(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

const exchanges: RecordedExchange[] = [];
const deliveries: DeliveryAnswer[] = [];
const tokenSecret = randomBytes(24).toString('hex');
const webhooks = !values['no-webhooks'];
if (!webhooks && values['webhook-target']) usage('--webhook-target and --no-webhooks exclude each other');
const webhookPort = webhooks && !values['webhook-target'] ? await freePort() : undefined;
const webhookTarget = values['webhook-target'] ?? (webhookPort ? `http://127.0.0.1:${webhookPort}/` : undefined);
const sandbox = await startSandbox({
  flavor,
  tokenSecret,
  flaky503Rate: inject,
  flaky503Scope: 'orders',
  onExchange: (exchange) => exchanges.push(exchange),
  onDelivery: (answer) => deliveries.push(answer),
  webhookRobustness: true,
  // Self-tests search the artifacts for every token issued (the canary scan).
  ...(process.env.SANDBOX_ISSUED_TOKENS_FILE ? { onTokenIssued: (token: string) => appendFileSync(process.env.SANDBOX_ISSUED_TOKENS_FILE as string, `${token}\n`) } : {}),
  ...(webhookTarget ? { webhookUrl: webhookTarget } : {}),
  warn: () => undefined,
});
const env = sandboxTargetEnv({ url: sandbox.url, flavor, tokenSecret });
// Two child organisations with fresh identifiers for every run, each with its own sharedContext.
const runTag = randomBytes(3).toString('hex');
const children = ['a', 'b'].map((suffix) => `child-${runTag}-${suffix}`);
const sharedContexts = Object.fromEntries(children.map((child) => [child, { resellerId: resellerClient.clientId, childOrganizationId: child }]));
const clientEnv: Record<string, string> = {
  ...env,
  RESELLER_CHILD_CLIENT_IDS: children.join(','),
  RESELLER_SOURCE_CLIENT_ID: children[0] as string,
  RESELLER_SHARED_CONTEXT: JSON.stringify(sharedContexts[children[0] as string]),
  RESELLER_CHILD_SHARED_CONTEXTS: JSON.stringify(sharedContexts),
  ...(webhookPort ? { WEBHOOK_PORT: String(webhookPort) } : {}),
};
console.log(`certify-client: sandbox (${flavor}) at ${sandbox.url}, recording${inject ? `, ${inject * 100}% of order calls answered 503` : ''}${webhookTarget ? `, events delivered to ${webhookTarget}` : ''}`);

const command = values.run;
if (command) {
  const code = await new Promise<number | null>((done) => {
    const child = spawn(command, { shell: true, stdio: 'inherit', env: { ...process.env, ...clientEnv } });
    child.on('close', done);
  });
  console.log(`certify-client: the client's command ended with exit code ${code}`);
} else {
  console.log('certify-client: listening; run the client with these variables, then press Ctrl-C to judge:');
  for (const [name, value] of Object.entries(clientEnv)) console.log(`  ${name}=${value}`);
  await new Promise<void>((done) => process.once('SIGINT', () => done()));
}
await sandbox.webhooksIdle();
await sandbox.close();

const target = {
  identityBaseUrl: env['IDENTITY_BASE_URL'] ?? '',
  stepupBaseUrl: env['STEPUP_BASE_URL'] ?? '',
  ordersBaseUrl: env['ORDERS_BASE_URL'] ?? '',
  identityTokenUrl: env['IDENTITY_TOKEN_URL'] ?? '',
  stepupTokenUrl: env['STEPUP_TOKEN_URL'] ?? '',
  routes: Object.fromEntries((['assessment', 'documentVerification', 'documentRecords', 'fetchAssessment', 'caseUpdate', 'stepUp'] as const).map((id) => [id, operationRouteText(flavorModule(flavor).layout, id)])) as Partial<Record<OperationId, string>>,
  apiKeys: [env['API_KEY'] ?? '', env['RESELLER_API_KEY'] ?? ''],
  resellerClientId: resellerClient.clientId,
  childClientIds: children,
  tokenLifetimeSeconds: sandbox.tokenLifetimeSeconds,
  caseOf: (id: string) => sandbox.caseOf?.(id),
  checkToken: (token: string, service: 'identity' | 'stepup') => sandbox.checkToken?.(token, service) ?? { ok: false, reason: 'unknown' },
};
const notConfigured = new Map<string, string>([
  ...(inject === 0 ? [['CLI-ORDER-RETRY', 'not configured: --inject-503 0 answered no order call 503']] : []),
  ...(webhooks ? [] : [['CLI-WEBHOOK-ANSWER', 'not configured: --no-webhooks'], ['CLI-WEBHOOK-STATUS', 'not configured: --no-webhooks']]),
  ...(scenario ? [] : [['CLI-SCENARIO', 'not configured: give --scenario <file>']]),
] as Array<[string, string]>);
// The client's traffic judged as the server side's tests are, under the certify profile (reporters/run-verdict.ts): a
// MUST failed, blocked, not exercised or not configured makes the result "not conformant"; SHOULD warnings are listed.
const redactor = new Redactor([env['API_KEY'], env['RESELLER_API_KEY'], tokenSecret].filter((s): s is string => Boolean(s)));
const records = judgeClient({ exchanges, deliveries, target, ...(scenario ? { scenario } : {}), notConfigured }).map((record) => ({
  ...record,
  annotations: record.annotations.map((a) => ({ ...a, ...(a.description ? { description: redactor.text(a.description) } : {}) })),
}));
const verdicts = verdictsFor(clientRequirements, records);
const run = runVerdict(verdicts, 'certify', { problems: exchanges.length === 0 ? ['The client sent nothing'] : [] });
const { reasons, ...verdict } = run;
const report = {
  role: 'client',
  interface: { ...interfaceInfo, title: `${interfaceInfo.title} (client)` },
  catalogSha256: clientCatalogSha256,
  rerun: ['npm run certify-client --', ...process.argv.slice(2).map(shellWord)].join(' '),
  profile: 'certify',
  environment: { flavor, 'requests recorded': String(exchanges.length), 'webhook deliveries answered': String(deliveries.length), 'injected 503 share': String(inject) },
  finishedAt: new Date().toISOString(),
  result: run.words,
  reasons,
  verdict,
  requirements: verdicts,
};
const out = resolve(values.out ?? join(repoRoot, 'reports', 'client'));
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'client-conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(join(out, 'client-conformance.md'), matrixMarkdown({ ...report, run }));
writeFileSync(join(out, 'client-conformance.html'), matrixHtml({ ...report, run }));
const outcomes = new Map(verdicts.map((v) => [v.id, v.outcome]));
writeFileSync(join(out, 'junit.xml'), junitXml(records, { profile: 'certify', catalog: clientRequirements, outcomes, run, name: 'client certification' }));
console.log('');
for (const v of report.requirements) {
  const first = v.tests.find((t) => t.outcome !== 'passed')?.detail ?? v.breakdown ?? v.observations[0] ?? '';
  console.log(`  ${v.outcome.padEnd(14)} ${v.id.padEnd(24)} ${v.level.padEnd(6)} ${first.split('\n')[0]?.slice(0, 100) ?? ''}`);
}
console.log(`\ncertify-client: ${report.result}. Matrix: ${join(out, 'client-conformance.md')}`);
for (const reason of reasons) console.log(`  ${reason}`);
if (signer) {
  const bundle = join(repoRoot, 'certification', `client-${report.finishedAt.replace(/[:.]/g, '-')}`);
  mkdirSync(bundle, { recursive: true });
  for (const file of ['client-conformance.json', 'client-conformance.md', 'client-conformance.html', 'junit.xml']) cpSync(join(out, file), join(bundle, file));
  const { role, interface: described, profile, environment, finishedAt, result } = report;
  const sealed = sealBundle(bundle, { role, interface: described, profile, environment, finishedAt, result, reasons, verdict, run: { partial: false, filters: [] }, signer: signer.origin }, signer.key);
  console.log(`certify-client: bundle ${bundle}, signed by key ${sealed.keyid} (${signer.origin}); npm run verify-bundle -- --public-key <the signer's public key> ${bundle}`);
}
process.exit(run.exitCode);

