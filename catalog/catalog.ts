import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type Level = 'MUST' | 'SHOULD' | 'INFO';
export type Area = 'auth' | 'identity' | 'stepup' | 'orders' | 'webhooks' | 'reseller';

export interface Requirement {
  id: string;
  part: string;
  level: Level;
  area: Area;
  statement: string;
  rfc?: string;
  erratum?: string;
  operations?: OperationId[];
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
  routeEnv?: string;
  /** Variable naming a JSON file whose members fill the object-valued fields of this operation's requests. */
  templateEnv?: string;
  defaultRoute?: string;
  alternativeRoute?: string;
  /** Route of the gateway sandbox flavor (sandbox/gateway/). */
  gatewayRoute?: string;
  fixedRoute?: string;
  pathParams: string[];
  queryParams?: string[];
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
  interface: { title: string; version: string; document: string };
  requirements: Requirement[];
  errata: Erratum[];
  orderErrorTable: OrderErrorRow[];
};
const operationsData = JSON.parse(readFileSync(new URL('./operations.json', import.meta.url), 'utf8')) as {
  operations: Operation[];
  tokenEndpoint: TokenEndpointRules;
};

export const interfaceInfo = requirementsData.interface;
export const requirements: readonly Requirement[] = requirementsData.requirements;
export const errata: readonly Erratum[] = requirementsData.errata;
export const orderErrorTable: readonly OrderErrorRow[] = requirementsData.orderErrorTable;
export const operations: readonly Operation[] = operationsData.operations;
export const tokenEndpoint: TokenEndpointRules = operationsData.tokenEndpoint;

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
