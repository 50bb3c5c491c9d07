import { expect, test } from '@playwright/test';
import { requirements } from '../catalog/catalog.ts';
import type { FailedPrecondition } from '../kit/shared-preconditions.ts';
import { Redactor } from '../kit/redact.ts';
import { PreconditionFailure } from '../kit/verdict.ts';
import { marksOf, NOT_TRIED } from '../kit/verdict-marks.ts';
import { brokenPreconditions } from '../reporters/run-summary.ts';
import { runVerdict } from '../reporters/run-verdict.ts';
import { verdictsFor, type TestRecord } from '../reporters/verdicts.ts';
import { BrokerClient } from '../runner/broker-client.ts';
import { startBroker, type RunningBroker } from '../runner/broker.ts';
import { HttpClient } from '../runner/http/client.ts';
import { LocalBudget } from '../runner/http/rate-limit.ts';
import { TokenCache } from '../runner/tokens.ts';
import { TokenProvider } from '../kit/tokens.ts';
import { bareVerdict } from './bare-verdict.ts';
import { served } from './served.ts';

// A broken precondition is waited for once: the run's memo of the preconditions its checks share, as the workers reach
// it (the broker over HTTP), the run's token kept with its failure, and how a check blocked at once reads.

const policy = { retries: 0, baseMs: 5, maxMs: 50, timeoutMs: 2_000 };

async function withBroker(body: (workers: [BrokerClient, BrokerClient], broker: RunningBroker) => Promise<void>) {
  const broker = await startBroker({ policy, rateLimitBudgetMs: 0, secrets: [] });
  try {
    await body([new BrokerClient(broker.url, broker.secret), new BrokerClient(broker.url, broker.secret)], broker);
  } finally {
    await broker.close();
  }
}

const failure: FailedPrecondition = {
  what: 'the records of the document verification did not appear within DOCUMENT_READY_TIMEOUT_MS (300 ms)',
  evidence: { sent: 'GET http://target/records/c-1', expected: 'the records (4.4)', actual: '404 application/json {}' },
  by: 'identity/document-records.spec.ts › document records are fetched without data',
};

test.describe('the run’s shared preconditions, through the broker', () => {
  test('one claimer establishes a key, or fails it; a claim made meanwhile waits and gets its value or is blocked by the failure, a later one at once (the failure not tried); a failure recorded without a claim stands, the first kept', async () => {
    await withBroker(async ([first, second]) => {
      for (const settled of [{ value: 'session-1' }, { failure }]) {
        const key = 'value' in settled ? 'records to read' : 'records to fail';
        const mine = await first.claim<string>(key, 60_000);
        if (mine.state !== 'yours') throw new Error(`expected the lease, got ${mine.state}`);
        const waiting = second.claim<string>(key, 60_000);
        await first.settle(key, mine.lease, settled);
        const met = 'value' in settled ? { state: 'met', value: 'session-1' } : { state: 'failed', failure };
        expect(await waiting).toEqual('value' in settled ? met : { ...met, known: false });
        expect(await second.claim(key, 60_000)).toEqual('value' in settled ? met : { ...met, known: true });
      }
      expect(await first.failure('records to fail')).toEqual(failure);
      expect((await second.claim('another inquiry', 60_000)).state, 'another key is another precondition').toBe(
        'yours',
      );
      expect(await second.failure('first delivery')).toBeUndefined();
      await first.fail('first delivery', failure);
      await second.fail('first delivery', { ...failure, what: 'a later window ended too' });
      expect(await second.failure('first delivery')).toEqual(failure);
      expect(await second.claim('first delivery', 60_000)).toEqual({ state: 'failed', failure, known: true });
    });
  });

  test('a lease released or run out (its worker ended mid-claim) passes to the next claim, with the head start offered', async () => {
    await withBroker(async ([first, second]) => {
      await first.offer('records to read', { session: 'started-early' });
      const mine = await first.claim('records to read', 60_000);
      expect(mine).toMatchObject({ state: 'yours', headStart: { session: 'started-early' } });
      if (mine.state !== 'yours') return;
      const waiting = second.claim('records to read', 60_000);
      await first.release('records to read', mine.lease);
      expect(await waiting).toMatchObject({ state: 'yours', headStart: { session: 'started-early' } });
      // A lease of 1 ms runs out by itself: the claim waiting for it gets the key.
      await first.offer('unended', 'ignored once claimed');
      await first.claim('unended', 1);
      expect(await second.claim('unended', 60_000)).toMatchObject({
        state: 'yours',
        headStart: 'ignored once claimed',
      });
    });
  });
});

