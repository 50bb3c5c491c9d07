import type { EventWaits } from '../harness/webhooks/event-hub.ts';

/** The run's event waits over all its receivers (one per WEBHOOK_LISTEN), or undefined when it had none. */
export function runEventWaits(hubs: ReadonlyArray<{ stats(): EventWaits }> | undefined): EventWaits | undefined {
  if (!hubs?.length) return undefined;
  const all = hubs.map((hub) => hub.stats());
  return {
    awaited: all.reduce((sum, w) => sum + w.awaited, 0),
    latestDelayMs: Math.max(...all.map((w) => w.latestDelayMs)),
    longestLagMs: Math.max(...all.map((w) => w.longestLagMs)),
    deliveries: all.reduce((sum, w) => sum + w.deliveries, 0),
  };
}

/** "Events: 4 awaited, the latest 8.1 s after its request; every wait ended within 3 ms of the last event it awaited; 31 deliveries". */
export function eventWaitsLine(waits: EventWaits, windowMs: number): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  const awaited = waits.awaited
    ? `${waits.awaited} awaited, the latest ${seconds(waits.latestDelayMs)} s after its request (window ${seconds(windowMs)} s, WEBHOOK_WAIT_MS); every wait ended within ${waits.longestLagMs} ms of the last event it awaited`
    : 'none awaited';
  return `  Events: ${awaited}; ${waits.deliveries} deliveries received`;
}
