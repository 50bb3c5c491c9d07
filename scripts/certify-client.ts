import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interfaceInfo } from '../catalog/catalog.ts';
import { clientCatalogSha256, clientRequirements } from '../catalog/client-catalog.ts';
import { shellWord } from '../kit/http/shell-quote.ts';
import { matrixHtml } from '../reporters/matrix-html.ts';
import { matrixMarkdown } from '../reporters/matrix-markdown.ts';
import { junitXml } from '../reporters/junit.ts';
import { flavors, type Flavor } from '../sandbox/server.ts';
import { certificationOf, certificationVariables, resolveVariables } from '../runner/config/resolve.ts';
import type { Certification } from '../runner/config/run-config.ts';
import { signingKeyFrom, type SigningKey } from './evidence/signing-key.ts';
import { sealBundle } from './evidence/statement.ts';
import { clientIdentity, redactedCommand } from './evidence/client-identity.ts';
import { describeSource, pinSource } from './evidence/source-digest.ts';
import { suiteVersion } from '../reporters/run-environment.ts';
import { parseCli, usageOf } from './cli.ts';
import { type ScenarioStep } from './client/judge.ts';
import { openCertification } from './client/session.ts';

// npm run certify-client -- --run "<command>" | --listen [options]
// Starts a sandbox that records every request, runs the reseller's client against it with the sandbox's URLs and
// credentials in its environment, then judges what the client sent (catalog/client-requirements.json) and writes the
// client matrix, JUnit and, with --bundle, a signed certification bundle that npm run verify-bundle checks. Every
// MUST is exercised by default: order calls are answered 503 and the part-6 events are delivered to the client; a
// certifier who turns either off gets those rows "not configured", and a MUST the traffic never reached fails the run.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

