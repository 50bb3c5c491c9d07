import { randomUUID } from 'node:crypto';
import { orderErrorRow, tokenServiceOf } from '../catalog/catalog.ts';
import { checkBearer } from './bearer.ts';
import { maxBodyBytes, parseJsonBody } from './body.ts';
import { exactHeader, header } from './context.ts';
import type { Exchange, SandboxContext } from './context.ts';
import { hasOrderEntitlement } from './credentials.ts';
import { allowedValues } from './enums.ts';
import { sendJson } from './errors.ts';
import type { HeaderMap } from './errors.ts';
import { isObject } from '../schemas/json-value.ts';
import { RACE_WINDOW_MS } from './faults.ts';

/** A message of a part-7 row, picked by a word only it contains (and one it lacks), so the wording stays in the catalog. */
function tableMessage(row: string, word: string, lacking?: string): string {
  const found = (orderErrorRow(row).messages ?? []).filter(
    (m) => m.includes(word) && (lacking === undefined || !m.includes(lacking)),
  );
  if (found.length !== 1 || !found[0])
    throw new Error(`catalog part-7 row ${row} has ${found.length} messages containing "${word}"`);
  return found[0];
}

function tableErrorType(row: string): string {
  const types = orderErrorRow(row).errorTypes;
  if (!types?.[0]) throw new Error(`catalog part-7 row ${row} names no errorType`);
  return types[0];
}

/** ERRATUM-400-OTHER-TYPE: the spec names no errorType for the non-validation 400 messages; the sandbox says bad_request. */
const otherBadRequestType = 'bad_request';
/** ERRATUM-503-MESSAGE: the spec describes the 503 message without quoting it. */
const unavailableMessage = 'the service is currently unavailable, please retry with backoff';

const messages = {
  malformed: tableMessage('400-other', 'problem'),
  correlationMissing: tableMessage('400-other', 'correlation'),
  clientIdMissing: tableMessage('400-other', 'client id'),
  unauthorized: tableMessage('401', 'authorize'),
  noEntitlement: tableMessage('403', 'entitlements'),
  notFound: tableMessage('404', 'does not exist'),
  duplicate: tableMessage('409', 'already exists'),
  internal: tableMessage('500', 'has occurred', 'support'),
  validationPrefix: orderErrorRow('400-validation').messagePrefix ?? '',
};
const unavailablePattern = orderErrorRow('503').messagePattern;
if (unavailablePattern && !new RegExp(unavailablePattern).test(unavailableMessage)) {
  throw new Error(`The sandbox 503 message does not match the part-7 pattern ${unavailablePattern}`);
}
if (!messages.validationPrefix) throw new Error('catalog part-7 row 400-validation has no messagePrefix');

interface OrderError {
  status: number;
  errorType: string;
  message: string;
  headers?: HeaderMap;
}

function sendOrderError(ctx: SandboxContext, ex: Exchange, error: OrderError): void {
  const { faults } = ctx;
  let code: number | string = error.status;
  if (error.status === 409 && faults.has('order-code-differs')) code = 400;
  if (faults.has('order-code-as-string')) code = String(code);
  const envelope: Record<string, unknown> = { message: error.message, errorType: error.errorType, code };
  sendJson(ex.res, error.status, envelope, error.headers ?? {});
}

function badRequest(message: string): OrderError {
  return { status: 400, errorType: otherBadRequestType, message };
}

function validationError(ctx: SandboxContext, reason: string): OrderError {
  const message = ctx.faults.has('order-validation-without-prefix') ? reason : messages.validationPrefix + reason;
  return { status: 400, errorType: tableErrorType('400-validation'), message };
}

const triggeredErrors: Record<string, (ctx: SandboxContext) => OrderError> = {
  '404': (ctx) => ({
    status: 404,
    errorType: ctx.faults.has('order-404-not-found-type') ? 'not_found' : tableErrorType('404'),
    message: messages.notFound,
  }),
  '500': (ctx) => ({
    status: 500,
    errorType: ctx.faults.has('order-500-server-error-type') ? 'server_error' : tableErrorType('500'),
    message: messages.internal,
  }),
  '503': (ctx) => ({
    status: 503,
    errorType: ctx.faults.has('order-503-service-unavailable-type') ? 'service_unavailable' : tableErrorType('503'),
    message: unavailableMessage,
    headers: { 'retry-after': '1' },
  }),
};

