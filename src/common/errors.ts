import * as vscode from 'vscode';
import { AuthenticationError, CancelledError, ConfigurationError, NetworkError, ValidationError } from '../api';
import type { Logger } from './logger';

/** A button that fixes an error: the command it runs, with its one argument if any. */
export interface ErrorAction {
  title: string;
  command: string;
  args?: unknown;
}

/** The command that fixes an error, when the error names one (e.g. a key use not approved yet). */
export type ErrorFix = ErrorAction;

export interface ShowErrorOptions {
  /** Offers "Retry", which runs this (for operations that are safe to run again). */
  retry?: () => unknown;
  /** More buttons, before "Show Log". */
  actions?: ErrorAction[];
}

/** One way every command renders an error: log it, show it, and offer the fix when there is one. */
export class ErrorReporter {
  constructor(private readonly log: Logger) {}

  /** Text for an error, as shown to users. */
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
  nextStep(error: unknown): ErrorAction | undefined {
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
    const buttons = [...(options.retry ? ['Retry'] : []), ...actions.map((a) => a.title), 'Show Log'];
    const choice = await vscode.window.showErrorMessage(text, ...buttons);
    if (choice === 'Retry') await options.retry?.();
    else if (choice === 'Show Log') this.log.channel.show(true);
    else {
      const action = actions.find((a) => a.title === choice);
      if (action) await vscode.commands.executeCommand(action.command, ...(action.args !== undefined ? [action.args] : []));
    }
  }
}

function fixOf(error: unknown): ErrorFix | undefined {
  const fix = (error as { fix?: Partial<ErrorFix> } | undefined)?.fix;
  return fix && typeof fix.title === 'string' && typeof fix.command === 'string' ? { title: fix.title, command: fix.command } : undefined;
}
