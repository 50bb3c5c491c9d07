import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { makeThrowawayPki, type ThrowawayPki } from './pki.ts';
import type { FarSettings } from './types.ts';

/**
 * The far flavor as its own process (npm run sandbox): a throwaway CA and a certificate for localhost and 127.0.0.1,
 * the CA's certificate written to `caOut` (or a new temporary folder) before the sandbox listens, so that a suite
 * started once the sandbox prints its URLs finds the file there.
 */
export function farTls(caOut: string | undefined): { pki: Pick<ThrowawayPki, 'key' | 'cert'>; caFile: string } {
  const { caCert, key, cert } = makeThrowawayPki();
  const caFile = caOut ? resolve(caOut) : join(mkdtempSync(join(tmpdir(), 'sandbox-far-')), 'ca.pem');
  mkdirSync(dirname(caFile), { recursive: true });
  writeFileSync(caFile, caCert);
  return { pki: { key, cert }, caFile };
}

/** What npm run sandbox prints of the far flavor: how far it is, and how the suite trusts it. */
export function farLines(far: Omit<FarSettings, 'tls'>, caFile: string): string[] {
  const { min, max } = far.eventDelayMs;
  return [
    'Far away:',
    `  latency           every answer held ${far.latencyMs} ms (SANDBOX_LATENCY_MS)`,
    `  webhook events    each delivered ${min === max ? `${min}` : `${min} to ${max}`} ms after it is sent (SANDBOX_EVENT_DELAY_MS), seed ${far.seed} (SANDBOX_EVENT_SEED)`,
    `  redeliveries      ${far.redeliverEvery > 0 ? `events ${[1, 2, 3].map((n) => (n - 1) * far.redeliverEvery + 1).join(', ')}, ... delivered twice (SANDBOX_EVENT_REDELIVERY)` : 'none (SANDBOX_EVENT_REDELIVERY=0)'}`,
    `  document records  404 for ${far.recordsDelayMs} ms after the verification (SANDBOX_RECORDS_DELAY_MS)`,
    `  HTTPS             certificate issued by a throwaway CA, written to ${caFile}`,
    `                    trust it with TLS_CA_FILE=${caFile}`,
    `  what it did       /__sandbox/far (settings, requests held, the delivery queue)`,
    '',
  ];
}
