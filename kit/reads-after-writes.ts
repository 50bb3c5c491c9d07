import type { OperationId } from '../catalog/catalog.ts';
import { isObject } from '../schemas/json-value.ts';
import { enumValues } from '../schemas/registry.ts';
import { tagNames } from './case/case-state.ts';
import { sameEnumValue } from './checks/responses.ts';
import type { SuiteConfig } from './config/suite-config.ts';
import type { Exchange } from './http/exchange.ts';
import type { SharedPreconditions } from './shared-preconditions.ts';
import { accepted as succeeded } from './http/consequence.ts';

/**
 * Reads may trail writes: the document states no consistency (parts 3 and 8), and a deployment that serves the fetch by
 * case id (4.5) from a replica, a CQRS read model or a search index answers it with 404, or with an earlier state of
 * the case, for a while after a write. The Api (kit/api.ts) notes every write of the worker it sent and was answered a
 * success (an assessment or a document verification that created a case, a case update with its tags and decision);
 * a fetch of such a case, by the caller that wrote it, that answers 404 or does not show every write yet is sent again,
 * with backoff, until it does or READ_AFTER_WRITE_TIMEOUT_MS has passed since it was first sent. Its last answer is
 * the one checks judge. An answer naming another case, any other status, or a fetch the check changed (other headers,
 * another caller) is judged at once. Checks see none of it: they call the Api as before.
 *
 * The first read of the run that never showed its write within the bound sets a breaker in the run's memo
 * (readsTrailKey): later reads are sent once more at most, never waiting out the bound again, and reads waiting
 * already stop at their next look.
 */

/** What the run's writes of one case left for a read to show. */
interface Written {
  /** Who wrote it (asReseller, an API key of its own): only the same caller's read is expected to show it. */
  caller: string;
  tags: Set<string>;
  decision?: string;
}

/** One read sent again because it did not show its write yet. */
export interface ReadWait {
  /** From the first answer to the last. */
  waitedMs: number;
  /** Reads sent, the first included. */
  reads: number;
  /** Whether the last read showed every write. */
  shown: boolean;
  boundMs: number;
}

/** The run's breaker: the first read that never showed its write within the bound. */
export const readsTrailKey = (config: SuiteConfig): string =>
  `reads show their writes: ${config.services.identity.baseUrl}`;

const comparable = (tag: string) => tag.normalize('NFC').trim().toLowerCase();

/** The writes of this worker's run, by case id, and the routes that answered a case of the run at least once. */
const writtenCases = new Map<string, Written>();
const answeringRoutes = new Set<OperationId>();
/** What this worker has seen of the target's reads: none yet, every one showing its write at once, or some trailing. */
let readsSeen: 'none' | 'prompt' | 'trailing' = 'none';

/**
 * Whether a request that stands on a case the run just created (a negative variant of a fetch) should first wait for a
 * read that shows it: unless every read so far showed its write at once.
 */
export function readBeforeUse(): boolean {
  return readsSeen !== 'prompt';
}

/** Whether a read of this worker was seen to trail its write. */
export function readsTrail(): boolean {
  return readsSeen === 'trailing';
}

let lastWait: ReadWait | undefined;
/** The wait of the latest read this worker sent again (undefined: none since the last call), taken once. */
export function takeReadWait(): ReadWait | undefined {
  const wait = lastWait;
  lastWait = undefined;
  return wait;
}

/** A read of the route answered a case the run wrote: a 404 there says the case is not visible yet, not that nothing is there. */
export function routeAnsweredACase(id: OperationId): boolean {
  return answeringRoutes.has(id);
}

export interface CallShape {
  asReseller?: boolean;
  apiKey?: string;
  set?: Record<string, string>;
  omit?: string[];
  rawBody?: unknown;
  query?: Record<string, string>;
  headerCase?: unknown;
  body?: unknown;
  pathParams?: Record<string, string>;
  /**
   * The tags this read must show, in place of every write of the run: a mark (kit/unchanged-case.ts), whose state is
   * judged as it comes with the mark, whatever else it shows.
   */
  mark?: readonly string[];
}

const callerOf = (options: CallShape) => `${options.asReseller ? 'reseller' : 'client'} ${options.apiKey ?? ''}`;
/** A request as the Api builds it, with nothing a check changed about its headers. */
const plain = (options: CallShape) =>
  Object.keys(options.set ?? {}).every((name) => ['content-type', 'x-correlation-id'].includes(name.toLowerCase())) &&
  !options.omit &&
  options.headerCase === undefined &&
  options.query === undefined;

