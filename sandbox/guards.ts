import { operation, tokenServiceOf } from '../catalog/catalog.ts';
import type { OperationId } from '../catalog/catalog.ts';
import { mediaType, parseJsonBody } from './body.ts';
import { checkBearer } from './bearer.ts';
import { exactHeader, header } from './context.ts';
import type { Exchange, SandboxContext } from './context.ts';
import { refusal, sendJson, sendRefusal, sendText } from './errors.ts';
import type { Refusal } from './errors.ts';
import { coercedScalars } from './field-rules.ts';
import { withoutProto3Defaults } from './proto3-defaults.ts';
import { longValueRefusal } from './values.ts';
import { isObject } from '../schemas/json-value.ts';

export interface GuardedCall {
  clientId: string;
  /** The parsed body of an operation with a body; {} for the others. */
  body: Record<string, unknown>;
}

/** A body refused for its fields, with the flavor's status for it. */
export function validationRefusal(ctx: SandboxContext, message: string): Refusal {
  return refusal(ctx.behaviour.validationStatus, 'validation_failed', message);
}

export function unknownCaseRefusal(id: string): Refusal {
  return refusal(404, 'case_not_found', `no case has the identifier ${id}`);
}

function requiredHeaders(ctx: SandboxContext, id: OperationId): string[] {
  const op = operation(id);
  const { faults } = ctx;
  let names = op.mandatoryHeaders.filter((h) => h !== 'authorization' && (h !== 'content-type' || !op.hasBody));
  // 4.4 lists Content-Type although it has no body (ERRATUM-GET-CONTENT-TYPE): whether to insist is the flavor's choice.
  if (!ctx.behaviour.getNeedsContentType) names = names.filter((h) => h !== 'content-type');
  if (faults.on('client-id-optional', id)) names = names.filter((h) => h !== 'x-client-id');
  if (faults.on('correlation-id-optional', id)) names = names.filter((h) => h !== 'x-correlation-id');
  if (id === 'stepUp' && faults.has('correlation-id-required-on-step-up')) names.push('x-correlation-id');
  return names;
}

function headerRefusal(ctx: SandboxContext, ex: Exchange, id: OperationId): Refusal | undefined {
  const read = ctx.faults.has('header-names-case-sensitive') ? exactHeader : header;
  for (const name of requiredHeaders(ctx, id)) {
    if ((read(ex, name) ?? '').trim() === '') return refusal(400, 'missing_header', `the ${name} header is required`);
  }
  return undefined;
}

function contentTypeRefusal(ctx: SandboxContext, ex: Exchange, id: OperationId): Refusal | undefined {
  if (!operation(id).hasBody) return undefined;
  if (!ctx.behaviour.checksContentType) return undefined;
  const label = header(ex, 'content-type');
  // json-charset-refused: the whole label compared, so that a parameter (charset=utf-8) makes it another media type.
  const type = ctx.faults.has('json-charset-refused') ? (label ?? '').trim() : mediaType(label);
  if (type === 'application/json') return undefined;
  return refusal(ctx.behaviour.mediaTypeStatus, 'unsupported_media_type', 'the body must be sent as application/json');
}

/**
 * Runs the checks every operation of 4.2 to 4.7 shares, in the flavor's order (credentials before or after the
 * mandatory headers and Content-Type), then parses the body, and answers the first refusal itself.
 */
export function guardOperation(ctx: SandboxContext, ex: Exchange, id: OperationId): GuardedCall | undefined {
  const op = operation(id);
  if (ex.body.kind !== 'ok') {
    sendRefusal(ex.res, refusal(413, 'body_too_large', 'the request body is larger than 1 MiB'));
    return undefined;
  }
  let clientId = '';
  const authorize = (): Refusal | undefined => {
    const outcome = checkBearer(ctx, ex, tokenServiceOf(op.service), { operation: id });
    if (outcome.ok) {
      clientId = outcome.clientId;
      return undefined;
    }
    return refusal(
      outcome.status,
      outcome.status === 400 ? 'invalid_request' : 'unauthorized',
      outcome.reason,
      outcome.headers,
    );
  };
  const headerChecks = [() => headerRefusal(ctx, ex, id), () => contentTypeRefusal(ctx, ex, id)];
  const checks = ctx.behaviour.credentialsBeforeHeaders ? [authorize, ...headerChecks] : [...headerChecks, authorize];
  for (const check of checks) {
    const refused = check();
    if (refused) {
      sendRefusal(ex.res, refused);
      return undefined;
    }
  }
  if (!op.hasBody) return { clientId, body: {} };
  const parsed = parseJsonBody(ex.body.bytes, ctx.behaviour.invalidUtf8);
  if (!parsed.ok) {
    // unparsable-body-500: the parser's exception escapes to the framework's default handler.
    if (ctx.faults.has('unparsable-body-500'))
      sendRefusal(ex.res, refusal(500, 'internal', `an internal error occurred: ${parsed.reason}`));
    else sendRefusal(ex.res, refusal(400, 'invalid_json', parsed.reason));
    return undefined;
  }
  const value =
    id === 'caseUpdate' && ctx.faults.has('update-body-array-unwrapped') && Array.isArray(parsed.value)
      ? parsed.value[0]
      : parsed.value;
  // assessment-null-body-crashes: a body that is no object reaches the handler, which fails on a null one.
  if (id === 'assessment' && ctx.faults.has('assessment-null-body-crashes'))
    return { clientId, body: value as Record<string, unknown> };
  if (!isObject(value)) {
    sendRefusal(ex.res, validationRefusal(ctx, 'the body must be a JSON object'));
    return undefined;
  }
  if (ctx.faults.on('shared-context-refused', id) && 'sharedContext' in value) {
    sendRefusal(ex.res, refusal(400, 'validation_failed', 'sharedContext is not supported'));
    return undefined;
  }
  const tooLong = longValueRefusal(ctx, value);
  if (tooLong) {
    sendRefusal(ex.res, tooLong);
    return undefined;
  }
  return { clientId, body: ctx.behaviour.scalarTypes === 'coerce' ? coercedScalars(value, id) : value };
}

/**
 * A successful answer of an operation: JSON (without the members holding their proto3 default, where the flavor
 * writes so), unless the fault of json-as-text-plain labels it otherwise there.
 */
export function sendSuccess(
  ctx: SandboxContext,
  ex: Exchange,
  id: OperationId,
  status: number,
  body: Record<string, unknown>,
): void {
  const written = ctx.behaviour.omitResponseDefaults ? withoutProto3Defaults(body) : body;
  if (ctx.faults.on('json-as-text-plain', id))
    sendText(ex.res, status, 'text/plain; charset=utf-8', JSON.stringify(written));
  else sendJson(ex.res, status, written);
}
