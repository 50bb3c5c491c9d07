import type { SuiteConfig } from '../config/suite-config.ts';
import { NO_DELIVERY_CAUSE } from '../verdict-marks.ts';
import type { RunEvents } from './run-events.ts';

/**
 * Why a flow's events are missing when nothing at all reached the run's receiver and the way from the target to it is
 * not proven: two suspects, the target (it sends none) and the tester's own side (WEBHOOK_PUBLIC_URL does not reach the
 * receiver on WEBHOOK_LISTEN), with what the preflight's probe found. Undefined when a delivery came or the way is
 * proven: the target is then the one to answer for a missing event.
 */
export async function silentReceiverCause(events: RunEvents, config: SuiteConfig): Promise<string | undefined> {
  const path = await events.receiverPath();
  if (path.deliveries > 0 || path.proven) return undefined;
  const { webhook } = config;
  return `${NO_DELIVERY_CAUSE}: either the target sends none, or WEBHOOK_PUBLIC_URL=${webhook.publicUrl} does not reach the receiver on WEBHOOK_LISTEN=${webhook.host}:${webhook.port} (the preflight's probe of that path: ${path.probe})`;
}
