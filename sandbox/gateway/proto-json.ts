import { displaySpelling } from '../../schemas/enum-spellings.ts';
import { schemaDocument } from '../../schemas/registry.ts';
import { isObject } from '../../schemas/json-value.ts';

/**
 * What a protobuf JSON gateway (grpc-gateway with EmitUnpopulated and the usual settings) does to bodies: requests
 * lose unknown fields and nulls and take an enum's number for its name; responses carry every field of the message,
 * unset ones as null (messages), "" (strings), [] (lists) or false (bools); errors are google.rpc.Status bodies.
 */

type Json = Record<string, unknown>;
type Property = { type?: string | string[]; anyOf?: Array<{ type?: string; $ref?: string }>; $ref?: string };

function propertiesOf(schemaId: string): Record<string, Property> {
  return (schemaDocument(schemaId)['properties'] ?? {}) as Record<string, Property>;
}

/** Request: unknown fields are ignored, null means unset, and an enum field takes its number (1-based here, 0 unset). */
export function normalizeRequest(body: unknown, schemaId: string, enums: Record<string, readonly string[]>): unknown {
  if (!isObject(body)) return body;
  const known = propertiesOf(schemaId);
  const out: Json = {};
  for (const [name, value] of Object.entries(body)) {
    if (!(name in known) || value === null) continue;
    const names = enums[name];
    if (names && typeof value === 'number' && Number.isInteger(value)) {
      if (value === 0) continue;
      out[name] = names[value - 1] ?? value;
      continue;
    }
    out[name] = value;
  }
  return out;
}

function unsetValue(property: Property): unknown {
  const types = [
    property.type,
    ...(property.anyOf ?? []).map((branch) => branch.type ?? (branch.$ref ? 'object' : undefined)),
  ].flat();
  if (types.includes('array')) return [];
  if (types.includes('string')) return '';
  if (types.includes('boolean')) return false;
  return null;
}

/** Response: every field of the message present, enum-like strings in display spelling, tags as objects. */
export function emitUnpopulated(body: unknown, schemaId: string, addedAt: string): unknown {
  if (!isObject(body)) return body;
  const out: Json = {};
  for (const [name, property] of Object.entries(propertiesOf(schemaId)))
    out[name] = name in body ? body[name] : unsetValue(property);
  for (const [name, value] of Object.entries(body)) if (!(name in out)) out[name] = value;
  if (typeof out['decision'] === 'string' && out['decision'] !== '') out['decision'] = displaySpelling(out['decision']);
  if (Array.isArray(out['tags']))
    out['tags'] = out['tags'].map((tag) => (typeof tag === 'string' ? { name: tag, addedAt } : tag));
  return out;
}

/** google.rpc.Code for an HTTP status, as grpc-gateway maps them back. */
const GRPC_CODE: Record<number, [number, string]> = {
  400: [3, 'INVALID_ARGUMENT'],
  401: [16, 'UNAUTHENTICATED'],
  403: [7, 'PERMISSION_DENIED'],
  404: [5, 'NOT_FOUND'],
  405: [12, 'UNIMPLEMENTED'],
  409: [6, 'ALREADY_EXISTS'],
  412: [9, 'FAILED_PRECONDITION'],
  415: [3, 'INVALID_ARGUMENT'],
  422: [3, 'INVALID_ARGUMENT'],
  429: [8, 'RESOURCE_EXHAUSTED'],
  500: [13, 'INTERNAL'],
  503: [14, 'UNAVAILABLE'],
};

/** The gateway's error body: google.rpc.Status with the message of the service's error. */
export function rpcStatus(httpStatus: number, message: string): { status: number; body: Json } {
  const [code, name] = GRPC_CODE[httpStatus] ?? [2, 'UNKNOWN'];
  const status = httpStatus === 415 || httpStatus === 422 ? 400 : httpStatus;
  return { status, body: { code, message: message || name, details: [] } };
}

/** The message of an error body of the inner service, whatever its shape. */
export function messageOf(body: unknown): string {
  if (!isObject(body)) return '';
  const error = body['error'];
  if (isObject(error) && typeof error['message'] === 'string') return error['message'];
  if (typeof body['message'] === 'string') return body['message'];
  if (typeof body['error_description'] === 'string') return body['error_description'];
  return '';
}
