import type { Exchange } from '../http/exchange.ts';
import type { Populated } from '../builders/value-population.ts';
import type { Verdict } from '../verdict.ts';
import { tagNames } from '../case/case-state.ts';
import { accepted, refused } from '../http/consequence.ts';

/**
 * What the document shows back comes back exactly (principle: after an acceptance, what was sent comes back). A value
 * is compared after JSON decoding, as a string: no character replaced, none cut, no re-casing, escapes intact.
 * Identifiers come back byte for byte; free text (tags) may come back normalised to NFC or with its outer whitespace
 * trimmed, two changes that keep the information and are deliberate policies somewhere, which are recorded (INFO).
 */

/** A string shown so that two strings that differ look different: every character outside printable ASCII as \u. */
export function visible(value: unknown, max = 160): string {
  if (typeof value !== 'string') return JSON.stringify(value) ?? String(value);
  const shown = [...value]
    .map((ch) => {
      const code = ch.codePointAt(0) as number;
      if (code >= 0x20 && code < 0x7f) return ch === '"' || ch === '\\' ? `\\${ch}` : ch;
      return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
    })
    .join('');
  const cut = shown.length > max ? `${shown.slice(0, max)}…` : shown;
  return `"${cut}" (${[...value].length} characters)`;
}

/** How a value came back changed, in the words of the first rule that explains it (for evidence). */
export function howChanged(sent: string, back: string): string {
  const rules: Array<[string, (s: string) => string]> = [
    ['normalised to NFC', (s) => s.normalize('NFC')],
    ['normalised to NFD', (s) => s.normalize('NFD')],
    ['outer whitespace trimmed', (s) => s.trim()],
    ['lower-cased', (s) => s.toLowerCase()],
    ['upper-cased', (s) => s.toUpperCase()],
    ['characters outside the BMP replaced with U+FFFD', (s) => s.replace(/[\u{10000}-\u{10FFFF}]/gu, '\uFFFD')],
    ['characters outside the BMP replaced with ?', (s) => s.replace(/[\u{10000}-\u{10FFFF}]/gu, '?')],
    ['runs of whitespace collapsed', (s) => s.replace(/\s+/g, ' ')],
  ];
  for (const [words, change] of rules) if (change(sent) === back) return words;
  if (back.length < sent.length && sent.startsWith(back)) return `cut to its first ${[...back].length} characters`;
  const at = [...sent].findIndex((ch, i) => [...back][i] !== ch);
  return `changed from character ${at + 1} on`;
}

/** The identifier came back byte for byte: the same string after JSON decoding, nothing normalised, cased or cut. */
export function expectIdentifierBack(
  verdict: Verdict,
  id: string,
  what: string,
  back: unknown,
  sent: string,
  exchange: Exchange,
): boolean {
  return verdict.check(id, back === sent, () => ({
    sent: verdict.sent(exchange),
    expected: `${what} exactly as sent: ${visible(sent)}`,
    actual: `${what} ${visible(back)}${typeof back === 'string' ? `: ${howChanged(sent, back)}` : ''}`,
  }));
}

/** The answer to a request carrying unusual values is a success or a refusal: a 5xx is the server's own error. */
export function expectAcceptedOrRefused(verdict: Verdict, id: string, exchange: Exchange): boolean {
  return verdict.check(id, accepted(exchange) || refused(exchange), () => ({
    sent: verdict.sent(exchange),
    expected: 'success (2xx), or a refusal (4xx, not 429): a value the target does not take is its to refuse',
    actual: verdict.answer(exchange),
  }));
}

/** How a tag sent is among the tags shown: as sent, through a change that keeps its information, or not at all. */
export type TagShown = 'as sent' | 'normalised to NFC' | 'outer whitespace trimmed' | 'missing';

type KeptChange = Exclude<TagShown, 'as sent' | 'missing'>;
const nfc = (tag: string) => tag.normalize('NFC');
const trimmed = (tag: string) => tag.trim();
/** The changes that keep a tag's information, alone and together (a decomposed tag with spaces around it). */
const keptChanges: ReadonlyArray<{ shown: KeptChange[]; change: (tag: string) => string }> = [
  { shown: ['normalised to NFC'], change: nfc },
  { shown: ['outer whitespace trimmed'], change: trimmed },
  { shown: ['normalised to NFC', 'outer whitespace trimmed'], change: (tag) => trimmed(nfc(tag)) },
];