const cliSpec = {
  summary:
    "Certifies a reseller's client: runs it against a recording sandbox and judges what it sent (catalog/client-requirements.json).",
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
    'client-version': { type: 'string' },
    out: { type: 'string' },
  },
  describe: {
    run: "the client: a command started with the sandbox's URLs and credentials in its environment",
    listen: 'no command: print the variables and record until Ctrl-C',
    scenario: 'a JSON file of the operations the client must perform',
    'inject-503':
      'share (0 to 1) of order calls answered 503 (default 1: every call, so retries are judged; 0 leaves CLI-ORDER-RETRY not configured)',
    'webhook-target':
      "the client's webhook address (default http://127.0.0.1:$WEBHOOK_PORT/, a free port given to the client as WEBHOOK_PORT)",
    'no-webhooks': 'deliver no part-6 event (the webhook rows are then not configured)',
    flavor: `sandbox flavor (${flavors.join(', ')})`,
    bundle:
      'also write a certification bundle for npm run verify-bundle (under CERTIFICATION_DIR, default certification/)',
    'client-version': "the client's version, named with its command in the matrix and the bundle",
    out: 'where the matrix goes (default reports/client)',
  },
  epilogue:
    'The client gets the sandbox URLs, routes and credentials as variables (see the README), WEBHOOK_PORT included.\nExit codes: 0 conformant, 1 not conformant (a MUST failed or was not exercised), 2 bad options.',
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
let certificationSettings: Certification;
// The variables of this command, read as a run reads them (.env and the environment).
let issuedTokensFile: string | undefined;
try {
  const given = resolveVariables([...certificationVariables, 'SANDBOX_ISSUED_TOKENS_FILE']);
  certificationSettings = certificationOf(given);
  issuedTokensFile = given.SANDBOX_ISSUED_TOKENS_FILE;
  if (values.bundle) signer = signingKeyFrom(certificationSettings);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
// The judge's source as this process loads it, pinned before the client runs.
const source = values.bundle ? pinSource(repoRoot) : undefined;

const webhooks = !values['no-webhooks'];
if (!webhooks && values['webhook-target']) usage('--webhook-target and --no-webhooks exclude each other');
const certification = await openCertification({
  flavor,
  inject503: inject,
  webhooks,
  ...(values['webhook-target'] ? { webhookTarget: values['webhook-target'] } : {}),
  ...(scenario ? { scenario } : {}),
  // Self-tests search the artifacts for every token issued (the canary scan).
  ...(issuedTokensFile ? { onTokenIssued: (token: string) => appendFileSync(issuedTokensFile, `${token}\n`) } : {}),
});
const clientEnv = certification.env;
const webhookTarget = certification.webhookTarget;
console.log(
  `certify-client: sandbox (${flavor}) at ${certification.sandboxUrl}, recording${inject ? `, ${inject * 100}% of order calls answered 503` : ''}${webhookTarget ? `, events delivered to ${webhookTarget}` : ''}`,
);

const command = values.run;
if (command) {
  const code = await new Promise<number | null>((done) => {
    // eslint-disable-next-line no-restricted-properties -- the environment passed to the client, a child process
    const child = spawn(command, { shell: true, stdio: 'inherit', env: { ...process.env, ...clientEnv } });
    child.on('close', done);
  });
  console.log(`certify-client: the client's command ended with exit code ${code}`);
} else {
  console.log('certify-client: listening; run the client with these variables, then press Ctrl-C to judge:');
  for (const [name, value] of Object.entries(clientEnv)) console.log(`  ${name}=${value}`);
  await new Promise<void>((done) => process.once('SIGINT', () => done()));
}
const { records, verdicts, run, requests, deliveries } = await certification.finish();
const { reasons, ...verdict } = run;
const { redactor } = certification;
const client = clientIdentity(values.run, values['client-version'], redactor);
const report = {
  role: 'client',
  interface: { ...interfaceInfo, title: `${interfaceInfo.title} (client)` },
  catalogSha256: clientCatalogSha256,
  rerun: [
    'npm run certify-client --',
    ...process.argv.slice(2).map((arg) => shellWord(redactedCommand(arg, redactor))),
  ].join(' '),
  profile: 'certify',
  environment: {
    client: client.command,
    ...(client.version ? { 'client version': client.version } : {}),
    flavor,
    'requests recorded': String(requests),
    'webhook deliveries answered': String(deliveries),
    'injected 503 share': String(inject),
  },
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
writeFileSync(
  join(out, 'junit.xml'),
  junitXml(records, { profile: 'certify', catalog: clientRequirements, outcomes, run, name: 'client certification' }),
);
console.log('');
for (const v of report.requirements) {
  const first = v.tests.find((t) => t.outcome !== 'passed')?.detail ?? v.breakdown ?? v.observations[0] ?? '';
  console.log(
    `  ${v.outcome.padEnd(14)} ${v.id.padEnd(24)} ${v.level.padEnd(6)} ${first.split('\n')[0]?.slice(0, 100) ?? ''}`,
  );
}
console.log(`\ncertify-client: ${report.result}. Matrix: ${join(out, 'client-conformance.md')}`);
for (const reason of reasons) console.log(`  ${reason}`);
if (signer && source) {
  const bundle = join(certificationSettings.dir, `client-${report.finishedAt.replace(/[:.]/g, '-')}`);
  mkdirSync(bundle, { recursive: true });
  for (const file of ['client-conformance.json', 'client-conformance.md', 'client-conformance.html', 'junit.xml'])
    cpSync(join(out, file), join(bundle, file));
  writeFileSync(join(bundle, source.claim.list), source.list);
  const { role, interface: described, profile, environment, finishedAt, result, catalogSha256 } = report;
  const predicate = {
    role,
    client,
    suite: { version: suiteVersion },
    interface: described,
    catalogSha256,
    source: source.claim,
    profile,
    environment,
    finishedAt,
    result,
    reasons,
    verdict,
    run: { partial: false, filters: [] },
    signer: signer.origin,
  };
  const sealed = sealBundle(bundle, predicate, signer.key);
  console.log(
    `certify-client: bundle ${bundle}, signed by key ${sealed.keyid} (${signer.origin}); npm run verify-bundle -- --public-key <the signer's public key> ${bundle}`,
  );
  console.log(
    `  client: ${client.command}${client.version ? ` (version ${client.version})` : ''}; ${describeSource(source.claim)}`,
  );
}
process.exit(run.exitCode);
