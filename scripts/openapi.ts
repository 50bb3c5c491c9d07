import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { operations } from '../catalog/catalog.ts';
import { fileURLToPath } from 'node:url';
import { variableProblems } from '../harness/config/load-config.ts';
import { readEnvironment } from '../harness/config/resolve.ts';
import { openApiDocument } from '../harness/openapi/document.ts';
import { parseCli } from './cli.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** `npm run openapi`: writes the OpenAPI 3.1 description of the interface as configured (routes, servers, token endpoints). */
function main(): number {
  const routeVariables = operations.flatMap((op) => (op.routeEnv ? [op.routeEnv] : []));
  const variables = ['IDENTITY_BASE_URL', 'STEPUP_BASE_URL', 'ORDERS_BASE_URL', 'IDENTITY_TOKEN_URL', 'STEPUP_TOKEN_URL', ...routeVariables];
  const { values } = parseCli({
    summary: 'Writes an OpenAPI 3.1 description of the interface as configured: routes, servers, schemas, the security scheme, the part 7 errors and the part 6 events (under webhooks).',
    usage: 'npm run openapi -- [--out <file>]',
    options: { out: { type: 'string' } },
    describe: { out: 'where to write it (default reports/openapi.json)' },
    variables,
    epilogue: 'Exit codes: 0 written, 2 bad options or a route variable that is not valid.',
  });
  let env: NodeJS.ProcessEnv;
  try {
    env = readEnvironment(process.env, repoRoot);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const problems = variableProblems(env, variables);
  if (problems.length) {
    for (const problem of problems) console.error(problem);
    return 2;
  }
  let document;
  try {
    document = openApiDocument({
      baseUrls: { identity: env.IDENTITY_BASE_URL, stepup: env.STEPUP_BASE_URL, orders: env.ORDERS_BASE_URL },
      tokenUrls: { identity: env.IDENTITY_TOKEN_URL, stepup: env.STEPUP_TOKEN_URL },
      routes: Object.fromEntries(operations.flatMap((op) => (op.routeEnv && env[op.routeEnv] ? [[op.id, env[op.routeEnv]]] : []))),
    });
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const out = resolve(values.out ?? 'reports/openapi.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`OpenAPI 3.1 description written: ${out}`);
  return 0;
}

process.exitCode = main();
