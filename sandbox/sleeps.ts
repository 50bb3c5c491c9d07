/**
 * Waits that end early when their owner closes: a webhook sender's or a delivery queue's delays before a delivery, so
 * that a closed sandbox leaves no timer behind and no delivery goes out after it.
 */
export class Sleeps {
  private readonly pending = new Set<{ timer: NodeJS.Timeout; done: () => void }>();
  closed = false;

  /** Resolves after `ms`, or at once when closed (before or during the wait). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      const pending = {
        timer: setTimeout(() => {
          this.pending.delete(pending);
          resolve();
        }, ms),
        done: () => resolve(),
      };
      this.pending.add(pending);
    });
  }

  /** Ends every wait now; later ones end at once. */
  close(): void {
    this.closed = true;
    for (const pending of this.pending) {
      clearTimeout(pending.timer);
      pending.done();
    }
    this.pending.clear();
  }
}
