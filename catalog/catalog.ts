import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type Level = 'MUST' | 'SHOULD' | 'INFO';
export type Area = 'auth' | 'identity' | 'stepup' | 'orders' | 'webhooks' | 'reseller';

/** The three events of part 6: document onboarding (6.1), document results (6.2), verification session (6.3). */
export type EventKind = 'onboarding' | 'results' | 'session';

export const eventKinds: readonly EventKind[] = ['onboarding', 'results', 'session'];

/** Which members a requirement judges for their JSON type: those of an operation's request schema, all or some. */
export interface WrongTypeClaim {
  operation: OperationId;
  /** Only these members, and of each only these wrong types. */
  only?: Record<string, string[]>;
  /** Not these members ("*") or not these wrong types of them: judged by another requirement, or left open. */
  except?: Record<string, '*' | string[]>;
}

export interface Requirement {
  id: string;
  part: string;
  level: Level;
  area: Area;
  statement: string;
  /** What the level rests on: ids of catalog/statements.json (a sentence of the document) and of catalog/rfc-clauses.json. */
  source?: string[];
  /** Why a SHOULD rests on a statement, or on an RFC definition that has no keyword, instead of an RFC clause. */
  sourceNote?: string;
  rfc?: string;
  erratum?: string;
  /** The operations the statement names: each one a cell of the coverage, with its own checks and faults. */
  operations?: OperationId[];
  /** The events the statement names, likewise. */
  events?: EventKind[];
  /** The request members whose JSON types this requirement judges. */
  wrongTypes?: WrongTypeClaim;
  /** The operation whose required members this requirement judges (missing, or null). */
  requiredOf?: OperationId;
  /** The schema (file name without .schema.json) this requirement judges answers or events against. */
  checksSchema?: string;
  /** The definition of schemas/ (an enum, Int64String) whose fields this requirement judges, apart from its schema's. */
  checksDefinition?: string;
}

/** A clause of an RFC the document builds on, with its BCP 14 keyword (catalog/rfc-clauses.json). */
export interface RfcClause {
  id: string;
  rfc: string;
  section: string;
  keyword: 'MUST' | 'SHOULD' | 'REQUIRED' | 'RECOMMENDED' | 'MAY';
  statement: string;
}

/** A place a requirement names: an operation of part 4 or an event of part 6. */
export type Place = OperationId | EventKind;

/** The places a requirement names (empty when it names none in particular). */
export function placesOf(req: Requirement): Place[] {
  return [...(req.operations ?? []), ...(req.events ?? [])];
}

export interface Erratum {
  id: string;
  parts: string[];
  note: string;
}

export interface OrderErrorRow {
  status: number;
  row: string;
  /** null: the spec names no errorType for the row (ERRATUM-400-OTHER-TYPE). */
  errorTypes: string[] | null;
  messages?: string[];
  messagePrefix?: string;
  messagePattern?: string;
}

export type OperationId =
  | 'assessment'
  | 'documentVerification'
  | 'documentRecords'
  | 'fetchAssessment'
  | 'caseUpdate'
  | 'stepUp'
  | 'createOrder';

export type ServiceName = 'identity' | 'stepup' | 'orders';

export interface Operation {
  id: OperationId;
  part: string;
  service: ServiceName;
  title: string;
  /** How prose names one request of it ("a case update"). */
  noun: string;
  routeEnv?: string;
  /** Variable naming a JSON file whose members fill the object-valued fields of this operation's requests. */
  templateEnv?: string;
  defaultRoute?: string;
  alternativeRoute?: string;
  /** Route of the gateway sandbox flavor (sandbox/gateway/). */
  gatewayRoute?: string;
  fixedRoute?: string;
  pathParams: string[];
  /** Optional query parameters, each with the schema of its value. */
  queryParams?: Array<{ name: string; schema: string }>;
  optionalHeaders?: string[];
  mandatoryHeaders: string[];
  /** What a conforming caller sends, in order: the mandatory headers plus those of part 5.6. */
  sentHeaders: string[];
  hasBody: boolean;
  requestSchema?: string;
  responseSchema?: string;
}

export interface TokenEndpointRules {
  part: string;
  method: string;
  pathSuffix: string;
  contentType: string;
  grantType: string;
  scope: string;
}

const requirementsFile = new URL('./requirements.json', import.meta.url);
const requirementsText = readFileSync(requirementsFile, 'utf8');
const requirementsData = JSON.parse(requirementsText) as {
  interface: { title: string; version: string; document: string; headings: string[] };
  requirements: Requirement[];
  errata: Erratum[];
  orderErrorTable: OrderErrorRow[];
};
/** The services that have a token endpoint of their own (part 4.1). */
export type TokenServiceName = 'identity' | 'stepup';

const operationsData = JSON.parse(readFileSync(new URL('./operations.json', import.meta.url), 'utf8')) as {
  operations: Operation[];
  tokenServices: Record<ServiceName, TokenServiceName>;
  tokenEndpoint: TokenEndpointRules;
};

export const rfcClauses: readonly RfcClause[] = (
  JSON.parse(readFileSync(new URL('./rfc-clauses.json', import.meta.url), 'utf8')) as { clauses: RfcClause[] }
).clauses;

export const interfaceInfo = requirementsData.interface;
export const requirements: readonly Requirement[] = requirementsData.requirements;
export const errata: readonly Erratum[] = requirementsData.errata;
export const orderErrorTable: readonly OrderErrorRow[] = requirementsData.orderErrorTable;
export const operations: readonly Operation[] = operationsData.operations;
export const tokenEndpoint: TokenEndpointRules = operationsData.tokenEndpoint;

/** Whose token endpoint a service's bearer tokens come from (catalog/operations.json, tokenServices). */
export function tokenServiceOf(service: ServiceName): TokenServiceName {
  return operationsData.tokenServices[service];
}

/** SHA-256 of the catalog file as committed, so a report names the exact rules it was judged by. */
export const catalogSha256 = createHash('sha256').update(requirementsText).digest('hex');

const byId = new Map(requirements.map((r) => [r.id, r]));

export function requirement(id: string): Requirement {
  const found = byId.get(id);
  if (!found) throw new Error(`Unknown requirement ID "${id}": it is not in catalog/requirements.json`);
  return found;
}

export function isRequirementId(id: string): boolean {
  return byId.has(id);
}

export function operation(id: OperationId): Operation {
  const found = operations.find((o) => o.id === id);
  if (!found) throw new Error(`Unknown operation "${id}": it is not in catalog/operations.json`);
  return found;
}

export function orderErrorRow(row: string): OrderErrorRow {
  const found = orderErrorTable.find((r) => r.row === row);
  if (!found) throw new Error(`Unknown part-7 row "${row}"`);
  return found;
}
