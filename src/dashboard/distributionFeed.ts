/**
 * The reward distribution per step of a file dashboard (a run's history.jsonl): every split's step
 * files, read from their small columns through the shared StepStatsCache (src/dashboard/stepStats.ts),
 * streamed to the webview as they are read, in batches at most every BATCH_MS. One step file is
 * read at a time, with a turn of the event loop between files; what the webview already has (path,
 * size, mtime) is not sent again until it is reloaded. No `vscode` import.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chooseSteps, listStepFiles } from '../files/stepShares';
import { toDistribution, type StepStatsCache } from './stepStats';
import type { StepDistribution } from './shared/distribution';
import type { ToWebview } from './shared/protocol';
import type { StepReadPriority } from './stepReadPriority';

const BATCH_MS = 100;
/** Steps per split drawn at most (the newest). */
export const MAX_DISTRIBUTION_STEPS = 2_000;
/** Bytes of step files per split read at most (the newest first): the small columns of them only. */
const MAX_DISTRIBUTION_BYTES = 1024 * 1024 * 1024 * 1024;

async function splitsOf(modelDir: string): Promise<string[]> {
  try {
    const entries = await fs.promises.readdir(path.join(modelDir, 'trajectories'), { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort((a, b) => (a === 'train' ? -1 : b === 'train' ? 1 : a.localeCompare(b)));
  } catch {
    return [];
  }
}

export class DistributionFeed {
  private readonly sent = new Map<string, string>();
  private running: AbortController | undefined;
  private again = false;

  constructor(
    readonly modelDir: string,
    private readonly cache: StepStatsCache,
    private readonly post: (m: Extract<ToWebview, { type: 'distribution' }>) => void,
    /** Held while this reads, so that the trainable-share scan of the same run waits (released once every split was read). */
    private readonly priority?: StepReadPriority,
  ) {}

  /** A fresh webview: everything goes again. */
  reset(): void {
    this.stop();
    this.sent.clear();
  }

  stop(): void {
    this.running?.abort();
    this.running = undefined;
  }

  /** Reads what is new or changed and sends it; a call while it runs makes one more pass after. */
  async start(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    const ac = new AbortController();
    this.running = ac;
    const release = this.priority?.hold();
    try {
      do {
        this.again = false;
        await this.pass(ac.signal);
      } while (this.again && !ac.signal.aborted);
      // Every split read: the share scan may start (stopped before, it waits for the next start).
      if (!ac.signal.aborted) this.priority?.firstReadDone();
    } catch (e) {
      if (!ac.signal.aborted) {
        this.priority?.firstReadDone();
        throw e;
      }
    } finally {
      release?.();
      if (this.running === ac) this.running = undefined;
    }
  }

  private async pass(signal: AbortSignal): Promise<void> {
    for (const split of await splitsOf(this.modelDir)) {
      const { chosen } = chooseSteps(await listStepFiles(this.modelDir, split), { maxFiles: MAX_DISTRIBUTION_STEPS, maxBytes: MAX_DISTRIBUTION_BYTES });
      let batch: StepDistribution[] = [];
      let last = performance.now();
      for (const f of chosen) {
        signal.throwIfAborted();
        const sig = `${f.bytes}:${f.mtimeMs}`;
        if (this.sent.get(f.path) === sig) continue;
        const r = await this.cache.get(f, signal);
        this.sent.set(f.path, sig);
        batch.push(toDistribution(f.step, path.basename(f.path), r));
        if (performance.now() - last >= BATCH_MS) {
          this.post({ type: 'distribution', split, steps: batch, done: false });
          batch = [];
          last = performance.now();
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      signal.throwIfAborted();
      this.post({ type: 'distribution', split, steps: batch, done: true });
    }
  }
}
