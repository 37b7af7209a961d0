/**
 * The walkthrough's ticks. VS Code's walkthrough service starts lazily (when a walkthrough or the
 * Welcome page first opens). An `onContext:` completion event whose expression is already true when
 * it starts is recorded as seen and never credited, and a later change does not credit it either: a
 * user who set everything up before opening the walkthrough saw 0 of 5 steps done.
 *
 * So the steps complete on keys of their own (`svc.walkthrough.*`, no welcome view depends on
 * them), which stay false until a walkthrough or Welcome tab is open (the service has started, and
 * seen them false); then they are set to the connection's values a moment later, and follow them.
 */
import * as vscode from 'vscode';
import { background } from '../common/background';
import { Disposable } from '../common/disposable';

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

/** How long after the tab opens the keys turn true: the service registers the walkthroughs as it starts. */
const SETTLE_MS = 1000;

export class WalkthroughTicks extends Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private watching = false;

  /** `keys` reads the connection's context keys as last set; `onDidSetKeys` fires when they are set. */
  constructor(
    private readonly keys: () => Readonly<Record<string, boolean>>,
    onDidSetKeys: vscode.Event<unknown>,
  ) {
    super();
    this._register(
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        if (e.opened.some(isWalkthroughTab)) this.watchSoon();
      }),
    );
    this._register(onDidSetKeys(() => this.watching && background(this.sync(), 'Setting the walkthrough keys')));
    this._register({ dispose: () => this.timer && clearTimeout(this.timer) });
    // A Welcome page or walkthrough restored at startup.
    if (vscode.window.tabGroups.all.some((g) => g.tabs.some(isWalkthroughTab))) this.watchSoon();
  }

  /** Sets the walkthrough keys to the connection's values. */
  async sync(): Promise<void> {
    const keys = this.keys();
    await Promise.all(Object.entries(WALKTHROUGH_KEYS).map(([from, to]) => vscode.commands.executeCommand('setContext', to, keys[from] === true)));
  }

  private watchSoon(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.watching = true;
      background(this.sync(), 'Setting the walkthrough keys');
    }, SETTLE_MS);
  }
}
