import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Validator } from '@seriousme/openapi-schema-validator';
import jsonpointer from 'jsonpointer';
import { operations } from '../catalog/catalog.ts';
import { openApiDocument } from '../harness/openapi/document.ts';
import { childEnv, runCli } from './evidence-harness.ts';

type Json = Record<string, unknown>;

/** Every $ref of a document, each a local JSON pointer ("#/..."). */
function refsOf(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refsOf(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push(inner);
      else refsOf(inner, found);
    }
  }
  return found;
}

async function problemsOf(document: Json): Promise<unknown[]> {
  const result = await new Validator().validate(document);
  return result.valid ? [] : (result.errors as unknown[]);
}

test('the OpenAPI description validates as OpenAPI 3.1 and every reference in it resolves inside it', async () => {
  const document = openApiDocument({ baseUrls: {}, tokenUrls: {}, routes: {} });
  expect(await problemsOf(document)).toEqual([]);
  const unresolved = refsOf(document).filter((ref) => !ref.startsWith('#/') || jsonpointer.get(document, decodeURIComponent(ref.slice(1))) === undefined);
  expect(unresolved).toEqual([]);
});

test('it describes every operation of the catalog at its configured route, the three events under webhooks, and the part 7 errors', () => {
  const document = openApiDocument({ baseUrls: { identity: 'https://id.example/v1' }, tokenUrls: {}, routes: { assessment: 'PUT /v9/assess' } }) as {
    paths: Record<string, Record<string, Json>>;
    webhooks: Record<string, unknown>;
  };
  const described = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId).filter(Boolean));
  expect(described.sort()).toEqual(operations.map((op) => op.id).sort());
  expect(document.paths['/v9/assess']?.put?.operationId).toBe('assessment');
  expect(document.paths['/v9/assess']?.servers).toEqual([{ url: 'https://id.example/v1', description: 'IDENTITY_BASE_URL' }]);
  expect(Object.keys(document.webhooks).sort()).toEqual(['documentOnboarding', 'documentResults', 'verificationSession']);
  expect(Object.keys((document.paths['/v2/orders']?.post?.responses ?? {}) as Json).sort()).toEqual(['400', '401', '403', '404', '409', '500', '503']);
});

test('a route variable that is not valid is refused, naming it', () => {
  expect(() => openApiDocument({ baseUrls: {}, tokenUrls: {}, routes: { documentRecords: 'GET /records' } })).toThrow(/^ROUTE_DOCUMENT_RECORDS=GET \/records is not valid: expected a path containing exactly the placeholder/);
});

test('npm run openapi writes the description of the configured routes', async () => {
  const work = mkdtempSync(join(tmpdir(), 'openapi-'));
  const out = join(work, 'openapi.json');
  const run = await runCli('npm', ['run', 'openapi', '--', '--out', out], childEnv(work, { ROUTE_CASE_UPDATE: 'PATCH /cases' }));
  expect(run.code, run.stderr).toBe(0);
  const document = JSON.parse(readFileSync(out, 'utf8')) as Json & { paths: Record<string, Record<string, Json>> };
  expect(document.paths['/cases']?.patch?.operationId).toBe('caseUpdate');
  expect(await problemsOf(document)).toEqual([]);
  const refused = await runCli('npm', ['run', 'openapi', '--', '--out', out], childEnv(work, { ROUTE_CASE_UPDATE: 'PATCH cases' }));
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('ROUTE_CASE_UPDATE');
  rmSync(work, { recursive: true, force: true });
});
