import type { IncomingMessage, ServerResponse } from 'node:http';
import { operation } from '../../catalog/catalog.ts';
import { startCore } from '../core.ts';
import { DeliveryQueue } from '../delivery-queue.ts';
import { sendJson, sendRefusal } from '../errors.ts';
import {
  composedSandbox,
  forward,
  forwardedHeaders,
  jsonObject,
  listenFront,
  readWhole,
  relay,
  sendBadGateway,
  succeeded,
  type InnerAnswer,
} from '../front-server.ts';
import { unknownCaseRefusal } from '../guards.ts';
import { compilePath, operationPath, operationRoute } from '../layout.ts';
import type { FarSettings, RunningSandbox, SandboxOptions } from '../types.ts';
import { reference } from './reference.ts';

/**
 * A correct target on the other side of a network, as real deployments are (part 6 and part 4.4 time nothing): a front
 * before a reference sandbox that holds every request for a while before relaying it, delivers the part-6 events
 * through a queue (sandbox/delivery-queue.ts: late, out of order, some twice), answers the records of a document
 * verification as not there yet (404, as for a case it does not know) for a while after the verification, and, given a
 * certificate, speaks HTTPS only.
 */
export const defaultFarSettings: Omit<FarSettings, 'seed'> = {
  latencyMs: 150,
  eventDelayMs: { min: 6000, max: 9000 },
  redeliverEvery: 3,
  recordsDelayMs: 2000,
};

const verificationRoute = {
  method: operationRoute('reference', 'documentVerification').method,
  path: operationPath('reference', operation('documentVerification')),
};
const recordsRoute = {
  method: operationRoute('reference', 'documentRecords').method,
  pattern: compilePath(operationPath('reference', operation('documentRecords'))),
};

/** The identifiers by which the records of a verification are fetched: the case's, and the inquiry's (ERRATUM-DOCR-PATH-PARAM). */
function identifiersOf(request: Buffer, answer: InnerAnswer): string[] {
  return [jsonObject(answer.body)['authenticationId'], jsonObject(request)['inquiryId']].filter(
    (id): id is string => typeof id === 'string' && id !== '',
  );
}

export async function startFarSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const far: FarSettings = options.far ?? { ...defaultFarSettings, seed: 'far' };
  const warn = options.webhookWarnings === false ? () => undefined : (options.warn ?? console.warn);
  const queue = new DeliveryQueue(
    options.webhookUrl === undefined ? undefined : new URL(options.webhookUrl),
    far,
    warn,
    options.webhookTimeoutMs,
  );
  const inbox = await queue.listen();
  const inner = await startCore(
    { ...options, host: '127.0.0.1', port: 0, ...(options.webhookUrl === undefined ? {} : { webhookUrl: inbox.url }) },
    reference,
    'far',
  );
  /** When the records of each verification are there, by the identifiers they are fetched with. */
  const readyAt = new Map<string, number>();
  /** The shortest time a request was held before it was relayed, and how many were. */
  const held = { requests: 0, minMs: Number.POSITIVE_INFINITY };

  const notThereYet = (method: string, path: string, answer: InnerAnswer): string | undefined => {
    if (method !== recordsRoute.method || !succeeded(answer)) return undefined;
    const match = recordsRoute.pattern.regex.exec(path);
    const id = match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
    return id !== undefined && (readyAt.get(id) ?? 0) > Date.now() ? id : undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const arrived = performance.now();
    const body = await readWhole(req);
    const method = (req.method ?? 'GET').toUpperCase();
    const path = new URL(req.url ?? '/', 'http://front').pathname;
    // A timer may fire a fraction of a millisecond early: held until the whole latency has passed.
    for (let left = far.latencyMs; left > 0; left = far.latencyMs - (performance.now() - arrived))
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
    held.requests += 1;
    held.minMs = Math.min(held.minMs, performance.now() - arrived);
    if (path === '/__sandbox/far')
      return sendJson(res, 200, {
        ...settingsShown(far),
        held: { requests: held.requests, minMs: Math.floor(held.minMs) },
        queue: queue.queued,
      });
    const answer = await forward(
      inner.url,
      method,
      req.url ?? '/',
      forwardedHeaders(req),
      body.length ? body : undefined,
    );
    if (method === verificationRoute.method && path === verificationRoute.path && succeeded(answer)) {
      for (const id of identifiersOf(body, answer)) readyAt.set(id, Date.now() + far.recordsDelayMs);
    }
    const waiting = notThereYet(method, path, answer);
    if (waiting !== undefined) return sendRefusal(res, unknownCaseRefusal(waiting));
    relay(res, answer);
  };
  const front = await listenFront({ ...options, ...(far.tls ? { tls: far.tls } : {}) }, handle, sendBadGateway);
  return composedSandbox(inner, {
    front,
    flavor: 'far',
    deliveries: () => queue.deliveries,
    webhooksIdle: async () => {
      await inner.webhooksIdle();
      await queue.idle();
    },
    servers: [inbox],
    stop: () => queue.close(),
    extra: {
      get queued() {
        return queue.queued;
      },
    },
  });
}

/** The settings as /__sandbox/far shows them: never the certificate's key. */
function settingsShown(far: FarSettings): Omit<FarSettings, 'tls'> & { https: boolean } {
  const { tls, ...shown } = far;
  return { ...shown, https: tls !== undefined };
}
