import { randomBytes } from 'node:crypto';
import { isObject } from '../../schemas/json-value.ts';

/**
 * The doctor's and the preflight's webhook probe: a request to WEBHOOK_PUBLIC_URL marked twice, by a header and by the
 * body's one member, both carrying the same nonce, so that the receiver keeps it out of the run's deliveries (and out of
 * EVT-DELIVERY): it is the tester's own request, not the target's.
 */
export const PROBE_HEADER = 'x-conformance-probe';
const PROBE_MEMBER = 'conformanceProbe';

export interface WebhookProbe {
  nonce: string;
  headers: Array<[string, string]>;
  body: string;
}

export function webhookProbe(): WebhookProbe {
  const nonce = `probe-${randomBytes(8).toString('hex')}`;
  return {
    nonce,
    headers: [
      [PROBE_HEADER, nonce],
      ['content-type', 'application/json'],
    ],
    body: JSON.stringify({ [PROBE_MEMBER]: nonce }),
  };
}

/** The probe's nonce when a request is one (header and body agree and the body holds nothing else), else undefined. */
export function probeNonce(delivery: {
  headers: ReadonlyArray<readonly [string, string]>;
  json?: unknown;
}): string | undefined {
  const header = delivery.headers.find(([name]) => name === PROBE_HEADER)?.[1];
  if (!header || !isObject(delivery.json)) return undefined;
  const keys = Object.keys(delivery.json);
  return keys.length === 1 && keys[0] === PROBE_MEMBER && delivery.json[PROBE_MEMBER] === header ? header : undefined;
}
