/**
 * Who reads a run's step files first on its dashboard (issue 31 item 2): the reward distribution's
 * reads (the small columns, a few milliseconds a file) go before the trainable-share scan (every
 * file decoded in full, up to 512 MiB), which shares the same event loop. While the priority is
 * held, the share scan waits between its files and between the groups of a file. No `vscode` import.
 */
export class StepReadPriority {
  private holds = 0;
  private waiters: (() => void)[] = [];
  private firstRelease: (() => void) | undefined;

  /** `firstRead`: held from the start until the distribution's first complete read (firstReadDone). */
  constructor(firstRead = false) {
    if (firstRead) this.firstRelease = this.hold();
  }

  get held(): boolean {
    return this.holds > 0;
  }

  /** Holds the priority until the returned function is called (once; more calls do nothing). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      }
    };
  }

  /** The distribution of every split was read once (or could not be): the first hold goes. */
  firstReadDone(): void {
    this.firstRelease?.();
    this.firstRelease = undefined;
  }

  /** Resolves when nothing holds the priority; rejects when `signal` aborts first. */
  clear(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (!this.holds) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== done);
        const why: unknown = signal!.reason;
        reject(why instanceof Error ? why : new Error('aborted'));
      };
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(done);
    });
  }
}