/** The first reason the order body fails validation, or undefined. */
function orderIssue(ctx: SandboxContext, body: unknown): string | undefined {
  if (!isObject(body)) return 'the body must be a JSON object';
  const { merchantOrderId, fulfillment } = body;
  if (typeof merchantOrderId !== 'string' || merchantOrderId === '')
    return 'merchantOrderId is required and must be a non-empty string';
  if (!Array.isArray(fulfillment)) return 'fulfillment is required and must be an array';
  const allowed = allowedValues('FulfillmentType');
  for (const [index, item] of fulfillment.entries()) {
    if (!isObject(item)) return `fulfillment[${index}] must be an object`;
    if (typeof item['type'] !== 'string') return `fulfillment[${index}].type is required and must be a string`;
    if (!allowed.includes(item['type']) && !ctx.faults.has('order-fulfillment-unchecked')) {
      return `fulfillment[${index}].type must be one of ${allowed.join(', ')}`;
    }
    if (item['type'] === 'IN_PERSON' && ctx.faults.has('order-in-person-refused'))
      return `fulfillment[${index}].type IN_PERSON is not supported`;
  }
  if ('account' in body && !isObject(body['account'])) return 'account must be an object';
  for (const name of ['items', 'transactions', 'promotions']) {
    if (name in body && !Array.isArray(body[name])) return `${name} must be an array`;
  }
  return undefined;
}

/** POST {ordersBase}/v2/orders: only its errors are specified (part 7); every one is the envelope. */
export function createOrderHandler(ctx: SandboxContext, ex: Exchange): void {
  try {
    const error = createOrder(ctx, ex, ctx.placedOrders);
    if (error) sendOrderError(ctx, ex, error);
  } catch {
    sendOrderError(ctx, ex, { status: 500, errorType: tableErrorType('500'), message: messages.internal });
  }
}

function createOrder(ctx: SandboxContext, ex: Exchange, placed: Set<string>): OrderError | undefined {
  const { faults } = ctx;
  if (ex.method !== 'POST') return { ...badRequest(messages.malformed), headers: { allow: 'POST' } };
  // Part 8 shows no size limit: past the sandbox's own (1 MiB), the answer is 413 in the envelope's shape.
  if (ex.body.kind === 'too-large')
    return {
      status: 413,
      errorType: 'client',
      message: `the request body is larger than the limit of ${maxBodyBytes} bytes`,
    };
  if (ex.body.kind !== 'ok') return badRequest(messages.malformed);

  const read = faults.has('header-names-case-sensitive') ? exactHeader : header;
  const headerCheck = (): OrderError | undefined => {
    if (!read(ex, 'x-correlation-id')?.trim() && !faults.has('order-correlation-optional'))
      return badRequest(messages.correlationMissing);
    if (!read(ex, 'x-client-id')?.trim() && !faults.has('order-client-id-optional'))
      return badRequest(messages.clientIdMissing);
    return undefined;
  };
  const authCheck = (): OrderError | undefined => {
    const outcome = checkBearer(ctx, ex, tokenServiceOf('orders'), {
      acceptExpired: faults.has('order-expired-accepted'),
    });
    if (!outcome.ok) {
      return {
        status: 401,
        errorType: faults.has('order-401-unauthenticated') ? 'unauthenticated' : tableErrorType('401'),
        message: messages.unauthorized,
        headers: outcome.headers,
      };
    }
    if (!hasOrderEntitlement(outcome.clientId) && !faults.has('order-entitlements-unchecked')) {
      return { status: 403, errorType: tableErrorType('403'), message: messages.noEntitlement };
    }
    return undefined;
  };
  const checks = ctx.behaviour.orderCredentialsBeforeHeaders ? [authCheck, headerCheck] : [headerCheck, authCheck];
  for (const check of checks) {
    const error = check();
    if (error) return error;
  }

  const trigger = triggeredErrors[header(ex, 'x-sandbox-respond')?.trim() ?? ''];
  if (trigger) return trigger(ctx);

  const parsed = parseJsonBody(ex.body.bytes, ctx.behaviour.invalidUtf8);
  if (!parsed.ok) {
    if (faults.has('order-malformed-500'))
      return { status: 500, errorType: tableErrorType('500'), message: messages.internal };
    return badRequest(messages.malformed);
  }
  const order = parsed.value === null && ctx.behaviour.nullOrderBody === 'as-empty' ? {} : parsed.value;
  const issue = orderIssue(ctx, order);
  if (issue) {
    const refusedId = isObject(order) ? order['merchantOrderId'] : undefined;
    if (faults.has('order-refused-id-reserved') && typeof refusedId === 'string' && refusedId !== '')
      placed.add(refusedId);
    return validationError(ctx, issue);
  }

  const merchantOrderId = (order as { merchantOrderId: string }).merchantOrderId;
  if (placed.has(merchantOrderId)) {
    if (faults.has('order-duplicate-400')) return validationError(ctx, 'duplicate order');
    return { status: 409, errorType: tableErrorType('409'), message: messages.duplicate };
  }
  const create = () => {
    placed.add(merchantOrderId);
    sendJson(ex.res, ctx.behaviour.createdStatus, { orderId: randomUUID(), merchantOrderId, decision: 'APPROVE' });
  };
  if (faults.has('order-duplicate-race')) setTimeout(create, RACE_WINDOW_MS);
  else create();
  return undefined;
}
