import type { IncomingMessage, ServerResponse } from 'node:http';
import { operation, type OperationId } from '../../catalog/catalog.ts';
import { startCore } from '../core.ts';
import { sendRefusal } from '../errors.ts';
import {
  composedSandbox,
  forward,
  forwardedHeaders,
  jsonObject,
  listenFront,
  readWhole,
  relay,
  sendBadGateway,
  succeeded,
  type InnerAnswer,
} from '../front-server.ts';
import { unknownCaseRefusal } from '../guards.ts';
import { compilePath, operationPath, operationRoute } from '../layout.ts';
import type { RunningSandbox, SandboxOptions } from '../types.ts';
import { reference } from './reference.ts';

/**
 * A correct target whose reads trail its writes, as a CQRS read model or a search-backed case store does (the document
 * states no consistency: parts 3 and 8): a front before a reference sandbox that answers the fetch by case id (4.5) and
 * the document records (4.4) from a replica. Each read is as old as a lag drawn for it, from 0 to `readLagMs` (some
 * reads older than others, yet none older than a read answered before it): it shows the case as a read before the writes of that lag showed it, and answers 404, as
 * for a case it does not know, while the write that created the case is younger than the lag. Writes are the
 * primary's and answered at once; a fresh answer that is not a success is relayed as it is.
 */
export const defaultReadLagMs = 1000;

const route = (id: OperationId) => ({
  method: operationRoute('reference', id).method,
  pattern: compilePath(operationPath('reference', operation(id))),
  path: operationPath('reference', operation(id)),
});
const reads = { fetchAssessment: route('fetchAssessment'), documentRecords: route('documentRecords') };
const writes = {
  assessment: route('assessment'),
  documentVerification: route('documentVerification'),
  caseUpdate: route('caseUpdate'),
  stepUp: route('stepUp'),
};

const ids = (...values: unknown[]): string[] =>
  values.filter((id): id is string => typeof id === 'string' && id !== '');

/** What the replica knows of one resource (a case, or a session's records): when it was written, what was read of it. */
interface Replica {
  writes: number[];
  /** How many of the writes a read has shown: reads are monotonic, none older than one answered before it. */
  shownWrites: number;
  /** Successful answers the primary gave, oldest first, with when each was read, by the reader's credentials. */
  seen: Array<{ at: number; reader: string; answer: InnerAnswer }>;
}

export async function startTrailingSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const lagMs = options.readLagMs ?? defaultReadLagMs;
  const inner = await startCore({ ...options, host: '127.0.0.1', port: 0 }, reference, 'trailing');
  const replicas = new Map<string, Replica>();
  const replica = (key: string): Replica => {
    let found = replicas.get(key);
    if (!found) replicas.set(key, (found = { writes: [], seen: [], shownWrites: 0 }));
    return found;
  };
  const written = (keys: readonly string[], at: number) => keys.forEach((key) => replica(key).writes.push(at));

  /** The answer of a read `lag` ms old: the latest seen before the first write younger than that, else 404, else fresh. */
  const trailing = (key: string, reader: string, fresh: InnerAnswer, now: number): InnerAnswer | 'unknown' => {
    const known = replicas.get(key);
    if (!known || known.writes.length === 0 || known.shownWrites === known.writes.length) return fresh;
    const cutoff = now - Math.random() * lagMs;
    const pending = known.writes.find((at) => at > cutoff);
    if (pending === undefined) {
      known.shownWrites = known.writes.length;
      return fresh;
    }
    if ((known.writes[0] as number) > cutoff) return 'unknown';
    const older = known.seen.filter((s) => s.at < pending && s.reader === reader).at(-1);
    return older?.answer ?? fresh;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readWhole(req);
    const method = (req.method ?? 'GET').toUpperCase();
    const path = new URL(req.url ?? '/', 'http://front').pathname;
    const answer = await forward(
      inner.url,
      method,
      req.url ?? '/',
      forwardedHeaders(req),
      body.length ? body : undefined,
    );
    const now = Date.now();
    if (succeeded(answer) && method !== 'GET') {
      const sent = jsonObject(body);
      const answered = jsonObject(answer.body);
      if (path === writes.assessment.path)
        written(
          ids(answered['authenticationId']).map((id) => `case:${id}`),
          now,
        );
      if (path === writes.documentVerification.path)
        written(
          [
            ...ids(answered['authenticationId']).map((id) => `case:${id}`),
            ...ids(answered['authenticationId'], sent['inquiryId']).map((id) => `records:${id}`),
          ],
          now,
        );
      if (path === writes.caseUpdate.path || path === writes.stepUp.path)
        written(
          ids(sent['authenticationId']).map((id) => `case:${id}`),
          now,
        );
    }
    for (const [kind, read] of Object.entries(reads)) {
      const match = method === read.method ? read.pattern.regex.exec(path) : null;
      if (!match?.[1] || !succeeded(answer)) continue;
      const id = decodeURIComponent(match[1]);
      const key = `${kind === 'fetchAssessment' ? 'case' : 'records'}:${id}`;
      const reader = `${String(req.headers.authorization)} ${String(req.headers['x-source-client-id'])}`;
      replica(key).seen.push({ at: now, reader, answer });
      const shown = trailing(key, reader, answer, now);
      if (shown === 'unknown') return sendRefusal(res, unknownCaseRefusal(id));
      return relay(res, shown);
    }
    relay(res, answer);
  };
  const front = await listenFront(options, handle, sendBadGateway);
  return composedSandbox(inner, { front, flavor: 'trailing' });
}
