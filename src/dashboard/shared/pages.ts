/**
 * Bounds on the dashboard's cursor paging, so a misbehaving service cannot make it pull pages
 * forever: pages per run, checkpoints in all, rows per page, and a cursor that repeats. Pure: no
 * vscode import, unit-tested in plain Node.
 */

export interface PageLimits {
  /** Rows asked for per page; a page with more is refused. */
  pageSize: number;
  /** Pages one run (a load or a poll) may fetch. */
  maxPages: number;
  /** Checkpoints the series may hold. */
  maxRows: number;
}

/** 2,000 pages of 100: 200,000 checkpoints, far beyond a training run's (a few thousand). */
export const DEFAULT_PAGE_LIMITS: PageLimits = { pageSize: 100, maxPages: 2_000, maxRows: 200_000 };

/** Follows one run's pages; `check` returns why paging must stop, or undefined to go on. */
export class PageGuard {
  private pages = 0;
  private readonly cursors = new Set<string>();

  constructor(
    private readonly modelId: string,
    private readonly limits: PageLimits = DEFAULT_PAGE_LIMITS,
  ) {}

  /** Before the page is kept: its size. */
  checkPage(rows: number): string | undefined {
    this.pages++;
    if (rows > this.limits.pageSize) return `The service sent ${rows} checkpoints of "${this.modelId}" for a page of ${this.limits.pageSize}; the dashboard stopped loading.`;
    return undefined;
  }

  /** After the page is kept, when it says has_more: the cursor it gives and the rows held. */
  checkNext(next: string | undefined, rowsHeld: number): string | undefined {
    if (!next) return `The checkpoints of "${this.modelId}" say has_more but give no cursor; the dashboard stopped loading.`;
    if (this.cursors.has(next)) return `The checkpoints of "${this.modelId}" repeat the cursor "${next.slice(0, 80)}"; the dashboard stopped loading.`;
    this.cursors.add(next);
    if (this.pages >= this.limits.maxPages) return `The checkpoints of "${this.modelId}" still say has_more after ${this.pages} pages; the dashboard stopped loading (at most ${this.limits.maxPages} pages at a time).`;
    if (rowsHeld >= this.limits.maxRows) return `The dashboard of "${this.modelId}" holds ${rowsHeld} checkpoints, its limit; it stopped loading more.`;
    return undefined;
  }
}
