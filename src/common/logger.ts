import * as vscode from 'vscode';
import type { RequestLogEvent } from '../api';
import { redactSecrets } from './redact';
import { Disposable } from './disposable';

/**
 * The one logger: a LogOutputChannel named "svc" whose level the user controls. Every message
 * passes through `redact`, which removes any secret currently known to the credential manager,
 * as a second line of defence behind never logging headers.
 */
export class Logger extends Disposable {
  readonly channel: vscode.LogOutputChannel;
  private secrets: () => string[] = () => [];

  constructor(name = 'svc') {
    super();
    this.channel = this._register(vscode.window.createOutputChannel(name, { log: true }));
  }

  /** Tells the logger which secrets to scrub; called with a live getter. */
  setSecretSource(source: () => string[]): void {
    this.secrets = source;
  }

  redact(text: string): string {
    return redactSecrets(text, this.secrets());
  }

  info(message: string): void {
    this.channel.info(this.redact(message));
  }
  warn(message: string): void {
    this.channel.warn(this.redact(message));
  }
  debug(message: string): void {
    this.channel.debug(this.redact(message));
  }
  error(message: string | Error): void {
    const text = message instanceof Error ? `${message.name}: ${message.message}` : message;
    this.channel.error(this.redact(text));
  }

  /** Logs one HTTP attempt: method, path, status, duration, attempt. */
  request(event: RequestLogEvent): void {
    const status = event.status !== undefined ? String(event.status) : 'no response';
    const retry = event.retryInMs !== undefined ? `; retrying in ${event.retryInMs} ms` : '';
    const line = `${event.method} ${event.path} -> ${status} in ${event.durationMs} ms (attempt ${event.attempt})${event.error ? `: ${event.error}` : ''}${retry}`;
    if (event.error) this.warn(line);
    else this.info(line);
  }
}
