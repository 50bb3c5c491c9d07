import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { operations } from '../catalog/catalog.ts';
import { resolveVariables, type Variables } from '../runner/config/resolve.ts';
import { openApiDocuments, openApiFileName } from './openapi/document.ts';
import { isStartedScript, parseCli } from './cli.ts';

/**
 * `npm run openapi`: writes the OpenAPI 3.1 descriptions of the interface as configured, one per service (routes,
 * server, token endpoint), its exit code returned: with the command line, and the environment it reads the settings
 * from when one is given (the self-tests call it in their own process), else the process's own.
 */
export function openApiCommand(
  argv: string[] = process.argv.slice(2),
  settings?: Readonly<Record<string, string | undefined>>,
): number {
  const routeVariables = operations.flatMap((op) => (op.routeEnv ? [op.routeEnv] : []));
  const variables = [
    'IDENTITY_BASE_URL',
    'STEPUP_BASE_URL',
    'ORDERS_BASE_URL',
    'IDENTITY_TOKEN_URL',
    'STEPUP_TOKEN_URL',
    'ORDERS_TOKEN_URL',
    ...routeVariables,
  ];
  const { values } = parseCli(
    {
      summary:
        'Writes OpenAPI 3.1 descriptions of the interface as configured, one per service (identity, stepup, orders), each with its own server: routes, schemas, the security scheme, the part 7 errors, and the part 6 events (under webhooks of the step-up service, which sends them).',
      usage: 'npm run openapi -- [--out <folder>]',
      options: { out: { type: 'string' } },
      describe: { out: 'the folder to write them to, as openapi-<service>.json (default reports/openapi)' },
      variables,
      epilogue: 'Exit codes: 0 written, 2 bad options or a route variable that is not valid.',
    },
    argv,
  );
  let env: Variables;
  try {
    env = resolveVariables(variables, settings);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  let documents;
  try {
    documents = openApiDocuments({
      baseUrls: { identity: env.IDENTITY_BASE_URL, stepup: env.STEPUP_BASE_URL, orders: env.ORDERS_BASE_URL },
      tokenUrls: { identity: env.IDENTITY_TOKEN_URL, stepup: env.STEPUP_TOKEN_URL, orders: env.ORDERS_TOKEN_URL },
      routes: Object.fromEntries(
        operations.flatMap((op) => (op.routeEnv && env[op.routeEnv] ? [[op.id, env[op.routeEnv]]] : [])),
      ),
    });
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const out = resolve(values.out ?? 'reports/openapi');
  mkdirSync(out, { recursive: true });
  for (const [service, document] of Object.entries(documents)) {
    const file = join(out, openApiFileName(service));
    writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
    console.log(`OpenAPI 3.1 description of the ${service} service written: ${file}`);
  }
  return 0;
}

if (isStartedScript(import.meta.url)) process.exitCode = openApiCommand();
