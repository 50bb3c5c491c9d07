import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { keyIdOf, signEnvelope, verifyEnvelope, type DsseEnvelope } from './dsse.ts';
import { sourceCheck, sourceClaimProblems, type SourceClaim } from './source-digest.ts';
import { clientClaimProblems } from './client-identity.ts';

/** The signed statement of a bundle: an in-toto Statement v1 in a DSSE envelope, the shape SLSA provenance uses. */
export const STATEMENT_FILE = 'statement.dsse.json';
const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PREDICATE_TYPE = 'https://conformance.example/identity-proofing/certification/v1';

export interface Subject {
  name: string;
  digest: { sha256: string };
}

export interface Statement {
  _type: string;
  subject: Subject[];
  predicateType: string;
  predicate: CertificationPredicate;
}

/**
 * What the bundle states about its run; `run.partial` marks a run of part of the suite, `source` the code that ran,
 * and a client certification (`role: 'client'`) names the client it judged (`client`).
 */
export interface CertificationPredicate {
  run: { partial: boolean; filters: string[] };
  source?: SourceClaim;
  [field: string]: unknown;
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Every file under dir, as POSIX paths relative to it, sorted. */
function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else found.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return found.sort();
}

/** The signer's public key, written into the bundle beside the statement (a certifier verifies with a key of their own). */
export const PUBLIC_KEY_FILE = 'signing-key.pub.pem';

/**
 * Writes the signer's public key and statement.dsse.json: every other file of the bundle as a subject with its
 * SHA-256, the predicate, signed.
 */
export function sealBundle(
  dir: string,
  predicate: CertificationPredicate,
  key: KeyObject,
): { subjects: number; keyid: string } {
  writeFileSync(join(dir, PUBLIC_KEY_FILE), createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString());
  const subject = filesUnder(dir)
    .filter((path) => path !== STATEMENT_FILE)
    .map((name) => ({ name, digest: { sha256: sha256(readFileSync(join(dir, name))) } }));
  const statement: Statement = { _type: STATEMENT_TYPE, subject, predicateType: PREDICATE_TYPE, predicate };
  const envelope = signEnvelope(PAYLOAD_TYPE, Buffer.from(JSON.stringify(statement), 'utf8'), key);
  writeFileSync(join(dir, STATEMENT_FILE), `${JSON.stringify(envelope, null, 2)}\n`);
  return { subjects: subject.length, keyid: keyIdOf(key) };
}

export interface Verification {
  ok: boolean;
  verified: number;
  /** One line per problem, each naming the file or the part of the statement. */
  problems: string[];
  /** What the statement pins about the source that ran, and what a checkout given was compared with. */
  notes: string[];
  statement?: Statement;
}

function readStatement(dir: string, key: KeyObject): { statement: Statement } | { problem: string } {
  const path = join(dir, STATEMENT_FILE);
  if (!existsSync(path)) return { problem: `${STATEMENT_FILE}: missing (is ${dir} a certification bundle?)` };
  let envelope: DsseEnvelope;
  try {
    envelope = JSON.parse(readFileSync(path, 'utf8')) as DsseEnvelope;
  } catch (error) {
    return { problem: `${STATEMENT_FILE}: not valid JSON (${(error as Error).message})` };
  }
  if (envelope.payloadType !== PAYLOAD_TYPE)
    return { problem: `${STATEMENT_FILE}: payloadType ${JSON.stringify(envelope.payloadType)}, not ${PAYLOAD_TYPE}` };
  const checked = verifyEnvelope(envelope, key);
  if (!checked.ok) return { problem: `${STATEMENT_FILE}: ${checked.problem}` };
  const statement = JSON.parse(checked.payload.toString('utf8')) as Statement;
  if (
    statement._type !== STATEMENT_TYPE ||
    statement.predicateType !== PREDICATE_TYPE ||
    !Array.isArray(statement.subject)
  ) {
    return { problem: `${STATEMENT_FILE}: not an ${STATEMENT_TYPE} with predicate ${PREDICATE_TYPE}` };
  }
  return { statement };
}

/**
 * Checks a bundle offline: the statement signed by the given key, every subject present with its digest, no file
 * added, the source it pins consistent with its list of source files, and a run of the whole suite (unless a partial
 * run is allowed). With a checkout given as `source`, every source file of the checkout against those the run loaded.
 */
export function verifyBundle(
  dir: string,
  key: KeyObject,
  options: { allowPartial?: boolean; source?: string } = {},
): Verification {
  const read = readStatement(dir, key);
  if ('problem' in read) return { ok: false, verified: 0, problems: [read.problem], notes: [] };
  const { statement } = read;
  const problems: string[] = [];
  let verified = 0;
  const listed = new Set<string>();
  for (const { name, digest } of statement.subject) {
    listed.add(name);
    const path = join(dir, name);
    if (name.split('/').includes('..') || !existsSync(path)) {
      problems.push(`${name}: missing`);
      continue;
    }
    const actual = sha256(readFileSync(path));
    if (actual !== digest.sha256)
      problems.push(`${name}: changed (SHA-256 ${actual}, the signed statement says ${digest.sha256})`);
    else verified += 1;
  }
  for (const path of filesUnder(dir))
    if (path !== STATEMENT_FILE && !listed.has(path)) problems.push(`${path}: not in the signed statement`);
  problems.push(
    ...sourceClaimProblems(statement.predicate, dir, statement.subject),
    ...clientClaimProblems(statement.predicate),
  );
  const source = sourceCheck(statement.predicate, dir, options.source);
  problems.push(...source.problems);
  const run = statement.predicate.run;
  if (run?.partial && !options.allowPartial)
    problems.push(
      `the run was partial (${run.filters.join(' ')}): a certification covers the whole suite (--allow-partial accepts it)`,
    );
  return { ok: problems.length === 0, verified, problems, notes: source.notes, statement };
}
