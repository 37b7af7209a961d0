import * as vscode from 'vscode';
import type { Checkpoint, CheckpointOrder } from '../api';

/** workspaceState key of the checkpoint order: view state, never a setting. */
export const ORDER_KEY = 'svc.checkpoints.order';
import { Disposable } from '../common/disposable';
import type { Invocation } from '../ui/commands';
import type { Logger } from '../common/logger';
import { configChanged } from '../common/config';
import type { Connection } from '../service/connection';

export interface ModelCheckpoints {
  modelId: string;
  items: Checkpoint[];
  hasMore: boolean;
  loaded: boolean;
  error?: unknown;
  loading?: Promise<void>;
}

/**
 * Checkpoints of each model in `svc.models`, paged by cursor (`after = last_id`). State only.
 * Like the threads model, a reset bumps the generation and aborts every load in flight.
 */
export class CheckpointsModel extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<string | undefined>());
  /** Fires with a model id when only that model changed, undefined when all did. */
  readonly onDidChange = this.changed.event;

  private states = new Map<string, ModelCheckpoints>();
  private aborts = new Set<AbortController>();
  private generation = 0;
  /** Models Add Model found empty, shown as such once svc.models lists them (see knownEmpty). */
  private readonly foundEmpty = new Set<string>();

  constructor(
    private readonly connection: Connection,
    private readonly log: Logger,
    private readonly viewState: vscode.Memento,
  ) {
    super();
    // Another client, key or project drops what is loaded; of the settings, only a real change of
    // models or page size does, and another metric in the rows only re-renders.
    this._register(
      connection.onDidChange(({ data, config }) => {
        if (data || (config && configChanged(config, ['models', 'checkpointsPageSize']))) this.reset();
        else if (config && configChanged(config, ['checkpointsMetric'])) this.changed.fire(undefined);
      }),
    );
  }

  get models(): string[] {
    return this.connection.config.models;
  }
  /** svc.checkpoints.metric: the metric the rows show; empty for the first reward-like one. */
  get metric(): string {
    return this.connection.config.checkpointsMetric;
  }
  get order(): CheckpointOrder {
    return this.viewState.get(ORDER_KEY) === 'asc' ? 'asc' : 'desc';
  }

  /** Orders every model's checkpoints (kept in workspaceState) and reloads. */
  async setOrder(order: CheckpointOrder): Promise<void> {
    await this.viewState.update(ORDER_KEY, order);
    this.reset();
  }
  get ready(): boolean {
    return !!this.connection.client && this.connection.state !== 'signedOut';
  }

  state(modelId: string): ModelCheckpoints {
    let s = this.states.get(modelId);
    if (!s) {
      s = { modelId, items: [], hasMore: false, loaded: false };
      this.states.set(modelId, s);
    }
    return s;
  }

  reset(modelId?: string): void {
    this.generation++;
    for (const a of this.aborts) a.abort();
    this.aborts.clear();
    if (modelId) {
      this.states.delete(modelId);
      // Loads of other models were aborted too: forget their in-flight promises.
      for (const s of this.states.values()) s.loading = undefined;
    } else {
      this.states.clear();
    }
    this.applyFoundEmpty();
    this.changed.fire(undefined);
  }

  /**
   * Add Model's check found no checkpoints: the model's node says "no checkpoints yet" without
   * another request. The setting it was just written to may reach us before or after this call.
   */
  knownEmpty(modelId: string): void {
    this.foundEmpty.add(modelId);
    if (this.applyFoundEmpty()) this.changed.fire(modelId);
  }

  private applyFoundEmpty(): boolean {
    let applied = false;
    for (const id of this.foundEmpty) {
      if (!this.models.includes(id)) continue;
      this.foundEmpty.delete(id);
      const s = this.state(id);
      if (s.loaded || s.loading || s.error !== undefined) continue;
      s.loaded = true;
      applied = true;
    }
    return applied;
  }

  /**
   * Shows checkpoints found elsewhere (a training dashboard's poll) in the loaded pages: at the
   * top when newest come first, at the end when oldest come first and the end is loaded. Nothing
   * changes for a model not loaded yet: its first page will have them.
   */
  addFound(modelId: string, found: readonly Checkpoint[]): void {
    const s = this.states.get(modelId);
    if (!s?.loaded || s.loading || found.length === 0) return;
    const seen = new Set(s.items.map((c) => c.id));
    const fresh = found.filter((c) => !seen.has(c.id)).sort((a, b) => a.step - b.step);
    if (fresh.length === 0) return;
    if (this.order === 'desc') s.items.unshift(...fresh.reverse());
    else if (!s.hasMore) s.items.push(...fresh);
    else return;
    this.changed.fire(modelId);
  }

  /**
   * Resolves once `modelId` is settled: its first page loaded, failed, or nothing can load (no
   * client, signed out). Starts the first load when nothing is loaded yet (`how`: whether it may
   * ask questions). A reset or a new load while waiting is waited for too, so the state afterwards
   * reflects every change made meanwhile. This is the one thing the tree awaits before it answers.
   */
  async whenSettled(modelId: string, how?: Invocation): Promise<void> {
    for (;;) {
      if (!this.ready) return;
      const s = this.state(modelId);
      if (s.loading) await s.loading;
      else if (!s.loaded && s.error === undefined) await this.loadMore(modelId, how);
      else return;
    }
  }

  ensureLoaded(modelId: string, how?: Invocation): Promise<void> {
    const s = this.state(modelId);
    if (s.loaded || s.error !== undefined) return s.loading ?? Promise.resolve();
    return this.loadMore(modelId, how);
  }

  /**
   * Loads the next page of one model; a second call while loading returns the same load. A user's
   * action (`how.interactive`) may be asked first whether the key may go to the model endpoints.
   */
  loadMore(modelId: string, how?: Invocation): Promise<void> {
    const s = this.state(modelId);
    if (s.loading) return s.loading;
    const client = this.connection.client;
    if (!client || !this.ready) return Promise.resolve();
    const generation = this.generation;
    const abort = new AbortController();
    this.aborts.add(abort);
    s.error = undefined;
    const after = s.items.at(-1)?.id;
    const load = (async () => {
      try {
        if (how?.interactive) await this.connection.prepare('training');
        if (generation !== this.generation) return;
        const page = await client.models.listCheckpoints(
          modelId,
          { after, limit: this.connection.config.checkpointsPageSize, order: this.order },
          { signal: abort.signal },
        );
        if (generation !== this.generation) return;
        const seen = new Set(s.items.map((c) => c.id));
        let added = 0;
        for (const c of page.data) {
          if (seen.has(c.id)) continue;
          seen.add(c.id);
          s.items.push(c);
          added++;
        }
        // A page with nothing new would make "Load more" ask for the same cursor forever.
        s.hasMore = page.has_more && added > 0;
        s.loaded = true;
      } catch (e) {
        if (generation !== this.generation) return;
        s.error = e;
        this.log.error(`Loading checkpoints of ${modelId} failed: ${e instanceof Error ? e.message : String(e)}`);
        this.connection.reportFailure(e);
      } finally {
        this.aborts.delete(abort);
        if (generation === this.generation) {
          s.loading = undefined;
          this.changed.fire(modelId);
        }
      }
    })();
    s.loading = load;
    this.changed.fire(modelId);
    return load;
  }
}