/** The JSON body a call sends, written by the builders or raw. */
function sentBody(options: CallShape): Record<string, unknown> {
  if (isObject(options.body)) return options.body;
  if (typeof options.rawBody !== 'string' && !Buffer.isBuffer(options.rawBody)) return {};
  try {
    const parsed: unknown = JSON.parse(options.rawBody.toString());
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** Notes what an answered write leaves for later reads to show. */
export function noteWrite(id: OperationId, options: CallShape, exchange: Exchange): void {
  if (!succeeded(exchange)) return;
  const sent = sentBody(options);
  const answered = isObject(exchange.json) ? exchange.json : {};
  // A case created is there to read, however its request was written.
  if (id === 'assessment' || id === 'documentVerification') {
    const caseId = answered['authenticationId'];
    if (typeof caseId === 'string' && caseId !== '' && !writtenCases.has(caseId))
      writtenCases.set(caseId, { caller: callerOf(options), tags: new Set() });
    return;
  }
  if (id !== 'caseUpdate' || !plain(options)) return;
  const caseId = sent['authenticationId'];
  const written = typeof caseId === 'string' ? writtenCases.get(caseId) : undefined;
  if (!written || written.caller !== callerOf(options)) return;
  const tags = sent['tags'];
  if (Array.isArray(tags)) for (const tag of tags) if (typeof tag === 'string') written.tags.add(comparable(tag));
  // Only a decision of the list: an unknown one a lenient target may ignore.
  if (
    typeof sent['decision'] === 'string' &&
    enumValues('CaseDecision').some((d) => sameEnumValue(sent['decision'], d))
  )
    written.decision = sent['decision'];
}

/** The case a fetch asks for, when the run wrote it and expects this read to show it. */
function awaitedCase(id: OperationId, options: CallShape): Written | undefined {
  if (id !== 'fetchAssessment' || !plain(options)) return undefined;
  const caseId = options.pathParams?.['caseId'];
  const written = caseId === undefined ? undefined : writtenCases.get(caseId);
  if (!written || written.caller !== callerOf(options)) return undefined;
  return options.mark ? { caller: written.caller, tags: new Set(options.mark.map(comparable)) } : written;
}

/** Whether the answer shows the writes, is an earlier state of the same case (or a 404), or is to be judged at once. */
function reading(exchange: Exchange, caseId: string, written: Written): 'shown' | 'earlier' | 'judge' {
  if (exchange.status === 404) return 'earlier';
  if (!succeeded(exchange) || !isObject(exchange.json)) return 'judge';
  const named = exchange.json['authenticationId'];
  if (named !== undefined && named !== caseId) return 'judge';
  const tags = new Set(tagNames(exchange.json['tags']).map(comparable));
  const tagsShown = [...written.tags].every((tag) => tags.has(tag));
  const decisionShown = written.decision === undefined || sameEnumValue(exchange.json['decision'], written.decision);
  return tagsShown && decisionShown ? 'shown' : 'earlier';
}

/**
 * The longest pause between two reads of one wait. A read shows its write at the first read after the lag, so a wait
 * overshoots the lag by up to this much: 100 ms against 400 cut the waits of a 1 s replica by about a third, for half a
 * read more per wait, and 10 reads a second at most is no hot loop.
 */
const MOST_BETWEEN_READS_MS = 100;

/** How often a waiting read asks the run's memo whether another worker's read set the breaker. */
const BREAKER_LOOK_MS = 250;
/** This worker's own sight of the breaker: set by its own read, or seen in the memo. */
let brokenHere = false;

export interface ReReads {
  config: SuiteConfig;
  shared?: SharedPreconditions;
  onWait?: (wait: ReadWait) => void;
}

/**
 * The answer of a read that must show the run's writes: `first`, or the first later one that shows them, or the last
 * sent before the bound passed. `again` sends the read once more.
 */
export async function readShowingWrites(
  id: OperationId,
  options: CallShape,
  first: Exchange,
  again: (attempt: number) => Promise<Exchange>,
  { config, shared, onWait }: ReReads,
): Promise<Exchange> {
  const written = awaitedCase(id, options);
  const caseId = options.pathParams?.['caseId'] as string;
  if (!written) return first;
  let state = reading(first, caseId, written);
  if (state === 'shown') answeringRoutes.add(id);
  if (state === 'shown' && readsSeen === 'none') readsSeen = 'prompt';
  if (state !== 'earlier') return first;
  readsSeen = 'trailing';
  const started = Date.now();
  const key = readsTrailKey(config);
  if (!brokenHere && shared) brokenHere = (await shared.failure(key)) !== undefined;
  // Once a read of the run never showed its write, later reads are sent once more, not waited out again.
  const brokenBefore = brokenHere;
  const boundMs = brokenBefore ? Math.min(config.readAfterWriteTimeoutMs, 50) : config.readAfterWriteTimeoutMs;
  let last = first;
  let reads = 1;
  let delayMs = 10;
  let lookedAt = started;
  while (state === 'earlier' && Date.now() + delayMs <= started + boundMs) {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, MOST_BETWEEN_READS_MS);
    last = await again(reads);
    reads += 1;
    state = reading(last, caseId, written);
    if (brokenBefore || state !== 'earlier') continue;
    if (!brokenHere && shared && Date.now() - lookedAt >= BREAKER_LOOK_MS) {
      lookedAt = Date.now();
      brokenHere = (await shared.failure(key)) !== undefined;
    }
    if (brokenHere) break;
  }
  const shown = state === 'shown';
  if (shown || succeeded(last)) answeringRoutes.add(id);
  lastWait = { waitedMs: Date.now() - started, reads, shown, boundMs: config.readAfterWriteTimeoutMs };
  onWait?.(lastWait);
  if (!shown && !brokenHere && reads > 1) {
    brokenHere = true;
    await shared?.fail(key, {
      what: `a read of the case did not show the run's write within READ_AFTER_WRITE_TIMEOUT_MS (${config.readAfterWriteTimeoutMs} ms)`,
      evidence: { sent: `${reads} reads of ${caseId}`, expected: 'the write shown', actual: `status ${last.status}` },
    });
  }
  return last;
}
