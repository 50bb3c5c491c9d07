/**
 * Waiting out 429 answers. Part 8 leaves rate limits "not shown", so a 429 is never a refusal, a pass or a failure: the
 * request waits (Retry-After, or backoff when it is absent) and is sent again, as long as the run's waiting budget
 * lasts. The budget is run-wide: in a conformance run one broker in the runner process grants every worker's waits
 * (runner/broker.ts, RunBudget: the run's time spent waiting); elsewhere a local budget stands in.
 */
export interface RateLimitBudget {
  /**
   * Asks to spend `ms` waiting for a 429; false when what is left of the run's budget cannot cover it. `sentUnder` is
   * the cap on requests in flight the 429's request went under (place()), for the run to lower it once per cap.
   */
  grant(ms: number, sentUnder?: number): Promise<boolean>;
  /**
   * Where the run caps the requests in flight to the target (TARGET_CONCURRENCY, the broker): the cap a request goes
   * under and, once a 429 has lowered it, the place it waits for (resolving with the function that gives it back).
   * Before any 429, nothing to wait for: a prompt target pays nothing per request.
   */
  place?(): { cap?: number; entered?: Promise<() => void> };
}

export interface BudgetStats {
  budgetMs: number;
  waitedMs: number;
  waits: number;
  /** Waits asked for that the budget could not cover: each ended a request as rate-limited. */
  refused: number;
}

/** A budget kept in this process: the broker's own, and the one used where no broker runs (self-tests). */
export class LocalBudget implements RateLimitBudget {
  readonly stats: BudgetStats;

  constructor(budgetMs: number) {
    this.stats = { budgetMs, waitedMs: 0, waits: 0, refused: 0 };
  }

  async grant(ms: number): Promise<boolean> {
    return this.grantNow(ms);
  }

  grantNow(ms: number): boolean {
    if (this.stats.waitedMs + ms > this.stats.budgetMs) {
      this.stats.refused += 1;
      return false;
    }
    this.stats.waitedMs += ms;
    this.stats.waits += 1;
    return true;
  }
}

/**
 * The run's budget, kept by the broker: it counts the run's time spent waiting, during which at least one request
 * waits out a 429, so that waits which overlap count once. Summed per request instead, twelve workers meeting the same
 * limit together would spend the budget six times as fast as two, though the run waited no longer.
 */
export class RunBudget implements RateLimitBudget {
  readonly stats: BudgetStats;
  /** When the latest wait granted so far ends. */
  private until = 0;

  constructor(
    budgetMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.stats = { budgetMs, waitedMs: 0, waits: 0, refused: 0 };
  }

  async grant(ms: number): Promise<boolean> {
    return this.grantNow(ms);
  }

  grantNow(ms: number): boolean {
    const now = this.now();
    const added = Math.max(0, now + ms - Math.max(now, this.until));
    if (this.stats.waitedMs + added > this.stats.budgetMs) {
      this.stats.refused += 1;
      return false;
    }
    this.stats.waitedMs += added;
    this.stats.waits += 1;
    this.until = Math.max(this.until, now + ms);
    return true;
  }
}

/** A request still answered 429 when the run's waiting budget was spent: its check is blocked, named as rate-limited. */
export class RateLimitedError extends Error {
  constructor(
    readonly request: { method: string; url: string },
    readonly detail: string,
  ) {
    super(
      `rate-limited: ${request.method} ${request.url} was still answered 429 when the run's waiting budget was spent (${detail})`,
    );
    this.name = 'RateLimitedError';
  }
}
