import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { operation } from '../catalog/catalog.ts';
import type { OperationId } from '../catalog/catalog.ts';
import { addExtraClient, limitedClient, mainClient, resellerChildOrganizationId, resellerClient, resellerSharedContext } from './credentials.ts';
import { fault, faultIdsOf } from './faults.ts';
import { flavorModule } from './flavors/index.ts';
import { operationPath, operationRoute, serviceBase, tokenPath } from './layout.ts';
import { startSandbox, type Flavor } from './server.ts';
import { variableProblems } from '../harness/config/load-config.ts';
import { configSchema, configVariables } from '../harness/config/variables.ts';
import { parseCli } from '../scripts/cli.ts';
import { expiredTokenFor } from './tokens.ts';

/** `npm run sandbox`: starts the sandbox from SANDBOX_* variables and prints what a client needs. */
class UsageError extends Error {}

/** The SANDBOX_* variables of schemas/config.schema.json: their shapes are checked there, their meaning here. */
const sandboxVariables = configVariables.filter((name) => name.startsWith('SANDBOX_'));

function readSettings(env: NodeJS.ProcessEnv) {
  const problems = variableProblems(env, sandboxVariables);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  const host = env.SANDBOX_HOST || '127.0.0.1';
  const port = Number(env.SANDBOX_PORT || '4010');
  const flavor = (env.SANDBOX_FLAVOR || 'reference') as Flavor;
  const given = faultIdsOf(env.SANDBOX_FAULTS ?? '');
  if ('problem' in given) throw new UsageError(given.problem);
  const faultIds = given.ids;
  const webhookUrl = env.SANDBOX_WEBHOOK_URL || undefined;
  const givenSecret = env.SANDBOX_TOKEN_SECRET || undefined;
  // Self-test hooks: extra clients for canary credentials, and a file that receives every token issued.
  const extraApiKeys = (env.SANDBOX_EXTRA_API_KEYS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const key of extraApiKeys) {
    if (!addExtraClient(key)) throw new UsageError('SANDBOX_EXTRA_API_KEYS holds a key that is not base64("id:secret"): expected a comma-separated list of such keys');
  }
  const issuedTokensFile = env.SANDBOX_ISSUED_TOKENS_FILE || undefined;
  const flaky503Rate = Number(env.SANDBOX_FLAKY_503 || '0');
  return {
    host,
    port,
    flavor,
    faultIds,
    webhookUrl,
    tokenSecret: givenSecret ?? randomBytes(24).toString('hex'),
    secretGenerated: givenSecret === undefined,
    extraClients: extraApiKeys.length,
    issuedTokensFile,
    flaky503Rate,
    webhookWarnings: env.SANDBOX_WEBHOOK_WARNINGS !== '0',
  };
}

async function main(): Promise<void> {
  parseCli({
    summary: 'Starts the sandbox, the reference implementation of the interface document, and prints its URLs and demo credentials.',
    usage: 'npm run sandbox [-- --help]',
    options: {},
    describe: {},
    epilogue: [
      'Variables (schemas/config.schema.json; a wrong value stops it with one line naming the variable, exit 2):',
      ...sandboxVariables.map((name) => `  ${name.padEnd(28)} ${configSchema.properties[name]?.description ?? ''}${configSchema.properties[name]?.default ? ` Default: ${configSchema.properties[name]?.default}.` : ''}`),
      '',
      'It runs until stopped (Ctrl-C). Exit codes: 0 stopped, 2 bad variables or options.',
    ].join('\n'),
  });
  let settings: ReturnType<typeof readSettings>;
  try {
    settings = readSettings(process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
  const { flavor } = settings;
  const sandbox = await startSandbox({
    host: settings.host,
    port: settings.port,
    flavor,
    faults: settings.faultIds,
    tokenSecret: settings.tokenSecret,
    flaky503Rate: settings.flaky503Rate,
    ...(settings.webhookUrl ? { webhookUrl: settings.webhookUrl } : {}),
    webhookWarnings: settings.webhookWarnings,
    ...(settings.issuedTokensFile ? { onTokenIssued: (token: string) => appendFileSync(settings.issuedTokensFile as string, `${token}\n`) } : {}),
  });
  const origin = sandbox.url;
  const { layout, tokenKind } = flavorModule(flavor);
  const routeLine = (id: OperationId): string => `  ${operation(id).part} ${id.padEnd(21)} ${operationRoute(layout, id).method.padEnd(6)} ${origin}${operationPath(layout, operation(id))}`;
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
    ...(['assessment', 'documentVerification', 'documentRecords', 'fetchAssessment', 'caseUpdate', 'stepUp', 'createOrder'] as const).map(routeLine),
    `  order errors 404/500/503 on demand: header x-sandbox-respond: 404|500|503`,
    '',
    'Demo credentials (Authorization: Basic <API_KEY>):',
    `  main client      ${mainClient.clientId} / ${mainClient.clientSecret}  API_KEY=${mainClient.apiKey}`,
    `  no entitlement   ${limitedClient.clientId} / ${limitedClient.clientSecret}  API_KEY=${limitedClient.apiKey}`,
    `  reseller         ${resellerClient.clientId} / ${resellerClient.clientSecret}  API_KEY=${resellerClient.apiKey}`,
    `  reseller child organisation ${resellerChildOrganizationId}, sharedContext ${JSON.stringify(resellerSharedContext)}`,
    `  token secret     ${settings.secretGenerated ? 'generated for this run' : 'from SANDBOX_TOKEN_SECRET'}`,
    ...(settings.extraClients ? [`  extra clients    ${settings.extraClients} from SANDBOX_EXTRA_API_KEYS, with the main client's entitlements`] : []),
    ...(settings.issuedTokensFile ? [`  issued tokens    appended to ${settings.issuedTokensFile}`] : []),
    `  expired identity token  ${expiredTokenFor(tokenKind, settings.tokenSecret, 'identity')}`,
    '',
    `Webhooks: ${settings.webhookUrl ?? 'none (set SANDBOX_WEBHOOK_URL to receive the part-6 events)'}`,
    settings.faultIds.length === 0
      ? 'Faults: none'
      : `Faults in force:\n${settings.faultIds.map((id) => `  ${id} (breaks ${fault(id).requirement}): ${fault(id).description}`).join('\n')}`,
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
