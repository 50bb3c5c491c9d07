import type { BodyContext } from './identity-bodies.ts';
import { order, orderId } from './order-bodies.ts';
import type { SuiteConfig } from '../config/suite-config.ts';
import { applyTrigger, type Trigger } from '../config/trigger.ts';

/** A valid order of the configured template with a fresh identifier and, when given, another fulfillment type. */
export function newOrder(config: SuiteConfig, data: BodyContext, fulfillmentType?: unknown): Record<string, unknown> {
  return order(config.orders, orderId(data.faker, data.runTag), fulfillmentType);
}

/** The body and extra headers of a valid order changed by a configured trigger, for api.call. */
export function triggeredOrder(
  trigger: Trigger,
  body: Record<string, unknown>,
): { body: Record<string, unknown>; set: Record<string, string> } {
  const applied = applyTrigger(trigger, {}, body);
  return { body: applied.body, set: applied.headers };
}
