import { escapeHtml } from './html-text.ts';
import type { EventWaits, WindowArrival, WindowEnd } from './run-facts.ts';

/** Waits that ended on their window shown in the console, and arrivals shown per wait; conformance.json has them all. */
const IN_CONSOLE: Shown = { ends: 5, arrivals: 3, restIn: 'conformance.md and conformance.json' };
/** The same in conformance.md and conformance.html. */
const IN_REPORTS: Shown = { ends: 40, arrivals: 8, restIn: 'conformance.json' };

interface Shown {
  ends: number;
  arrivals: number;
  /** Where the waits left out are. */
  restIn: string;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * What the run's flows waited for, in one sentence: how many events they awaited and got, the latest, and either how
 * soon after its event every wait ended (only when every wait did end on an event) or how many ended on their window.
 * "Events: 4 awaited, the latest 8.1 s after its request (window 60 s, WEBHOOK_WAIT_MS); every wait ended within 3 ms
 * of the event it awaited; 31 deliveries received".
 */
export function eventWaitsSummary(waits: EventWaits): string {
  const received = `${waits.deliveries} ${waits.deliveries === 1 ? 'delivery' : 'deliveries'} received`;
  if (waits.mode === 'passive') {
    const listened =
      waits.listenedMs === undefined
        ? 'passive mode, no flow run; the run ended before its listening window'
        : `listened ${seconds(waits.listenedMs)} for deliveries (passive mode, WEBHOOK_PASSIVE_WINDOW_MS), no flow run`;
    return `Events: ${listened}; ${received}`;
  }
  const ends = waits.windowEnds.length;
  if (waits.awaited === 0 && ends === 0) return `Events: no flow of this run awaited an event; ${received}`;
  const awaited =
    waits.awaited === 0
      ? 'no awaited event arrived'
      : `${waits.awaited} awaited, the latest ${seconds(waits.latestDelayMs)} after its request (window ${seconds(waits.windowMs)}, WEBHOOK_WAIT_MS)`;
  const how =
    ends === 0
      ? `every wait ended within ${waits.longestLagMs} ms of the event it awaited`
      : `${plural(ends, 'wait')} ended on ${ends === 1 ? 'its' : 'their'} window, not on an event`;
  return `Events: ${awaited}; ${how}; ${received}`;
}

/** One wait that ended on its window: its flow and what happened. */
export function windowEndLine(end: WindowEnd): string {
  return `${end.flow}: ${end.what}`;
}

/** One arrival during such a wait, and why it did not end it: "#12 at +35 ms, session s-1, docVerification true: …". */
export function arrivalLine(arrival: WindowArrival): string {
  const facts = [
    arrival.kind === 'unknown' ? 'an event of untold kind' : `a ${arrival.kind} event`,
    arrival.sessionId ? `session ${arrival.sessionId}` : '',
    arrival.inquiryId ? `inquiry ${arrival.inquiryId}` : '',
    arrival.docVerification ? 'docVerification true' : '',
  ].filter(Boolean);
  return `#${arrival.seq} at +${arrival.afterMs} ms (${facts.join(', ')}): ${arrival.why}`;
}

/**
 * The waits that ended on their window as a report shows them: each in words with what arrived meanwhile, at most as
 * many as `most` says, and a line for what is left out.
 */
function shownEnds(waits: EventWaits, most: Shown): Array<{ text: string; arrivals: string[] }> {
  const shown = waits.windowEnds.slice(0, most.ends).map((end) => ({
    text: windowEndLine(end),
    arrivals: [
      ...end.arrived.slice(0, most.arrivals).map(arrivalLine),
      ...(end.arrived.length > most.arrivals
        ? [`… ${end.arrived.length - most.arrivals} more arrivals in conformance.json`]
        : []),
    ],
  }));
  if (waits.windowEnds.length > most.ends)
    shown.push({ text: `… ${waits.windowEnds.length - most.ends} more in ${most.restIn}`, arrivals: [] });
  return shown;
}

/** The console's lines: the summary, then each wait that ended on its window with what arrived meanwhile. */
export function eventWaitsLines(waits: EventWaits): string[] {
  return [
    `  ${eventWaitsSummary(waits)}`,
    ...shownEnds(waits, IN_CONSOLE).flatMap(({ text, arrivals }) => [
      `    - ${text}`,
      ...arrivals.map((arrival) => `        ${arrival}`),
    ]),
  ];
}

/** Text a target chose (ids, labels) as Markdown shows it, never opening a code span, emphasis or an HTML tag. */
const inline = (text: string) => text.replace(/[\\`*_<>[\]|]/g, (c) => `\\${c}`);

/** conformance.md's lines: the summary, then each wait that ended on its window, what arrived meanwhile nested. */
export function eventWaitsMarkdown(waits: EventWaits): string[] {
  return [
    `- ${eventWaitsSummary(waits)}`,
    ...shownEnds(waits, IN_REPORTS).flatMap(({ text, arrivals }) => [
      `  - ${inline(text)}`,
      ...arrivals.map((arrival) => `    - ${inline(arrival)}`),
    ]),
  ];
}

/** conformance.html's section: the summary, then each wait that ended on its window, what arrived meanwhile nested. */
export function eventWaitsHtml(waits: EventWaits): string {
  const list = (items: string[]) => (items.length > 0 ? `<ul>${items.join('')}</ul>` : '');
  const ends = shownEnds(waits, IN_REPORTS).map(
    ({ text, arrivals }) =>
      `<li>${escapeHtml(text)}${list(arrivals.map((arrival) => `<li>${escapeHtml(arrival)}</li>`))}</li>`,
  );
  return `<p id="event-waits">${escapeHtml(eventWaitsSummary(waits))}</p>${list(ends)}`;
}
