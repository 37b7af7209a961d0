/**
 * Scripted stand-ins for the narrow interfaces the managers take (src/ui/prompts.ts): typed by
 * them, so a window call a manager starts making is a type error here, not a silent gap. A test
 * scripts the answers (messages' buttons, the open and save dialogs, Cancel on a progress) and
 * reads what was shown. Quick picks and input boxes are not scripted: a flow under test that
 * reaches one throws, naming it.
 */
import type * as vscode from 'vscode';
import type { ContextKeys, Prompts } from '../../src/ui/prompts';

/** A message the manager showed, and how. */
export interface ShownMessage {
  severity: 'error' | 'warning' | 'information';
  message: string;
  modal: boolean;
  items: string[];
}

type MessageOptions = { modal?: boolean; detail?: string };

/** A progress notification's token: `cancel()` presses its Cancel button. */
class Cancellation {
  private readonly listeners = new Set<() => unknown>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: (listener: () => unknown) => {
      this.listeners.add(listener);
      return { dispose: () => this.listeners.delete(listener) };
    },
  } as unknown as vscode.CancellationToken & { isCancellationRequested: boolean };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    for (const l of [...this.listeners]) l();
  }
}

export class ScriptedPrompts implements Prompts {
  /** Every message shown; a message's answer is the next of `answers` (undefined: dismissed). */
  shown: ShownMessage[] = [];
  answers: (string | undefined)[] = [];
  /** What the open dialog returns (undefined: closed), and how often it opened. */
  openDialogAnswer: vscode.Uri[] | undefined;
  openDialogs = 0;
  /** What the save dialog returns (undefined: closed). */
  saveDialogAnswer: vscode.Uri | undefined;
  /** Progress notifications open now, and the titles of all shown. */
  private readonly progress = new Set<Cancellation>();
  progressTitles: string[] = [];
  /** Status bar messages. */
  statusMessages: string[] = [];

  showErrorMessage(message: string, ...rest: (string | MessageOptions)[]): Thenable<string | undefined> {
    return this.show('error', message, rest);
  }
  showWarningMessage(message: string, ...rest: (string | MessageOptions)[]): Thenable<string | undefined> {
    return this.show('warning', message, rest);
  }
  showInformationMessage(message: string, ...rest: (string | MessageOptions)[]): Thenable<string | undefined> {
    return this.show('information', message, rest);
  }
  showQuickPick(items: readonly string[], options?: vscode.QuickPickOptions): Thenable<string | undefined>;
  showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[], options?: vscode.QuickPickOptions): Thenable<T | undefined>;
  showQuickPick(_items: readonly unknown[], options?: vscode.QuickPickOptions): Thenable<unknown> {
    throw new Error(`ScriptedPrompts: a quick pick ("${options?.title ?? ''}") is not scripted`);
  }
  showInputBox(options?: vscode.InputBoxOptions): Thenable<string | undefined> {
    throw new Error(`ScriptedPrompts: an input box ("${options?.title ?? ''}") is not scripted`);
  }
  showOpenDialog(): Thenable<vscode.Uri[] | undefined> {
    this.openDialogs++;
    return Promise.resolve(this.openDialogAnswer);
  }
  showSaveDialog(): Thenable<vscode.Uri | undefined> {
    return Promise.resolve(this.saveDialogAnswer);
  }
  async withProgress<R>(title: string, task: (progress: vscode.Progress<{ message?: string; increment?: number }>, token: vscode.CancellationToken) => Thenable<R>): Promise<R> {
    const cancellation = new Cancellation();
    this.progress.add(cancellation);
    this.progressTitles.push(title);
    try {
      return await task({ report() {} }, cancellation.token);
    } finally {
      this.progress.delete(cancellation);
    }
  }
  setStatusBarMessage(text: string): vscode.Disposable {
    this.statusMessages.push(text);
    return { dispose() {} };
  }

  /** Presses Cancel on every progress notification open now. */
  cancelProgress(): void {
    for (const p of this.progress) p.cancel();
  }

  /** The messages shown so far, as text. */
  messages(severity?: ShownMessage['severity']): string[] {
    return this.shown.filter((m) => !severity || m.severity === severity).map((m) => m.message);
  }

  private show(severity: ShownMessage['severity'], message: string, rest: (string | MessageOptions)[]): Promise<string | undefined> {
    const options = typeof rest[0] === 'object' ? (rest.shift() as MessageOptions) : {};
    const items = rest as string[];
    this.shown.push({ severity, message, modal: !!options.modal, items });
    const answer = this.answers.shift();
    return Promise.resolve(answer !== undefined && items.includes(answer) ? answer : undefined);
  }
}

/** Context keys as set, by name. */
export class ScriptedContextKeys implements ContextKeys {
  readonly values = new Map<string, unknown>();
  set(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
  get(key: string): unknown {
    return this.values.get(key);
  }
}
