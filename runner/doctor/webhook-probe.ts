import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import { NoAnswerError, sendOnce } from '../http/wire.ts';
import { webhookProbe } from '../webhooks/probe.ts';
import { WebhookReceiver } from '../webhooks/receiver.ts';
import type { Finding } from './findings.ts';

const SUBJECT = 'webhooks';

/**
 * Whether what is posted to WEBHOOK_PUBLIC_URL reaches a receiver listening on WEBHOOK_LISTEN: the receiver listens for
 * the time of one marked probe (runner/webhooks/probe.ts, never counted as a delivery), posted by the tester to the
 * public URL. A definite problem when the probe reached something that answered and the receiver did not see it, or
 * when nothing answered at all and the target is the embedded sandbox, which posts from this very machine. A real
 * target may reach what the tester cannot (a tunnel's far end, another network): "could not connect" is then a warning.
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
      if (options.targetIsHere) {
        return [
          {
            topic: 'webhook',
            subject: SUBJECT,
            severity: 'problem',
            text: `${publicUrl} does not reach the receiver on ${listen}: a probe posted there got no answer (${reason}), and the embedded sandbox posts its events from this machine`,
          },
        ];
      }
      return [
        {
          topic: 'webhook',
          subject: SUBJECT,
          severity: 'warning',
          text: `could not decide whether ${publicUrl} reaches the receiver on ${listen}: the tester cannot connect to it (${reason}); the target may reach what the tester cannot`,
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
