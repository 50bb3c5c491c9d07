import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnySchemaObject, ErrorObject } from 'ajv/dist/2020.js';

/** A compiled schema: true when the value conforms, else its errors are on `errors`. */
export type Validate = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

const require = createRequire(import.meta.url);
const formatsFile = fileURLToPath(new URL('./formats.cjs', import.meta.url));
// In the installed package, the cache of the folder the command runs in: nothing is written inside the package.
const cacheDir = fileURLToPath(import.meta.url)
  .split(sep)
  .includes('node_modules')
  ? join(process.cwd(), 'node_modules', '.cache', 'conformance-schemas', sep)
  : fileURLToPath(new URL('../node_modules/.cache/conformance-schemas/', import.meta.url));
/** Bumped when the way validators are compiled changes, so that an older cache is not used. */
const compilation = 'ajv2020 strict allErrors, formats.cjs, environmentOnly, standalone v2';

/**
 * The validators of every schema, by $id. Compiling 18 schemas with ajv cost every process that validates (the runner,
 * each worker, each sandbox) ~100-300 ms: they are compiled once with ajv's standalone code generation into
 * node_modules/.cache, keyed by the schemas' and ajv's contents, and required from there. A process that finds no
 * cache compiles them itself and writes it (atomically: parallel workers may race to do so).
 */
export function loadValidators(schemas: ReadonlyMap<string, AnySchemaObject>): Map<string, Validate> {
  const ids = [...schemas.keys()];
  const key = createHash('sha256')
    .update(compilation)
    .update(readFileSync(require.resolve('ajv/package.json')))
    .update(readFileSync(require.resolve('ajv-formats/package.json')))
    .update(formatsFile)
    .update(readFileSync(formatsFile))
    .update(JSON.stringify([...schemas]))
    .digest('hex')
    .slice(0, 16);
  const cached = `${cacheDir}validators-${key}.cjs`;
  try {
    const module = require(cached) as Record<string, Validate>;
    return new Map(ids.map((id, index) => [id, module[`s${index}`] as Validate]));
  } catch {
    return compileValidators(schemas, cached);
  }
}

/** Compiles every schema with ajv now; with a cache file, also writes their standalone code there. */
export function compileValidators(
  schemas: ReadonlyMap<string, AnySchemaObject>,
  cached?: string,
): Map<string, Validate> {
  // ajv is loaded only here: a process that finds the cache never loads its compiler.
  const { default: Ajv2020, _ } = require('ajv/dist/2020') as typeof import('ajv/dist/2020.js');
  const { default: standaloneCode } = require('ajv/dist/standalone') as typeof import('ajv/dist/standalone/index.js');
  const formats = require(formatsFile) as Record<string, import('ajv/dist/2020.js').Format>;
  // The schemas are not checked against the 2020-12 meta-schema here: selftest/schemas.spec.ts checks each one.
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    validateSchema: false,
    formats,
    code: { source: true, formats: _`require(${formatsFile})` },
  });
  // An annotation of schemas/config.schema.json: the variable is read from the environment only, never from .env.
  ajv.addKeyword({ keyword: 'environmentOnly', schemaType: 'string' });
  const ids = [...schemas.keys()];
  for (const schema of schemas.values()) ajv.addSchema(schema);
  const validators = new Map(
    ids.map((id) => {
      const validate = ajv.getSchema(id);
      if (!validate) throw new Error(`Schema ${id} was added but did not compile`);
      return [id, validate as Validate];
    }),
  );
  if (!cached) return validators;
  try {
    mkdirSync(cacheDir, { recursive: true });
    const temporary = `${cached}.${process.pid}.tmp`;
    writeFileSync(temporary, standaloneCode(ajv, Object.fromEntries(ids.map((id, index) => [`s${index}`, id]))));
    renameSync(temporary, cached);
  } catch {
    // A read-only checkout: every process compiles for itself, as before the cache.
  }
  return validators;
}
