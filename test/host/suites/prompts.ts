// Drives the extension's interactive prompts from a test, the way a user answers them: a script of
// answers for quick picks, input boxes and open dialogs, taken in order, and rules for the buttons
// of notifications. The host suites share the extension's `vscode` API object, so replacing the
// window functions here is what the extension calls. Every prompt and message shown is recorded.
//
// An input box step also proves its validation: each `invalid` value must be refused by the box's
// validateInput (an error, not an info), and the typed value must be accepted, exactly as the
// real box would refuse to close.
import * as assert from 'assert';
import * as vscode from 'vscode';

type Matcher = string | RegExp;

export type Step =
  /** showQuickPick / createQuickPick: accept the item whose label (codicons stripped) matches. */
  | { pick: Matcher; title?: Matcher }
  /** showInputBox (or typing into createQuickPick): refuse every `invalid`, then accept `type`. */
  | { type: string; invalid?: string[]; title?: Matcher }
  /** Any prompt: close it (Escape). */
  | { cancel: true; title?: Matcher }
  /** showOpenDialog: these files. */
  | { open: vscode.Uri[] };

export interface Shown {
  kind: 'error' | 'warning' | 'info' | 'quickPick' | 'inputBox' | 'openDialog';
  title: string;
  /** Item labels of a pick, button titles of a message. */
  items: string[];
  /** Item descriptions of a pick ('' for an item without one). */
  descriptions?: string[];
  /** An input box's initial value. */
  value?: string;
  /** Validation messages of the invalid values tried, in order. */
  refusals?: string[];
  /** Where an open dialog starts. */
  defaultUri?: string;
  /** A message shown as a modal dialog, and its detail text. */
  modal?: boolean;
  detail?: string;
}

const plain = (label: string) => label.replace(/\$\([\w~-]+\)\s*/g, '').trim();
const matches = (m: Matcher, text: string) => (typeof m === 'string' ? plain(text) === m || text === m : m.test(text));

type Choice = string | ((text: string) => string | undefined | Promise<string | undefined>);

type Validation = string | vscode.InputBoxValidationMessage | undefined | null;

function errorOf(v: Validation): string | undefined {
  if (!v) return undefined;
  if (typeof v === 'string') return v;
  return v.severity === vscode.InputBoxValidationSeverity.Error ? v.message : undefined;
}

export class Prompts implements vscode.Disposable {
  readonly shown: Shown[] = [];
  private readonly steps: Step[] = [];
  private readonly rules: { when: RegExp; choose: Choice }[] = [];
  private readonly unexpected: string[] = [];
  private readonly restore: (() => void)[] = [];

  constructor() {
    const w = vscode.window as unknown as Record<string, unknown>;
    const patch = (name: string, fn: unknown) => {
      const original = w[name];
      w[name] = fn;
      this.restore.push(() => (w[name] = original));
    };
    patch('showQuickPick', (items: unknown, options?: vscode.QuickPickOptions) => this.quickPick(items, options));
    patch('showInputBox', (options?: vscode.InputBoxOptions) => this.inputBox(options ?? {}));
    patch('showOpenDialog', (options?: vscode.OpenDialogOptions) => this.openDialog(options ?? {}));
    patch('createQuickPick', () => this.fakeQuickPick());
    patch('showErrorMessage', (message: string, ...rest: unknown[]) => this.message('error', message, rest));
    patch('showWarningMessage', (message: string, ...rest: unknown[]) => this.message('warning', message, rest));
    patch('showInformationMessage', (message: string, ...rest: unknown[]) => this.message('info', message, rest));
  }

  /** Queues answers for the next prompts, in order. */
  script(...steps: Step[]): this {
    this.steps.push(...steps);
    return this;
  }

  /**
   * Presses `choose` on any notification whose text matches `when` (a function can act first,
   * as a user would edit a document before pressing Send, and returns the button or undefined).
   */
  answer(when: RegExp, choose: Choice): this {
    this.rules.push({ when, choose });
    return this;
  }

  /** The notifications shown, optionally of one kind. */
  messages(kind?: 'error' | 'warning' | 'info'): Shown[] {
    return this.shown.filter((s) => (kind ? s.kind === kind : s.kind === 'error' || s.kind === 'warning' || s.kind === 'info'));
  }

  /** The modal dialogs shown (questions that block until answered). */
  modals(): Shown[] {
    return this.shown.filter((s) => s.modal);
  }

  /** The prompts shown (picks, input boxes, dialogs). */
  prompts(): Shown[] {
    return this.shown.filter((s) => s.kind === 'quickPick' || s.kind === 'inputBox' || s.kind === 'openDialog');
  }

  /** Asserts every scripted answer was used and no prompt came unasked. */
  assertDone(): void {
    assert.deepStrictEqual(this.unexpected, [], 'prompts nobody scripted an answer for');
    assert.deepStrictEqual(this.steps, [], 'scripted answers no prompt asked for');
  }

  dispose(): void {
    for (const r of this.restore.splice(0).reverse()) r();
  }

  private next(kind: Shown['kind'], title: string): Step | undefined {
    const step = this.steps.shift();
    if (!step) {
      this.unexpected.push(`${kind}: ${title}`);
      return undefined;
    }
    if ('title' in step && step.title !== undefined) {
      assert.ok(matches(step.title, title), `expected a prompt titled ${String(step.title)}, got ${kind} "${title}"`);
    }
    return step;
  }