test.describe('the run’s token', () => {
  test('a token endpoint that never answers is asked once: every later check standing on it is not tried', async () => {
    let requests = 0;
    await served(
      () => void (requests += 1),
      async (url) => {
        const cache = new TokenCache(new HttpClient({ ...policy, timeoutMs: 300 }, new LocalBudget(0)), new Redactor());
        const credential = { tokenUrl: `${url}/v1/token`, apiKey: 'a2V5OnNlY3JldA==' };
        const [first, meanwhile] = await Promise.all([cache.get(credential), cache.get(credential)]);
        expect(first).toMatchObject({ ok: false, failure: { kind: 'no-answer' } });
        expect(first.ok === false && first.known, 'the check that waited for it was tried').toBeFalsy();
        expect(meanwhile, 'asked while the request was out: the same request').toEqual(first);
        const later = await cache.get(credential);
        expect(later).toMatchObject({ ok: false, failure: { kind: 'no-answer' }, known: true });
        expect(requests, 'one token request went out').toBe(1);
        const provider = new TokenProvider(cache, new Redactor());
        const error = await provider.token(credential).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PreconditionFailure);
        expect((error as PreconditionFailure).notTried).toBe(true);
      },
    );
  });
});

test.describe('a check blocked at once', () => {
  const ID = 'DOCR-DATA-VALUES';
  const record = (annotations: TestRecord['annotations'], title: string): TestRecord => ({
    title,
    project: 'identity',
    location: `tests/identity/document-records.spec.ts:${title.length}`,
    status: 'skipped',
    annotations,
  });

  test('reads "not tried" with the first failure’s words and evidence, is blocked for the verdict, one line in the summary; its error names the check that met the failure', () => {
    const [tried, later, third, failed] = [bareVerdict([ID]), bareVerdict([ID]), bareVerdict([ID]), bareVerdict([ID])];
    expect(() => tried.verdict.blocked(failure.what, failure.evidence)).toThrow('skipped');
    expect(tried.verdict.blockedBy).toEqual({ what: failure.what, evidence: failure.evidence });
    expect(() => later.verdict.notTried(failure)).toThrow('skipped');
    const [mark] = marksOf(later.annotations);
    const [firstMark] = marksOf(tried.annotations);
    expect(mark?.kind).toBe('blocked');
    expect(mark?.detail).toBe(`${NOT_TRIED}${firstMark?.detail}`);
    expect(later.skipped).toEqual([`blocked: ${mark?.detail}`]);

    expect(() => third.verdict.notTried(failure)).toThrow('skipped');
    const records = [
      record(tried.annotations, 'without data'),
      record(later.annotations, 'data=all'),
      record(third.annotations, 'data=ocrData'),
    ];
    const verdicts = verdictsFor(requirements, records);
    expect(verdicts.find((v) => v.id === ID)).toMatchObject({
      outcome: 'blocked',
      breakdown: '3 checks blocked by the target; 2 not tried',
    });
    expect(brokenPreconditions(verdicts)).toEqual([
      `${firstMark?.detail} (blocks 1 requirement; 2 checks not tried: blocked at once, not waited for again)`,
    ]);
    expect(runVerdict(verdicts, 'gate').exitCode).toBe(1);
    // After a failed check of its own, its error names the check that met the failure and carries that evidence.
    failed.verdict.check(ID, false, () => ({ expected: 'a', actual: 'b' }));
    let error: unknown;
    try {
      failed.verdict.notTried(failure);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(PreconditionFailure);
    const { message } = error as PreconditionFailure;
    expect(message).toContain(`Blocked, not tried: ${failure.what}`);
    expect(message).toContain(`It failed for ${failure.by}, and is not waited for again`);
    expect(message).toContain('Actual:   404 application/json {}');
  });
});
