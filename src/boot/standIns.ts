/**
 * Stand-ins VS Code talks to before the rest of the extension is loaded: a tree data provider, a
 * custom editor provider and a webview panel serializer that load the core on their first call and
 * then pass every call on to the real object. Imports nothing but `vscode` and the Disposable base
 * (common/disposable.ts, a few hundred bytes), so the activation bundle stays small.
 */
import * as vscode from 'vscode';
import { Disposable } from '../common/disposable';

/** Loads the core once (every caller awaits the same promise). */
export type Load = () => Promise<unknown>;

/** A tree view's data provider until the core hands over its own. */
export class LazyTree<T> extends Disposable implements vscode.TreeDataProvider<T> {
  private target: vscode.TreeDataProvider<T> | undefined;
  private forward: vscode.Disposable | undefined;
  private readonly changed = this._register(new vscode.EventEmitter<T | T[] | undefined | null | void>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly load: Load) {
    super();
    // The real provider's forwarding: replaced on each attach, gone with the stand-in.
    this._register({
      dispose: () => {
        this.forward?.dispose();
      },
    });
  }

  /** The real provider: from now on every call goes to it, and its change events come through here. */
  attach(target: vscode.TreeDataProvider<T>): void {
    this.forward?.dispose();
    this.target = target;
    this.forward = target.onDidChangeTreeData?.((e) => this.changed.fire(e));
    this.changed.fire();
  }

  getTreeItem(element: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    // Elements come only from the real provider's getChildren, so it is there.
    return this.real().getTreeItem(element);
  }

  async getChildren(element?: T): Promise<T[] | null | undefined> {
    if (!this.target) await this.load();
    return this.real().getChildren(element);
  }

  getParent(element: T): vscode.ProviderResult<T> {
    return this.target?.getParent?.(element);
  }

  resolveTreeItem(item: vscode.TreeItem, element: T, token: vscode.CancellationToken): vscode.ProviderResult<vscode.TreeItem> {
    const target = this.target;
    return target?.resolveTreeItem ? target.resolveTreeItem(item, element, token) : item;
  }

  private real(): vscode.TreeDataProvider<T> {
    if (!this.target) throw new Error('svc: the view was asked for an item before the extension finished loading');
    return this.target;
  }
}

/** Holds a real object that arrives when the core is loaded. */
export class Pending<T> {
  private value: T | undefined;
  constructor(
    private readonly load: Load,
    private readonly what: string,
  ) {}

  set(value: T): void {
    this.value = value;
  }

  async get(): Promise<T> {
    if (!this.value) await this.load();
    if (!this.value) throw new Error(`svc: the ${this.what} did not start (see the svc log)`);
    return this.value;
  }
}