  private async quickPick(itemsOrPromise: unknown, options?: vscode.QuickPickOptions): Promise<unknown> {
    const raw = (await itemsOrPromise) as (string | vscode.QuickPickItem)[];
    const items = raw.filter((i) => typeof i === 'string' || i.kind !== vscode.QuickPickItemKind.Separator);
    const labelOf = (i: string | vscode.QuickPickItem) => (typeof i === 'string' ? i : i.label);
    const title = options?.title ?? options?.placeHolder ?? '';
    this.shown.push({ kind: 'quickPick', title, items: items.map(labelOf), descriptions: items.map((i) => (typeof i === 'string' ? '' : (i.description ?? ''))) });
    const step = this.next('quickPick', title);
    if (!step || 'cancel' in step) return undefined;
    assert.ok('pick' in step, `"${title}" is a quick pick, the script has ${JSON.stringify(step)}`);
    const item = items.find((i) => matches(step.pick, labelOf(i)));
    assert.ok(item, `"${title}" offers no ${String(step.pick)}: ${items.map(labelOf).join(' | ')}`);
    return options?.canPickMany ? [item] : item;
  }

  private async inputBox(options: vscode.InputBoxOptions): Promise<string | undefined> {
    const title = options.title ?? options.prompt ?? '';
    const shown: Shown = { kind: 'inputBox', title, items: [], value: options.value, refusals: [] };
    this.shown.push(shown);
    const step = this.next('inputBox', title);
    if (!step || 'cancel' in step) return undefined;
    assert.ok('type' in step, `"${title}" is an input box, the script has ${JSON.stringify(step)}`);
    const validate = async (v: string) => errorOf((await options.validateInput?.(v)) as Validation);
    for (const bad of step.invalid ?? []) {
      const refusal = await validate(bad);
      assert.ok(refusal, `"${title}" accepted ${JSON.stringify(bad)}`);
      shown.refusals!.push(refusal);
    }
    const refusal = await validate(step.type);
    assert.strictEqual(refusal, undefined, `"${title}" refused ${JSON.stringify(step.type)}`);
    return step.type;
  }

  private async openDialog(options: vscode.OpenDialogOptions): Promise<vscode.Uri[] | undefined> {
    const title = options.title ?? options.openLabel ?? '';
    this.shown.push({ kind: 'openDialog', title, items: Object.keys(options.filters ?? {}), ...(options.defaultUri ? { defaultUri: options.defaultUri.fsPath } : {}) });
    const step = this.next('openDialog', title);
    if (!step || 'cancel' in step) return undefined;
    assert.ok('open' in step, `"${title}" is an open dialog, the script has ${JSON.stringify(step)}`);
    return step.open;
  }

  /** The part of vscode.QuickPick the extension uses (pickOrType), answered from the script. */
  private fakeQuickPick(): vscode.QuickPick<vscode.QuickPickItem> {
    const changeValue = new vscode.EventEmitter<string>();
    const accept = new vscode.EventEmitter<void>();
    const hide = new vscode.EventEmitter<void>();
    const qp = {
      title: undefined as string | undefined,
      placeholder: undefined as string | undefined,
      value: '',
      items: [] as vscode.QuickPickItem[],
      selectedItems: [] as vscode.QuickPickItem[],
      activeItems: [] as vscode.QuickPickItem[],
      onDidChangeValue: changeValue.event,
      onDidAccept: accept.event,
      onDidHide: hide.event,
      show: () => setTimeout(() => drive(), 0),
      hide: () => hide.fire(),
      dispose: () => [changeValue, accept, hide].forEach((e) => e.dispose()),
    };
    const drive = () => {
      const title = qp.title ?? qp.placeholder ?? '';
      this.shown.push({ kind: 'quickPick', title, items: qp.items.map((i) => i.label), descriptions: qp.items.map((i) => i.description ?? '') });
      const step = this.next('quickPick', title);
      if (!step || 'cancel' in step) return qp.hide();
      if ('type' in step) {
        qp.value = step.type;
        changeValue.fire(step.type);
        const item = qp.items.find((i) => i.label === step.type.trim());
        qp.selectedItems = item ? [item] : [];
      } else {
        assert.ok('pick' in step, `"${title}" is a quick pick, the script has ${JSON.stringify(step)}`);
        const item = qp.items.find((i) => matches(step.pick, i.label));
        assert.ok(item, `"${title}" offers no ${String(step.pick)}: ${qp.items.map((i) => i.label).join(' | ')}`);
        qp.selectedItems = [item];
      }
      accept.fire();
    };
    return qp as unknown as vscode.QuickPick<vscode.QuickPickItem>;
  }

  private async message(kind: 'error' | 'warning' | 'info', text: string, rest: unknown[]): Promise<unknown> {
    // (message, ...items) or (message, options, ...items); items are strings or { title }.
    const items = rest.filter((r) => typeof r === 'string' || (typeof r === 'object' && r !== null && 'title' in r)) as (string | vscode.MessageItem)[];
    const titleOf = (i: string | vscode.MessageItem) => (typeof i === 'string' ? i : i.title);
    const options = rest.find((r): r is vscode.MessageOptions => typeof r === 'object' && r !== null && !('title' in r)) ?? {};
    this.shown.push({ kind, title: text, items: items.map(titleOf), ...(options.modal ? { modal: true, detail: options.detail } : {}) });
    const rule = this.rules.find((r) => r.when.test(text));
    if (!rule) return undefined;
    const choice = typeof rule.choose === 'function' ? await rule.choose(text) : rule.choose;
    return items.find((i) => titleOf(i) === choice);
  }
}
