/**
 * The one contract between the composition root (src/extension.ts) and a feature: each feature
 * folder exports one `activate…(deps)` that takes `FeatureDeps` plus what it needs of other features
 * (narrow interfaces, passed in), builds its models, providers, panels and commands, and returns a
 * `Feature`: the objects the other features and the in-host tests use, and what to dispose.
 */
import type * as vscode from 'vscode';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Commands } from '../ui/commands';
import type { ContextKeys, Prompts } from '../ui/prompts';
import type { Connection } from './connection';

/** The slice of vscode.ExtensionContext the features use (state and folders; never the secrets). */
export type FeatureStorage = Pick<vscode.ExtensionContext, 'globalState' | 'workspaceState' | 'extensionUri' | 'globalStorageUri'>;

/** What the composition root passes every feature, besides that feature's own dependencies. */
export interface FeatureDeps {
  /** Registers a command: its failures reach the user through `errors`. */
  readonly commands: Commands;
  /** The one presenter of failures. */
  readonly errors: ErrorPresenter;
  readonly log: Logger;
  /** The service: settings, credentials, the client. */
  readonly connection: Connection;
  readonly storage: FeatureStorage;
  /** The window's messages, picks, input boxes, dialogs and progress (never vscode.window directly in a manager). */
  readonly prompts: Prompts;
  /** `when`-clause context keys. */
  readonly contextKeys: ContextKeys;
}

/** What every activate…(deps) returns. */
export interface Feature<Api = undefined> {
  /** What the other features and the in-host tests use. */
  readonly api: Api;
  /** Disposed when the extension stops, in the order given (VS Code disposes context.subscriptions first to last). */
  readonly disposables: readonly vscode.Disposable[];
}

export function feature<Api>(api: Api, disposables: vscode.Disposable[]): Feature<Api> {
  return { api, disposables };
}
