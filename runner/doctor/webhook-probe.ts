import { isIP } from 'node:net';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import { NoAnswerError, sendOnce } from '../http/wire.ts';
import { webhookProbe } from '../webhooks/probe.ts';
import { WebhookReceiver } from '../webhooks/receiver.ts';
import type { Finding } from './findings.ts';

const SUBJECT = 'webhooks';

/** Whether a URL's host is this machine's loopback: localhost (and its subdomains), 127.0.0.0/8, ::1. */
function onLoopback(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || /^::ffff:127\./.test(host) || /^::ffff:7f[0-9a-f]{2}:/.test(host);
}

/**
 * Whether the target runs on this machine and posts where the tester probes: its base URLs and WEBHOOK_PUBLIC_URL all
 * on this machine's loopback. Then what the probe finds is what the target will find. A remote target, or a reverse
 * tunnel whose public URL is loopback on the target's side, may reach what the tester cannot.
 */
export function targetOnLoopback(config: SuiteConfig): boolean {
  const { identity, stepup, orders } = config.services;
  return [identity.baseUrl, stepup.baseUrl, orders.baseUrl, config.webhook.publicUrl].every(onLoopback);
}

/** What a run knows of the way from the target to its receiver: proven to work or not, and the probe's word on it. */
export interface KnownPath {
  /** The target, on this machine, posts to the receiver's own address, or to a URL a probe proved reaches it. */
  proven: boolean;
  /** What the preflight's probe of WEBHOOK_PUBLIC_URL found, or why there was none. */
  probe: string;
}

/**
 * The way from the target to the receiver as the run knows it, from the configuration and the preflight's finding on
 * the webhook path (none when the preflight did not probe it): when no delivery at all arrives, a proven way leaves the
 * target the one suspect, any other leaves two (kit/webhooks/receiver-path.ts).
 */
export function knownPath(
  config: SuiteConfig,
  finding?: Finding,
  notProbed = 'the preflight did not probe it',
): KnownPath {
  const here = config.embedded || targetOnLoopback(config);
  const { webhook } = config;
  const publicUrl = new URL(webhook.publicUrl);
  // The receiver's own address: on loopback, at its port, the listener bound there (or to every address).
  const own =
    publicUrl.protocol === 'http:' &&
    onLoopback(webhook.publicUrl) &&
    Number(publicUrl.port || 80) === webhook.port &&
    (['0.0.0.0', '::'].includes(webhook.host) ||
      onLoopback(`http://${webhook.host.includes(':') ? `[${webhook.host}]` : webhook.host}`));
  if (here && own)
    return {
      proven: true,
      probe: `not needed: the target, on this machine, posts to the receiver's own address (WEBHOOK_PUBLIC_URL=${config.webhook.publicUrl})`,
    };
  if (!finding) return { proven: false, probe: notProbed };
  const proven = finding.severity === 'ok' && here;
  const where = finding.severity === 'ok' && !here ? ', which the target, elsewhere, may not reach' : '';
  return { proven, probe: `${finding.got ?? finding.text}${where}` };
}

/**
 * Whether what is posted to WEBHOOK_PUBLIC_URL reaches a receiver listening on WEBHOOK_LISTEN: the receiver listens for
 * the time of one marked probe (runner/webhooks/probe.ts, never counted as a delivery), posted by the tester to the
 * public URL. A definite problem when the probe reached something that answered and the receiver did not see it, or
 * when nothing answered at all and the target posts from this very machine: the embedded sandbox, or a target whose
 * base URLs are on this machine's loopback like the public URL. A remote target may reach what the tester cannot (a
 * tunnel's far end, another network): "could not connect" is then a warning.
 */
export async function probeWebhookPath(
  config: SuiteConfig,
  options: { targetIsHere: boolean; receiver?: WebhookReceiver },
): Promise<Finding[]> {
  const { webhook } = config;
  if (webhook.mode === 'off') return [];
  const listen = `WEBHOOK_LISTEN=${webhook.host}:${webhook.port}`;
  const publicUrl = `WEBHOOK_PUBLIC_URL=${webhook.publicUrl}`;
  // The run's receiver when it listens already (a run's preflight); else one for the time of the probe (the doctor).
  const receiver = options.receiver ?? new WebhookReceiver({ host: webhook.host, port: webhook.port });
  try {
    if (!options.receiver) await receiver.start();
  } catch (error) {
    return [
      { topic: 'webhook', subject: SUBJECT, severity: 'problem', text: `${listen}: ${(error as Error).message}` },
    ];
  }
  try {
    const probe = webhookProbe();
    let status: string;
    try {
      const answer = await sendOnce(
        { method: 'POST', url: webhook.publicUrl, headers: probe.headers, body: Buffer.from(probe.body) },
        config.http.timeoutMs,
      );
      status = `${answer.status}${answer.headers.location ? ` (Location: ${answer.headers.location}, which a delivery is not known to follow)` : ''}`;
    } catch (error) {
      const reason = error instanceof NoAnswerError ? error.reason : (error as Error).message;
      const here = options.targetIsHere
        ? 'the embedded sandbox posts its events from this machine'
        : targetOnLoopback(config)
          ? "the target's base URLs are on this machine's loopback like the public URL, so it posts from this machine where the probe was posted"
          : undefined;
      if (here) {
        return [
          {
            topic: 'webhook',
            subject: SUBJECT,
            severity: 'problem',
            text: `${publicUrl} does not reach the receiver on ${listen}: a probe posted there got no answer (${reason}), and ${here}`,
          },
        ];
      }
      return [
        {
          topic: 'webhook',
          subject: SUBJECT,
          severity: 'warning',
          text: `could not decide whether ${publicUrl} reaches the receiver on ${listen}: the tester cannot connect to it (${reason}); the target may reach what the tester cannot`,
          got: `the tester could not connect to the public URL (${reason})`,
        },
      ];
    }
    if (receiver.sawProbe(probe.nonce))
      return [
        {
          topic: 'webhook',
          subject: SUBJECT,
          severity: 'ok',
          text: `a probe posted to ${publicUrl} reached the receiver on ${listen} (answered ${status})`,
          got: `a probe posted by the tester reached the receiver (answered ${status})`,
        },
      ];
    return [
      {
        topic: 'webhook',
        subject: SUBJECT,
        severity: 'problem',
        text: `${publicUrl} does not reach the receiver on ${listen}: a probe posted there was answered ${status} by something else, and the receiver never saw it`,
      },
    ];
  } finally {
    if (!options.receiver) await receiver.close();
  }
}
