import { parseArgs } from 'node:util';
import { operation } from '../catalog/catalog.ts';
import type { OperationId } from '../catalog/catalog.ts';
import {
  limitedClient,
  mainClient,
  resellerChildOrganizationId,
  resellerClient,
  resellerSharedContext,
} from './credentials.ts';
import { fault } from './faults.ts';
import { farLines, farTls } from './far-process.ts';
import { flavorModule } from './flavors/index.ts';
import { operationPath, operationRoute, serviceBase, tokenPath } from './layout.ts';
import { startSandbox } from './server.ts';
import { readSandboxSettings, SandboxSettingsError, sandboxVariables, type SandboxSettings } from './settings.ts';
import { configSchema } from '../schemas/variables.ts';
import { expiredTokenFor } from './tokens.ts';

const usage = () =>
  [
    'Starts the sandbox, the reference implementation of the interface document, and prints its URLs and demo credentials.',
    '',
    'Usage: npm run sandbox [-- --help]',
    '',
    'Options:',
    `  ${'--help'.padEnd(28)} print this and exit`,
    '',
    'Variables (schemas/config.schema.json; a wrong value stops it with one line naming the variable, exit 2):',
    ...sandboxVariables.map(
      (name) =>
        `  ${name.padEnd(28)} ${configSchema.properties[name]?.description ?? ''}${configSchema.properties[name]?.default ? ` Default: ${configSchema.properties[name]?.default}.` : ''}`,
    ),
    '',
    'It runs until stopped (Ctrl-C). Exit codes: 0 stopped, 2 bad variables or options.',
  ].join('\n');

/** The sandbox takes no option but --help: anything else is named, with the usage, and exits 2. */
function readCommandLine(): void {
  try {
    if (parseArgs({ options: { help: { type: 'boolean' } }, strict: true }).values.help) {
      console.log(usage());
      process.exit(0);
    }
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usage()}`);
    process.exit(2);
  }
}

/** `npm run sandbox`: starts the sandbox from SANDBOX_* variables and prints what a client needs. */
async function main(): Promise<void> {
  readCommandLine();
  let settings: SandboxSettings;
  try {
    // The sandbox's own command reads its own environment (never .env: docs/configuration.md).
    settings = readSandboxSettings(process.env);
  } catch (error) {
    if (!(error instanceof SandboxSettingsError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
  const { options } = settings;
  const { flavor } = options;
  // The far flavor speaks HTTPS with a certificate of a CA made now, whose file exists before the sandbox listens.
  const tls = settings.far ? farTls(settings.tlsCaOut) : undefined;
  const sandbox = await startSandbox(
    tls && options.far ? { ...options, far: { ...options.far, tls: tls.pki } } : options,
  );
  const origin = sandbox.url;
  const { layout, tokenKind } = flavorModule(flavor);
  const routeLine = (id: OperationId): string =>
    `  ${operation(id).part} ${id.padEnd(21)} ${operationRoute(layout, id).method.padEnd(6)} ${origin}${operationPath(layout, operation(id))}`;
  const lines = [
    `Sandbox (${flavor} flavor) listening on ${origin}`,
    '',
    'Token endpoints (4.1):',
    `  identity (also for orders)  ${origin}${tokenPath(layout, 'identity')}`,
    `  step-up                     ${origin}${tokenPath(layout, 'stepup')}`,
    '',
    'Base URLs:',
    `  identity  ${origin}${serviceBase(layout, 'identity')}`,
    `  step-up   ${origin}${serviceBase(layout, 'stepup')}`,
    `  orders    ${origin}${serviceBase(layout, 'orders')}`,
    '',
    'Operations:',
    ...(
      [
        'assessment',
        'documentVerification',
        'documentRecords',
        'fetchAssessment',
        'caseUpdate',
        'stepUp',
        'createOrder',
      ] as const
    ).map(routeLine),
    `  order errors 404/500/503 on demand: header x-sandbox-respond: 404|500|503`,
    '',
    'Demo credentials (Authorization: Basic <API_KEY>):',
    `  main client      ${mainClient.clientId} / ${mainClient.clientSecret}  API_KEY=${mainClient.apiKey}`,
    `  no entitlement   ${limitedClient.clientId} / ${limitedClient.clientSecret}  API_KEY=${limitedClient.apiKey}`,
    `  reseller         ${resellerClient.clientId} / ${resellerClient.clientSecret}  API_KEY=${resellerClient.apiKey}`,
    `  reseller child organisation ${resellerChildOrganizationId}, sharedContext ${JSON.stringify(resellerSharedContext)}`,
    `  token secret     ${settings.secretGenerated ? 'generated for this run' : 'from SANDBOX_TOKEN_SECRET'}`,
    ...(options.extraApiKeys
      ? [
          `  extra clients    ${options.extraApiKeys.length} from SANDBOX_EXTRA_API_KEYS, with the main client's entitlements`,
        ]
      : []),
    ...(options.issuedTokensFile ? [`  issued tokens    appended to ${options.issuedTokensFile}`] : []),
    `  expired identity token  ${expiredTokenFor(tokenKind, options.tokenSecret, 'identity')}`,
    '',
    `Webhooks: ${options.webhookUrl ?? 'none (set SANDBOX_WEBHOOK_URL to receive the part-6 events)'}`,
    ...(settings.far && tls ? [''] : []),
    ...(settings.far && tls ? farLines(settings.far, tls.caFile) : []),
    options.faults.length === 0
      ? 'Faults: none'
      : `Faults in force:\n${options.faults.map((id) => `  ${id} (breaks ${fault(id).requirement}): ${fault(id).description}`).join('\n')}`,
    '',
    `Health: ${origin}/__sandbox/health   Echo: ${origin}/__sandbox/echo`,
  ];
  console.log(lines.join('\n'));

  const stop = (signal: string): void => {
    console.log(`\n${signal}: stopping the sandbox`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`sandbox: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
