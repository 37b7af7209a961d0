/**
 * The one presenter of errors: every failure a user can see reaches them here, in one voice. It
 * logs the failure, shows the message (which names the host, file, line or field at fault) and
 * offers the actions that help: Retry when the caller can run it again, Sign In after a 401/403,
 * the fix an error names itself (Review Key Use, Select Project, …), Open Settings when the
 * service cannot be reached or is not usable, and Show Log. Models and services never talk to the
 * user: they throw, return or fire events, and this (or a feature's manager) shows the outcome.
 *
 * Commands registered through ui/commands.ts hand it whatever they throw: a user's click
 * gets the notification, a scripted call (an arguments object) gets a rejection with the same
 * readable message and no notification.
 */
import * as vscode from 'vscode';
import { AuthenticationError, CancelledError, ConfigurationError, NetworkError, SvcError, ValidationError, type ErrorFix } from '../api';
import type { Logger } from './logger';

export interface ShowErrorOptions {
  /** Offers "Retry", which runs this (for operations that are safe to run again). */
  retry?: () => unknown;
  /** More buttons, before "Show Log". */
  actions?: ErrorFix[];
}

/**
 * The two messages the presenter shows: ui/prompts.ts's Prompts is one (VS Code's window in the
 * extension, a scripted object in a unit test). Declared here, below ui in the folder order.
 */
export interface Messages {
  showErrorMessage(message: string, ...items: string[]): Thenable<string | undefined>;
  showErrorMessage(message: string, options: { modal?: boolean; detail?: string }, ...items: string[]): Thenable<string | undefined>;
  showWarningMessage(message: string, ...items: string[]): Thenable<string | undefined>;
  showWarningMessage(message: string, options: { modal?: boolean; detail?: string }, ...items: string[]): Thenable<string | undefined>;
}

export class ErrorPresenter {
  constructor(
    private readonly log: Logger,
    private readonly messages: Messages,
  ) {}

  /** Text for an error, as shown to users (secrets redacted). */
  describe(error: unknown): string {
    if (error instanceof ValidationError && error.issues.length > 0 && error.source === 'server') {
      const issues = error.issues.slice(0, 5).map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
      return this.log.redact(`${error.message.split(':')[0]}: ${issues}`);
    }
    if (error instanceof Error) return this.log.redact(error.message);
    return this.log.redact(String(error));
  }

  /**
   * The next step for an error, when the user can take one: sign in after a 401/403, the fix the
   * error names itself, check the service URL when it cannot be reached or is not usable.
   */
  nextStep(error: unknown): ErrorFix | undefined {
    if (error instanceof AuthenticationError) return { title: 'Sign In', command: 'svc.signIn' };
    const fix = fixOf(error);
    if (fix) return fix;
    const unreachable = error instanceof NetworkError && error.beforeSend && !error.timeout;
    if (error instanceof ConfigurationError || unreachable) {
      return { title: 'Open Settings', command: 'workbench.action.openSettings', args: 'svc.baseUrl' };
    }
    return undefined;
  }

  /** Logs and shows an error with its next step, Retry when given, and Show Log; nothing for cancellations. */
  async show(error: unknown, context?: string, options: ShowErrorOptions = {}): Promise<void> {
    if (error instanceof CancelledError) return;
    const text = context ? `${context}: ${this.describe(error)}` : this.describe(error);
    this.log.error(text);
    const step = this.nextStep(error);
    const actions = [...(step ? [step] : []), ...(options.actions ?? [])];
    await this.ask((t, ...items) => this.messages.showErrorMessage(t, ...items), text, actions, options.retry);
  }

  /**
   * A failure or refusal whose text the caller composed (an outcome with its counts, a summary of
   * a file's problems): logged and shown in the same voice, with the caller's actions and Show Log.
   */
  async showMessage(text: string, options: { actions?: ErrorFix[]; warning?: boolean } = {}): Promise<void> {
    const redacted = this.log.redact(text);
    if (options.warning) this.log.warn(redacted);
    else this.log.error(redacted);
    await this.ask((t, ...items) => (options.warning ? this.messages.showWarningMessage(t, ...items) : this.messages.showErrorMessage(t, ...items)), redacted, options.actions ?? [], undefined);
  }

  /**
   * A failed sign-in noticed by a request (the Connection's `authFailed` change): offers to sign
   * in again, once per failure of a working sign-in (the Connection fires once per transition).
   */
  async offerSignInAgain(error: AuthenticationError): Promise<void> {
    const text = `svc: ${this.describe(error)}`;
    this.log.error(text);
    await this.ask((t, ...items) => this.messages.showErrorMessage(t, ...items), text, [{ title: 'Sign In Again', command: 'svc.signIn' }], undefined, false);
  }

  /**
   * The failure of a scripted command call, as its rejection: the same readable, redacted message
   * the notification would show (logged, never shown). Not an Error becomes one.
   */
  rejection(error: unknown, command: string): Error {
    const text = this.describe(error);
    if (!(error instanceof CancelledError)) this.log.warn(`${command} (scripted) failed: ${text}`);
    if (!(error instanceof Error)) return new SvcError(text);
    if (error.message !== text) error.message = text;
    return error;
  }

  private async ask(
    show: (text: string, ...items: string[]) => Thenable<string | undefined>,
    text: string,
    actions: ErrorFix[],
    retry: (() => unknown) | undefined,
    showLog = true,
  ): Promise<void> {
    const buttons = [...(retry ? ['Retry'] : []), ...actions.map((a) => a.title), ...(showLog ? ['Show Log'] : [])];
    const choice = await show(text, ...buttons);
    try {
      if (choice === 'Retry') await retry?.();
      else if (choice === 'Show Log') this.log.channel.show(true);
      else {
        const action = actions.find((a) => a.title === choice);
        if (action) await vscode.commands.executeCommand(action.command, ...(action.args !== undefined ? [action.args] : []));
      }
    } catch (e) {
      // What the button ran failed (a scripted re-run rejects): shown like any failure.
      await this.show(e);
    }
  }
}

function fixOf(error: unknown): ErrorFix | undefined {
  const fix = error instanceof SvcError ? error.fix : undefined;
  return fix && typeof fix.title === 'string' && typeof fix.command === 'string' ? fix : undefined;
}
