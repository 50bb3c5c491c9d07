import type { EventWaits } from './run-facts.ts';

/** "Events: 4 awaited, the latest 8.1 s after its request; every wait ended within 3 ms of the last event it awaited; 31 deliveries". */
export function eventWaitsLine(waits: EventWaits, windowMs: number): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  const awaited = waits.awaited
    ? `${waits.awaited} awaited, the latest ${seconds(waits.latestDelayMs)} s after its request (window ${seconds(windowMs)} s, WEBHOOK_WAIT_MS); every wait ended within ${waits.longestLagMs} ms of the last event it awaited`
    : 'none awaited';
  return `  Events: ${awaited}; ${waits.deliveries} deliveries received`;
}
