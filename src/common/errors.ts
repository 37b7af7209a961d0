import * as vscode from 'vscode';
import { AuthenticationError, CancelledError, ValidationError } from '../api';
import type { Logger } from './logger';

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

  /** Logs and shows an error; returns without a message for cancellations. */
  async show(error: unknown, context?: string): Promise<void> {
    if (error instanceof CancelledError) return;
    const text = context ? `${context}: ${this.describe(error)}` : this.describe(error);
    this.log.error(text);
    if (error instanceof AuthenticationError) {
      const choice = await vscode.window.showErrorMessage(text, 'Sign In', 'Show Log');
      if (choice === 'Sign In') await vscode.commands.executeCommand('svc.signIn');
      if (choice === 'Show Log') this.log.channel.show(true);
      return;
    }
    const fix = fixOf(error);
    const choice = await vscode.window.showErrorMessage(text, ...(fix ? [fix.title] : []), 'Show Log');
    if (fix && choice === fix.title) await vscode.commands.executeCommand(fix.command);
    if (choice === 'Show Log') this.log.channel.show(true);
  }
}

/** The command that fixes an error, when the error names one (e.g. a key use not approved yet). */
export interface ErrorFix {
  title: string;
  command: string;
}

function fixOf(error: unknown): ErrorFix | undefined {
  const fix = (error as { fix?: Partial<ErrorFix> } | undefined)?.fix;
  return fix && typeof fix.title === 'string' && typeof fix.command === 'string' ? { title: fix.title, command: fix.command } : undefined;
}
