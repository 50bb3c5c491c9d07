/**
 * The run's cap on requests in flight to the target (TARGET_CONCURRENCY), kept by the broker in the runner process.
 * Before any 429 the workers keep to it by their number alone and ask nothing per request; each 429 the run waits out
 * is reported to the broker with the cap its request went under, and halves the cap (not below 1) when that was the cap
 * in force: one halving per cap, however many workers met the same limit at once. Once lowered, every request of every
 * worker takes a place here first (runner/broker-client.ts), and a place not given back within its lease (a worker
 * that ended mid-request) returns by itself.
 */
export interface CapStats {
  initial: number;
  final: number;
  /** Times the cap was halved. */
  lowered: number;
}

export class TargetCap {
  private current: number;
  private lowered = 0;
  private inFlight = 0;
  private nextPlace = 1;
  private readonly leases = new Map<number, NodeJS.Timeout>();
  private readonly queue: Array<(place: number) => void> = [];
  private readonly watchers = new Set<(cap: number) => void>();

  constructor(
    readonly initial: number,
    private readonly leaseMs: number,
  ) {
    this.current = initial;
  }

  get cap(): number {
    return this.current;
  }

  stats(): CapStats {
    return { initial: this.initial, final: this.current, lowered: this.lowered };
  }

  /** A 429 came back for a request sent under `sentUnder` (not finite: unknown, taken as the cap in force); the cap after it. */
  rateLimited(sentUnder: number): number {
    const under = Number.isFinite(sentUnder) ? sentUnder : this.current;
    // Sent under a higher cap than today's: a halving since has answered that 429 already.
    if (under <= this.current && this.current > 1) {
      this.current = Math.max(1, Math.floor(this.current / 2));
      this.lowered += 1;
      for (const watcher of [...this.watchers]) watcher(this.current);
      this.watchers.clear();
    }
    return this.current;
  }

  /** The cap as soon as it differs from `known` (at once when it already does); `cancel` drops the wait. */
  watch(known: number): { cap: Promise<number>; cancel: () => void } {
    if (known !== this.current) return { cap: Promise.resolve(this.current), cancel: () => undefined };
    let watcher: (cap: number) => void = () => undefined;
    const cap = new Promise<number>((resolve) => (watcher = resolve));
    this.watchers.add(watcher);
    return { cap, cancel: () => this.watchers.delete(watcher) };
  }

  /** A place for one request: resolves with its number when fewer than the cap are in flight. */
  enter(): { place: Promise<number>; cancel: () => void } {
    if (this.inFlight < this.current) return { place: Promise.resolve(this.take()), cancel: () => undefined };
    let waiter: (place: number) => void = () => undefined;
    const place = new Promise<number>((resolve) => (waiter = resolve));
    this.queue.push(waiter);
    return {
      place,
      cancel: () => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
      },
    };
  }

  leave(place: number): void {
    const lease = this.leases.get(place);
    if (!lease) return;
    clearTimeout(lease);
    this.leases.delete(place);
    this.inFlight -= 1;
    this.drain();
  }

  close(): void {
    for (const lease of this.leases.values()) clearTimeout(lease);
    this.leases.clear();
  }

  private take(): number {
    const place = this.nextPlace++;
    this.inFlight += 1;
    const lease = setTimeout(() => this.leave(place), this.leaseMs);
    lease.unref();
    this.leases.set(place, lease);
    return place;
  }

  private drain(): void {
    while (this.inFlight < this.current && this.queue.length > 0) this.queue.shift()?.(this.take());
  }
}
