import * as vscode from 'vscode';
import type { ThreadRow } from '../api';
import { Disposable } from '../common/disposable';
import type { Invocation } from '../ui/commands';
import type { Logger } from '../common/logger';
import { configChanged } from '../common/config';
import type { Connection } from '../service/connection';
import { parseStoredFilter, parseStoredSort, toQueryFilter, type ThreadFilter } from './filter';
import type { SortBy } from '../api';
import { background } from '../common/background';
import type { ContextKeys } from '../ui/prompts';

/** workspaceState keys: view state is the user's, per workspace, and never goes to settings. */
export const SORT_KEY = 'svc.threads.sort';
export const FILTER_KEY = 'svc.threads.filter';

export type ThreadsStatus = 'unconfigured' | 'signedOut' | 'noProject' | 'idle' | 'loading' | 'loaded' | 'error';

/**
 * The threads of the configured project, loaded page by page (offset paging). State only: no UI.
 * Every load runs under a generation number; a refresh bumps it and aborts the request in flight,
 * so a late answer of an old load is dropped instead of mixed in.
 */
export class ThreadsModel extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private readonly failed = this._register(new vscode.EventEmitter<{ project: string; error: unknown }>());
  /** Fires when loading the threads of a project failed, with the error (e.g. a 403 or 404 for it). */
  readonly onDidFail = this.failed.event;

  private _rows: ThreadRow[] = [];
  private ids = new Set<string>();
  private _hasMore = false;
  private _error: unknown;
  /** What failed: the first page of a load (a refresh shows it above the rows it kept), or a next page. */
  private _errorDuring: 'refresh' | 'more' = 'refresh';
  private _loading: Promise<void> | undefined;
  private _loaded = false;
  private abort: AbortController | undefined;
  private generation = 0;
  private _filter: ThreadFilter | undefined;
  /** The query filter of the pages loaded since the last reset: "last hour" must not move between pages. */
  private queryFilter: ReturnType<typeof toQueryFilter>;

  private _sort: SortBy;

  constructor(
    private readonly connection: Connection,
    private readonly log: Logger,
    private readonly viewState: vscode.Memento,
    /** Where svc.threads.filterActive is set. */
    private readonly contextKeys: ContextKeys,
  ) {
    super();
    this._sort = parseStoredSort(viewState.get(SORT_KEY));
    this._filter = parseStoredFilter(viewState.get(FILTER_KEY));
    this.setFilterActive();
    // Another client, key or project drops what is loaded; of the settings, only a real change of
    // page size does.
    this._register(connection.onDidChange(({ data, config }) => (data || (config && configChanged(config, ['threadsPageSize']))) && this.reset()));
  }

  get rows(): readonly ThreadRow[] {
    return this._rows;
  }
  get hasMore(): boolean {
    return this._hasMore;
  }
  get error(): unknown {
    return this._error;
  }
  /** Whether the error is of a refresh (the rows shown are those loaded before it) or of "Load more". */
  get errorDuring(): 'refresh' | 'more' {
    return this._errorDuring;
  }
  get filter(): ThreadFilter | undefined {
    return this._filter;
  }
  get project(): string {
    return this.connection.config.project;
  }
  get sort(): SortBy {
    return this._sort;
  }

  /** Sorts by `sort` (kept in workspaceState) and reloads. */
  async setSort(sort: SortBy): Promise<void> {
    this._sort = { field: sort.field, direction: sort.direction };
    await this.viewState.update(SORT_KEY, this._sort);
    this.reset();
  }
  get isLoading(): boolean {
    return this._loading !== undefined;
  }

  get status(): ThreadsStatus {
    if (!this.connection.client) return 'unconfigured';
    if (this.connection.state === 'signedOut') return 'signedOut';
    if (!this.project) return 'noProject';
    if (this._loading) return 'loading';
    if (this._error !== undefined) return 'error';
    return this._loaded ? 'loaded' : 'idle';
  }

  findRow(threadId: string): ThreadRow | undefined {
    return this._rows.find((r) => r.thread_id === threadId);
  }

  private setFilterActive(): void {
    background(this.contextKeys.set('svc.threads.filterActive', !!this._filter), 'setContext svc.threads.filterActive');
  }

  /** Filters by `filter` (kept in workspaceState; undefined clears it) and reloads. */
  async setFilter(filter: ThreadFilter | undefined): Promise<void> {
    this._filter = filter;
    this.setFilterActive();
    this.reset();
    await this.viewState.update(FILTER_KEY, filter);
  }

  /** Drops everything loaded and cancels the load in flight; the view reloads on demand. */
  reset(): void {
    this.generation++;
    this.abort?.abort();
    this.abort = undefined;
    this._loading = undefined;
    this._rows = [];
    this.ids.clear();
    this._hasMore = false;
    this._error = undefined;
    this._loaded = false;
    this.queryFilter = undefined;
    this.changed.fire();
  }

  /**
   * Loads the first page again, keeping the rows on show until it arrives: a failed refresh
   * leaves them in place (with the error), and a successful one replaces them. Cancels the load
   * in flight. A change of query (filter, sort, project) resets instead: its old rows would
   * answer another question.
   */
  refresh(how?: Invocation): Promise<void> {
    this.generation++;
    this.abort?.abort();
    this.abort = undefined;
    this._loading = undefined;
    this._error = undefined;
    if (!this._loaded) {
      this._rows = [];
      this.ids.clear();
    }
    return this.load(0, true, how);
  }

  /**
   * Resolves once the model is settled: loaded, failed, or with nothing it can load (no client,
   * signed out, no project). Starts the first load when nothing is loaded yet (`how`: whether that
   * load may ask questions). A reset or a new load while waiting is waited for too, so what the
   * model holds afterwards reflects every change made meanwhile. This is the one thing a view
   * awaits before it answers.
   */
  async whenSettled(how?: Invocation): Promise<void> {
    for (;;) {
      const status = this.status;
      if (status === 'loading') await this._loading;
      else if (status === 'idle') await this.loadMore(how);
      else return;
    }
  }

  /** Loads the first page if nothing is loaded yet. */
  ensureLoaded(how?: Invocation): Promise<void> {
    if (this._loaded || this._error !== undefined) return this._loading ?? Promise.resolve();
    return this.loadMore(how);
  }

  /**
   * Loads the next page. A call while a page is loading returns that load, so a double click on
   * "Load more" cannot load the same page twice. A user's action (`how.interactive`) may be asked
   * first whether the key may go to the service (Connection.prepare); anything else is not.
   */
  loadMore(how?: Invocation): Promise<void> {
    if (this._loading) return this._loading;
    return this.load(this._rows.length, false, how);
  }

  /** Loads one page at `offset`; `replace`: the page replaces the rows (a refresh), else it is appended. */
  private load(offset: number, replace: boolean, how: Invocation | undefined): Promise<void> {
    const client = this.connection.client;
    if (!client || !this.project || this.connection.state === 'signedOut') return Promise.resolve();
    const generation = this.generation;
    const abort = new AbortController();
    this.abort = abort;
    this._error = undefined;
    const pageSize = this.connection.config.threadsPageSize;
    const queryFilter = offset === 0 ? toQueryFilter(this._filter) : this.queryFilter;
    const load = (async () => {
      const page: ThreadRow[] = [];
      try {
        if (how?.interactive) await this.connection.prepare('trace');
        if (generation !== this.generation) return;
        // One extra row tells whether another page exists.
        const rows = client.threads.query(
          {
            project_id: this.project,
            filter: queryFilter,
            sort_by: [this.sort],
            limit: pageSize + 1,
            offset,
          },
          { signal: abort.signal },
        );
        for await (const row of rows) page.push(row);
        if (generation !== this.generation) return;
        if (replace) {
          this._rows = [];
          this.ids.clear();
        }
        // "Last hour" must not move between pages: later pages reuse the first page's filter.
        this.queryFilter = queryFilter;
        this._hasMore = page.length > pageSize;
        for (const row of page.slice(0, pageSize)) {
          // Offset paging can repeat a row when data changed between pages; ids must stay unique.
          if (this.ids.has(row.thread_id)) continue;
          this.ids.add(row.thread_id);
          this._rows.push(row);
        }
        this._loaded = true;
      } catch (e) {
        if (generation !== this.generation) return;
        this._error = e;
        this._errorDuring = offset === 0 ? 'refresh' : 'more';
        this.log.error(`Loading threads of ${this.project} failed: ${e instanceof Error ? e.message : String(e)}`);
        this.connection.reportFailure(e);
        this.failed.fire({ project: this.project, error: e });
      } finally {
        if (generation === this.generation) {
          this._loading = undefined;
          this.abort = undefined;
          this.changed.fire();
        }
      }
    })();
    this._loading = load;
    this.changed.fire();
    return load;
  }
}
