import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operations } from '../catalog/catalog.ts';
import { configSchema, configVariables } from '../schemas/variables.ts';
import { isStartedScript, parseCli } from './cli.ts';
import { replaceMarkedBlock } from './readme-block.ts';

/** The reference page of the configuration, whose tables this script writes. */
export const configurationPage = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

const GROUPS: Array<[string, RegExp]> = [
  [
    'Target: base URLs and token endpoints (unset IDENTITY_BASE_URL to run against the embedded sandbox)',
    /^(IDENTITY|STEPUP|ORDERS)_(BASE|TOKEN)_URL$/,
  ],
  [
    'Credentials (secrets: redacted from every report)',
    /^(API_KEY|IDENTITY_API_KEY|STEPUP_API_KEY|ORDERS_API_KEY|CLIENT_ID)$/,
  ],
  [
    'Strategies, and templates for the object-valued fields whose inner fields the document does not show',
    /^(STRATEGY_|(ASSESSMENT|DOCUMENT_VERIFICATION|CASE_UPDATE|STEP_UP)_TEMPLATE$)/,
  ],
  [
    'Routes of the operations whose method and path the spec does not show ("METHOD /path", relative to the base URL)',
    /^ROUTE_/,
  ],
  ['Reseller flows (part 1): unset RESELLER_API_KEY to skip them', /^RESELLER_/],
  [
    "Optional credentials for the 401 and 403 rows, for token expiry and for a second client's view",
    /^(ORDERS_NO_ENTITLEMENT_API_KEY|ORDERS_NO_ENTITLEMENT_CLIENT_ID|.*_EXPIRED_TOKEN|SECOND_CLIENT_API_KEY|SECOND_CLIENT_ID)$/,
  ],
  ['Order endpoint: body template and the triggers of the 404, 500 and 503 rows', /^ORDER_/],
  ['Webhook receiver (part 6)', /^WEBHOOK_/],
  [
    'Network: a private certificate authority and an outbound proxy ("HTTPS, a private CA, a proxy" in docs/configuration.md)',
    /^(TLS_CA_FILE|NODE_TLS_REJECT_UNAUTHORIZED|https_proxy|HTTPS_PROXY|http_proxy|all_proxy|ALL_PROXY|no_proxy|NO_PROXY)$/,
  ],
  [
    'Run',
    /^(PROFILE|SEED|RUN_TAG|HTTP_|RATE_LIMIT_|DOCUMENT_READY_|READ_AFTER_WRITE_|CONFORMANCE_|CONCURRENCY_|TARGET_CONCURRENCY$|PREFLIGHT$|ENV_FILE$)/,
  ],
  ['Reports', /^(REPORTS_DIR|TEST_RESULTS_DIR|ALLURE_[A-Z_]+|NIGHTLY_[A-Z_]+|SPEC_URL|CERTIFICATION_DIR|BLOB_DIR)$/],
  ['Certification (npm run certify signs its bundle with this key)', /^CERTIFY_/],
  [
    'Sandbox: the embedded one when IDENTITY_BASE_URL is unset (from .env and the environment, as every setting), and npm run sandbox (which reads its own environment only)',
    /^SANDBOX_/,
  ],
];

interface Documented {
  name: string;
  required: boolean;
  secret: boolean;
  description: string;
  fallback?: string;
  /** Why .env cannot give it (schemas/config.schema.json, environmentOnly). */
  environmentOnly?: string;
}

/** Every variable of the configuration schema, in its group, with what the schema says of it. */
function groupedVariables(): Array<{ title: string; variables: Documented[] }> {
  const routeDefaults = new Map(
    operations.filter((o) => o.routeEnv).map((o) => [o.routeEnv as string, o.defaultRoute as string]),
  );
  const seen = new Set<string>();
  const groups = GROUPS.map(([title, pattern]) => ({
    title,
    variables: configVariables
      .filter((n) => pattern.test(n) && !seen.has(n))
      .map((name) => {
        seen.add(name);
        const schema = configSchema.properties[name];
        const fallback = schema?.default ?? routeDefaults.get(name);
        return {
          name,
          required: configSchema.required.includes(name),
          secret: schema?.secret ?? false,
          description: `${schema?.description ?? ''}${schema?.enum ? ` One of: ${schema.enum.join(', ')}.` : ''}`,
          ...(fallback ? { fallback } : {}),
          ...(schema?.environmentOnly ? { environmentOnly: schema.environmentOnly } : {}),
        };
      }),
  }));
  const ungrouped = configVariables.filter((n) => !seen.has(n));
  if (ungrouped.length) throw new Error(`Variables without a group in scripts/env-example.ts: ${ungrouped.join(', ')}`);
  return groups;
}

/** .env.example, generated from schemas/config.schema.json so that the two never disagree. */
export function envExample(): string {
  const lines = [
    '# Generated from schemas/config.schema.json by `npm run env:example`; edit the schema, not this file.',
    '# Copy to .env and fill in. Variables already set in the environment win over .env. A variable marked',
    '# "Environment only" is read from the environment alone: a .env that sets it is refused, naming it.',
    '',
  ];
  for (const { title, variables } of groupedVariables()) {
    lines.push(`# ---- ${title}`);
    for (const v of variables) {
      lines.push(
        `# ${v.environmentOnly ? `Environment only, never .env (${v.environmentOnly}). ` : ''}${v.required ? 'Required against a real target. ' : ''}${v.description}${v.fallback ? ` Default: ${v.fallback}` : ''}`,
      );
      lines.push(`# ${v.name}=${v.fallback ?? ''}`, '');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The table of the routed operations, their variables and defaults, from catalog/operations.json (between <!-- routes --> markers). */
export function routeTable(): string {
  const lines = ['| Operation | Part | Variable | Default |', '|---|---|---|---|'];
  for (const op of operations) {
    lines.push(
      `| ${op.title.split(' (')[0]} | ${op.part} | ${op.routeEnv ? `\`${op.routeEnv}\`` : '(fixed by the spec)'} | \`${op.defaultRoute ?? op.fixedRoute}\` |`,
    );
  }
  return lines.join('\n');
}

/** The table of every variable, from the same schema (between <!-- variables --> markers of docs/configuration.md). */
export function variableTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const lines: string[] = [];
  for (const { title, variables } of groupedVariables()) {
    lines.push('', `**${title}**`, '', '| Variable | Default | What it is |', '|---|---|---|');
    for (const v of variables)
      lines.push(
        `| \`${v.name}\`${v.required ? ' (required against a real target)' : ''}${v.secret ? ' (secret)' : ''}${v.environmentOnly ? ' (environment only)' : ''} | ${v.fallback ? `\`${cell(v.fallback)}\`` : ''} | ${v.environmentOnly ? `Environment only, never .env (${cell(v.environmentOnly)}). ` : ''}${cell(v.description)} |`,
      );
  }
  return lines.join('\n').trim();
}

if (isStartedScript(import.meta.url)) {
  parseCli({
    summary:
      'Writes .env.example and the route and variable tables of docs/configuration.md from schemas/config.schema.json and catalog/operations.json.',
    usage: 'npm run env:example',
    options: {},
    describe: {},
  });
  try {
    writeFileSync(new URL('../.env.example', import.meta.url), envExample());
    replaceMarkedBlock(configurationPage, 'routes', routeTable());
    replaceMarkedBlock(configurationPage, 'variables', variableTable());
    console.log('.env.example and the tables of docs/configuration.md written');
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  }
}
