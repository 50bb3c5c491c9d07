import { randomUUID } from 'node:crypto';
import type { Claim, FailedPrecondition, SharedPreconditions } from '../kit/shared-preconditions.ts';
import { within } from './long-poll.ts';

type Entry =
  /** Nobody holds it; someone offered a head start for its first claimer. */
  | { state: 'offered'; headStart: unknown }
  | { state: 'held'; lease: string; timer: NodeJS.Timeout; headStart?: unknown }
  | { state: 'met'; value: unknown }
  | { state: 'failed'; failure: FailedPrecondition };

/** What one claim is answered: the claim's outcome, or "still held by another, ask again" (a long poll's end). */
export type ClaimAnswer<T> = Claim<T> | { state: 'held' };

/**
 * The run's memo of the preconditions its checks share (kit/shared-preconditions.ts), by key, in the runner process:
 * the broker serves it to every worker (runner/broker.ts), so that a precondition is established once for the run and,
 * once failed, waited for never again. A worker started without a broker keeps one of its own. A key is established by
 * one claimer at a time, under a lease that runs out by itself (a worker that ended mid-claim); the others wait for its
 * outcome.
 */
export class PreconditionMemo implements SharedPreconditions {
  private readonly entries = new Map<string, Entry>();
  private readonly waiters = new Map<string, Set<() => void>>();

  /** One claim: as SharedPreconditions.claim, but waiting at most `waitMs` for another's lease (then "held"). */
  async claimOnce<T>(key: string, leaseMs: number, waitMs: number, onHangUp?: (drop: () => void) => void) {
    const entry = this.entries.get(key);
    if (entry?.state === 'held') {
      let wake = () => undefined as void;
      let gone = false;
      const changed = new Promise<void>((resolve) => (wake = resolve));
      this.waitersOf(key).add(wake);
      onHangUp?.(() => {
        gone = true;
        wake();
      });
      await within(changed, waitMs, undefined);
      this.waitersOf(key).delete(wake);
      // A worker that hung up takes no lease: nobody would end it.
      if (gone) return { state: 'held' } as const;
      const after = this.entries.get(key);
      if (after?.state === 'failed') return { state: 'failed', failure: after.failure, known: false } as const;
      if (after?.state === 'held') return { state: 'held' } as const;
    }
    return this.take<T>(key, leaseMs);
  }

  /** The claim of a worker without a broker: waits as long as another's lease lasts. */
  async claim<T>(key: string, leaseMs: number): Promise<Claim<T>> {
    let waited = false;
    for (;;) {
      const answer = await this.claimOnce<T>(key, leaseMs, leaseMs);
      if (answer.state !== 'held') return answer.state === 'failed' && waited ? { ...answer, known: false } : answer;
      waited = true;
    }
  }

  async settle(
    key: string,
    lease: string,
    outcome: { value: unknown } | { failure: FailedPrecondition },
  ): Promise<void> {
    const entry = this.entries.get(key);
    if (entry?.state !== 'held' || entry.lease !== lease) return;
    clearTimeout(entry.timer);
    this.entries.set(
      key,
      'failure' in outcome ? { state: 'failed', failure: outcome.failure } : { state: 'met', value: outcome.value },
    );
    this.wake(key);
  }

  async release(key: string, lease: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry?.state !== 'held' || entry.lease !== lease) return;
    clearTimeout(entry.timer);
    if (entry.headStart === undefined) this.entries.delete(key);
    else this.entries.set(key, { state: 'offered', headStart: entry.headStart });
    this.wake(key);
  }

  async offer(key: string, headStart: unknown): Promise<void> {
    if (!this.entries.has(key)) this.entries.set(key, { state: 'offered', headStart });
  }

  async failure(key: string): Promise<FailedPrecondition | undefined> {
    const entry = this.entries.get(key);
    return entry?.state === 'failed' ? entry.failure : undefined;
  }

  async fail(key: string, failure: FailedPrecondition): Promise<void> {
    const entry = this.entries.get(key);
    if (entry?.state === 'failed') return;
    if (entry?.state === 'held') clearTimeout(entry.timer);
    this.entries.set(key, { state: 'failed', failure });
    this.wake(key);
  }

  /** The run is over: no lease keeps a timer running. */
  close(): void {
    for (const entry of this.entries.values()) if (entry.state === 'held') clearTimeout(entry.timer);
  }

  private take<T>(key: string, leaseMs: number): Claim<T> {
    const entry = this.entries.get(key);
    if (entry?.state === 'met') return { state: 'met', value: entry.value as T };
    if (entry?.state === 'failed') return { state: 'failed', failure: entry.failure, known: true };
    const lease = randomUUID();
    const headStart = entry?.state === 'offered' ? entry.headStart : undefined;
    // A lease not ended within its time (the claimer's worker ended mid-claim) ends by itself.
    const timer = setTimeout(() => void this.release(key, lease), leaseMs);
    timer.unref();
    this.entries.set(key, { state: 'held', lease, timer, ...(headStart === undefined ? {} : { headStart }) });
    return { state: 'yours', lease, ...(headStart === undefined ? {} : { headStart: headStart as T }) };
  }

  private waitersOf(key: string): Set<() => void> {
    let set = this.waiters.get(key);
    if (!set) this.waiters.set(key, (set = new Set()));
    return set;
  }

  private wake(key: string): void {
    for (const wake of [...this.waitersOf(key)]) wake();
  }
}
