/**
 * The walkthrough's ticks. VS Code's walkthrough service starts lazily (when a walkthrough or the
 * Welcome page first opens) and credits an `onContext:` completion event only when a context key
 * changes after that: a key that was already true when it started is recorded and never credited,
 * so a user who set everything up before opening the walkthrough saw 0 of 5 steps done.
 *
 * The steps complete on keys of their own (`svc.walkthrough.*`, so no welcome view flickers), which
 * follow the connection's keys and are re-fired (false, then their value) when a Welcome or
 * walkthrough tab opens, and once after activation for one restored at startup.
 */
import * as vscode from 'vscode';
import { background } from '../common/background';

/** The connection's context key → the walkthrough's completion key. */
export const WALKTHROUGH_KEYS: Readonly<Record<string, string>> = {
  'svc.hasBaseUrl': 'svc.walkthrough.hasBaseUrl',
  'svc.signedIn': 'svc.walkthrough.signedIn',
  'svc.hasProject': 'svc.walkthrough.hasProject',
  'svc.hasModels': 'svc.walkthrough.hasModels',
};

/** The welcome page and walkthroughs are workbench editors: no API input, a label that names them. */
export function isWalkthroughTab(tab: vscode.Tab): boolean {
  return tab.input === undefined && /welcome|walkthrough|get started/i.test(tab.label);
}

const setContext = (key: string, value: boolean) => vscode.commands.executeCommand('setContext', key, value);

export class WalkthroughTicks implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  /** `keys` reads the connection's context keys as last set. */
  constructor(private readonly keys: () => Readonly<Record<string, boolean>>) {
    this.subscriptions.push(
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        if (e.opened.some(isWalkthroughTab)) this.refireSoon();
      }),
    );
    this.refireSoon();
  }

  /** Sets the walkthrough keys to the connection's values (a change VS Code credits when it is watching). */
  async sync(): Promise<void> {
    const keys = this.keys();
    await Promise.all(Object.entries(WALKTHROUGH_KEYS).map(([from, to]) => setContext(to, keys[from] === true)));
  }

  /** Turns every true walkthrough key false and back: the walkthrough service sees each one change. */
  async refire(): Promise<void> {
    const keys = this.keys();
    const on = Object.entries(WALKTHROUGH_KEYS).filter(([from]) => keys[from] === true);
    await Promise.all(on.map(([, to]) => setContext(to, false)));
    await this.sync();
  }

  /** Now and a moment later: the service starts as the walkthrough's editor resolves. */
  private refireSoon(): void {
    background(this.refire(), 'Re-firing the walkthrough keys');
    const t = setTimeout(() => {
      this.timers.delete(t);
      background(this.refire(), 'Re-firing the walkthrough keys');
    }, 1500);
    this.timers.add(t);
  }

  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of this.subscriptions) s.dispose();
  }
}
