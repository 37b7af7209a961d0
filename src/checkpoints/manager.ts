/**
 * The Checkpoints view's flows, for its commands (commands.ts parses arguments and asks, then
 * calls here): add a model (checked with one request first), remove one, refresh, the order. The
 * one place of this feature that talks to the service and writes svc.models.
 */
import type * as vscode from 'vscode';
import { InputError, NotFoundError } from '../api';
import { writeSetting, type SettingsScope } from '../common/config';
import { forgetRecent, pickScope, pushRecent, recent, refusedByService, RECENT_MODELS } from '../common/pick';
import type { Invocation } from '../ui/commands';
import type { Prompts } from '../ui/prompts';
import type { Connection } from '../service/connection';
import type { CheckpointsModel } from './model';

export class CheckpointsManager {
  constructor(
    readonly model: CheckpointsModel,
    private readonly connection: Connection,
    /** The recent models live here. */
    private readonly globalState: vscode.Memento,
    /** Where "save in user or workspace settings?" is asked. */
    private readonly prompts: Pick<Prompts, 'showQuickPick'>,
  ) {}

  /** The recent models not in the view: Add Model's pick offers them. */
  recentToAdd(): string[] {
    return recent(this.globalState, RECENT_MODELS).filter((m) => !this.model.models.includes(m));
  }

  /** Loads `id` again (or, without one, empties the view: it reloads as shown). */
  refresh(how: Invocation, id: string | undefined): Promise<void> | undefined {
    this.model.reset(id);
    return id ? this.model.loadMore(id, how) : undefined;
  }

  /**
   * Adds `id` to svc.models (in `scope`, else asked when the user runs it, user settings when
   * scripted), once the service has not refused it (404: out of the recent models, refused).
   */
  async addModel(how: Invocation, id: string, scope?: SettingsScope): Promise<void> {
    if (!id) throw new InputError('The model id is empty.');
    if (this.model.models.includes(id)) return;
    let checked: { empty: boolean } | undefined;
    try {
      checked = await this.checkModel(how, id);
    } catch (e) {
      // Refused (an unknown model): out of the recent list; the presenter or the script's rejection says why.
      await forgetRecent(this.globalState, RECENT_MODELS, id);
      throw e;
    }
    if (!(await this.saveModels(how, [...this.model.models, id], scope))) return;
    await pushRecent(this.globalState, RECENT_MODELS, id);
    if (checked?.empty) this.model.knownEmpty(id);
  }

  /** Removes `id` from svc.models; an unknown model (its error, an upload's 404) leaves the recent models too. */
  async removeModel(how: Invocation, id: string, options: { scope?: SettingsScope; unknownModel?: boolean } = {}): Promise<void> {
    if (options.unknownModel || refusedByService(this.model.state(id).error)) await forgetRecent(this.globalState, RECENT_MODELS, id);
    if (!this.model.models.includes(id)) return;
    await this.saveModels(
      how,
      this.model.models.filter((m) => m !== id),
      options.scope,
    );
  }

  /** `host[:port]` of the model endpoints, for messages. */
  private trainingHost(): string {
    try {
      return new URL(this.connection.config.trainingBaseUrl || this.connection.config.baseUrl).host;
    } catch {
      return 'the service';
    }
  }

  /**
   * Add Model's check: one checkpoints request with a page size of 1. An unknown model (404) is
   * refused with a message naming the model and the host; `empty` when it has no checkpoints yet.
   * Any other failure (no key yet, network, 5xx) does not block adding it: the view shows it.
   */
  private async checkModel(how: Invocation, modelId: string): Promise<{ empty: boolean } | undefined> {
    const client = this.connection.client;
    if (!client || !this.model.ready) return undefined;
    try {
      if (how.interactive) await this.connection.prepare('training');
      const page = await client.models.listCheckpoints(modelId, { limit: 1 });
      return { empty: page.data.length === 0 && !page.has_more };
    } catch (e) {
      if (e instanceof NotFoundError) throw new InputError(`${this.trainingHost()} has no model "${modelId}" (404): check the id; it was not added.`, { field: 'modelId' });
      return undefined;
    }
  }

  /** Writes svc.models where the user chose (asked when run from the UI; `scope` or user settings when scripted). */
  private async saveModels(how: Invocation, models: string[], requested: SettingsScope | undefined): Promise<boolean> {
    const scope = requested ?? (how.interactive ? await pickScope('models', this.prompts) : 'user');
    if (!scope) return false;
    // A setting that cannot be written is the presenter's to show (or the scripted caller's rejection).
    await writeSetting('models', models, scope);
    return true;
  }
}