/** Where each tag sent is among the names the case shows (2.2 does not show a tag item's shape: tagNames reads it). */
export function tagsShown(sent: readonly string[], fetchedTags: unknown): Array<{ tag: string; shown: TagShown[] }> {
  const names = new Set(tagNames(fetchedTags));
  return sent.map((tag) => {
    if (names.has(tag)) return { tag, shown: ['as sent'] };
    const kept = keptChanges.find(({ change }) => names.has(change(tag)));
    return { tag, shown: kept ? kept.shown : ['missing'] };
  });
}

/** Every tag of the accepted updates is among the case's tags: as sent, or changed only in a way that keeps its information. */
export function expectTagsShown(
  verdict: Verdict,
  id: string,
  sent: readonly string[],
  fetched: { body: Record<string, unknown>; exchange: Exchange },
): boolean {
  const missing = tagsShown(sent, fetched.body['tags']).filter((t) => t.shown.includes('missing'));
  const names = tagNames(fetched.body['tags']);
  return verdict.check(id, missing.length === 0, () => ({
    sent: verdict.sent(fetched.exchange),
    expected: `the case's tags containing every tag of the accepted updates (${sent.length}), each as sent, or normalised to NFC or with its outer whitespace trimmed`,
    actual: `${names.length} tags shown; ${missing.length} not among them, e.g. ${missing
      .slice(0, 3)
      .map(({ tag }) => {
        const near = names.find((name) => howChanged(tag, name).startsWith('cut') || name.includes(tag.slice(0, 24)));
        return `${visible(tag, 60)}${near === undefined ? '' : ` (shown as ${visible(near, 60)}: ${howChanged(tag, near)})`}`;
      })
      .join('; ')}`,
  }));
}

/**
 * Records which class of values an operation took in which members, or refused (OBS-VALUE-CLASSES, cited under `id`):
 * a certifier sees which classes a target takes. `resent`: the refused request was sent again with plain values.
 * Returns whether the values were taken.
 */
export function observeValueClass(
  verdict: Verdict,
  id: string,
  operation: string,
  request: Pick<Populated, 'members' | 'valueClass'>,
  exchange: Exchange,
  resent = false,
): boolean {
  verdict.cite(id);
  const outcome = accepted(exchange)
    ? 'taken'
    : refused(exchange)
      ? `refused (${exchange.status})${resent ? '; the request sent again with plain values' : ''}`
      : `answered ${exchange.status}`;
  verdict.observe(
    id,
    `${operation}: ${request.members.join(' and ')} of class ${request.valueClass.id} (${request.valueClass.name}) ${outcome}`,
  );
  return accepted(exchange);
}

/**
 * Records, per class, what became of the values of a round trip (OBS-VALUE-CLASSES, cited under `id`): one line for
 * `what`, the classes grouped by outcome ("as sent: cyrillic, greek; normalised to NFC: latin-nfd; refused (400):
 * long-4096"). Returns whether every value was taken as sent.
 */
export function observeClassOutcomes(
  verdict: Verdict,
  id: string,
  what: string,
  outcomes: ReadonlyArray<{ valueClass: string; outcome: string }>,
): boolean {
  verdict.cite(id);
  const byOutcome = new Map<string, Set<string>>();
  for (const { valueClass, outcome } of outcomes)
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? new Set()).add(valueClass));
  verdict.observe(
    id,
    `${what}, by class: ${[...byOutcome.entries()].map(([outcome, classes]) => `${outcome}: ${[...classes].join(', ')}`).join('; ')}`,
  );
  return [...byOutcome.keys()].every((outcome) => outcome === 'as sent' || outcome === 'taken');
}

/** The outcome of one value for observeClassOutcomes: refused, answered 5xx, or how it was shown back. */
export function outcomeOf(exchange: Exchange, shown = 'taken'): string {
  if (refused(exchange)) return `refused (${exchange.status})`;
  return accepted(exchange) ? shown : `answered ${exchange.status}`;
}
