/**
 * A small stand-in for the `vscode` module, so the classes that take their dependencies through
 * constructors (models, managers, the Connection) run in plain Node. test/fakes/register.ts makes
 * `require('vscode')` return this module for the unit run. It holds only what those classes still
 * reach for themselves: the platform's value types, settings, the log channel, diagnostics,
 * webview panels and command registration. The window's prompts and the context keys are not
 * here: the managers take them as narrow interfaces (src/ui/prompts.ts; test/fakes/prompts.ts
 * scripts them). A test scripts the host through `fake` (settings) and calls `fake.reset()`
 * before each test. Anything else a class reaches for throws, so a gap shows.
 */
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';

type Listener<T> = (e: T) => unknown;

export class Disposable {
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((d) => d.dispose()));
  }
  constructor(private readonly fn: () => unknown) {}
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>, thisArg?: unknown, disposables?: { dispose(): unknown }[]): Disposable => {
    const bound: Listener<T> = (e) => listener.call(thisArg, e);
    this.listeners.add(bound);
    const d = new Disposable(() => this.listeners.delete(bound));
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query = '',
    readonly fragment = '',
  ) {}
  static file(p: string): Uri {
    return new Uri('file', '', nodePath.resolve(p));
  }
  static parse(value: string): Uri {
    const u = new URL(value);
    return new Uri(u.protocol.replace(/:$/, ''), u.host, decodeURIComponent(u.pathname), u.search.replace(/^\?/, ''), u.hash.replace(/^#/, ''));
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, base.authority, nodePath.posix.join(base.path, ...parts), base.query, base.fragment);
  }
  get fsPath(): string {
    return this.path;
  }
  with(change: { scheme?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(change.scheme ?? this.scheme, this.authority, change.path ?? this.path, change.query ?? this.query, change.fragment ?? this.fragment);
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}
export enum FileType {
  Unknown = 0,
  File = 1,
  Directory = 2,
  SymbolicLink = 64,
}
export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
  isBefore(o: Position): boolean {
    return this.line < o.line || (this.line === o.line && this.character < o.character);
  }
  isEqual(o: Position): boolean {
    return this.line === o.line && this.character === o.character;
  }
  translate(lines = 0, characters = 0): Position {
    return new Position(this.line + lines, this.character + characters);
  }
}
export class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
}
export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}
export class Diagnostic {
  source?: string;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}

/** A DiagnosticCollection: what the Problems panel would list, by file URI. */
export class FakeDiagnostics {
  readonly entries = new Map<string, Diagnostic[]>();
  constructor(readonly name: string) {}
  set(uri: Uri, diagnostics: readonly Diagnostic[] | undefined): void {
    if (diagnostics?.length) this.entries.set(uri.toString(), [...diagnostics]);
    else this.entries.delete(uri.toString());
  }
  get(uri: Uri): readonly Diagnostic[] | undefined {
    return this.entries.get(uri.toString());
  }
  delete(uri: Uri): void {
    this.entries.delete(uri.toString());
  }
  clear(): void {
    this.entries.clear();
  }
  dispose(): void {
    this.entries.clear();
  }
}

/** A webview panel: what the extension posted, and `receive()` for what its page would send. */
export class FakeWebviewPanel {
  private readonly viewState = new EventEmitter<void>();
  private readonly disposed = new EventEmitter<void>();
  private readonly received = new EventEmitter<unknown>();
  readonly onDidChangeViewState = this.viewState.event;
  readonly onDidDispose = this.disposed.event;
  visible = true;
  active = true;
  iconPath: unknown;
  reveals = 0;
  readonly posted: unknown[] = [];
  readonly webview = {
    html: '',
    options: {} as unknown,
    cspSource: 'vscode-webview://fake',
    asWebviewUri: (uri: Uri) => uri,
    onDidReceiveMessage: this.received.event,
    postMessage: (message: unknown) => {
      this.posted.push(message);
      return Promise.resolve(true);
    },
  };
  constructor(
    readonly viewType: string,
    public title: string,
  ) {}
  /** Delivers a message as the page would send it. */
  receive(message: unknown): void {
    this.received.fire(message);
  }
  setVisible(visible: boolean): void {
    this.visible = visible;
    this.viewState.fire();
  }
  reveal(): void {
    this.reveals++;
  }
  dispose(): void {
    this.disposed.fire();
  }
}


/** The Memento both states use: a Map behind the async update(). */
export class FakeMemento {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : fallback;
  }
  update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
    return Promise.resolve();
  }
  setKeysForSync(): void {}
}

/** SecretStorage with its change event. */
export class FakeSecretStorage {
  private readonly values = new Map<string, string>();
  private readonly changed = new EventEmitter<{ key: string }>();
  readonly onDidChange = this.changed.event;
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(key));
  }
  keys(): Promise<string[]> {
    return Promise.resolve([...this.values.keys()]);
  }
  store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    this.changed.fire({ key });
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.values.delete(key);
    this.changed.fire({ key });
    return Promise.resolve();
  }
}

/** What a test controls and observes. */
class FakeHost {
  /** Settings by full key (`svc.baseUrl`): the user's value and the workspace's. */
  user = new Map<string, unknown>();
  workspaceSettings = new Map<string, unknown>();
  /** Lines written to output channels, as `level: text`. */
  logLines: string[] = [];
  /** Commands registered, and every command executed (setContext excluded). */
  commands = new Map<string, (...args: unknown[]) => unknown>();
  executed: { command: string; args: unknown[] }[] = [];
  /** Webview panels created, in order. */
  panels: FakeWebviewPanel[] = [];
  /** Diagnostic collections created, by name. */
  diagnostics = new Map<string, FakeDiagnostics>();
  readonly configChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
  readonly trustGranted = new EventEmitter<void>();

  reset(): void {
    this.user.clear();
    this.workspaceSettings.clear();
    this.logLines = [];
    this.commands.clear();
    this.executed = [];
    this.diagnostics.clear();
    this.panels = [];
    workspace.isTrusted = true;
  }

  /** Sets user settings (`svc.project`: value) and fires one configuration change, as the host does. */
  setSettings(values: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) this.user.delete(k);
      else this.user.set(k, v);
    }
    this.fireConfigChange(Object.keys(values));
  }

  fireConfigChange(keys: string[]): void {
    this.configChanged.fire({ affectsConfiguration: (section) => keys.some((k) => k === section || k.startsWith(`${section}.`)) });
  }
}

export const fake = new FakeHost();

function configuration(section: string) {
  const full = (key: string) => (section ? `${section}.${key}` : key);
  return {
    get<T>(key: string, fallback?: T): T | undefined {
      const k = full(key);
      if (workspace.isTrusted && fake.workspaceSettings.has(k)) return fake.workspaceSettings.get(k) as T;
      if (fake.user.has(k)) return fake.user.get(k) as T;
      return fallback;
    },
    has(key: string): boolean {
      return fake.user.has(full(key)) || fake.workspaceSettings.has(full(key));
    },
    inspect<T>(key: string) {
      const k = full(key);
      return { key: k, globalValue: fake.user.get(k) as T | undefined, workspaceValue: fake.workspaceSettings.get(k) as T | undefined, workspaceFolderValue: undefined };
    },
    update(key: string, value: unknown, target?: ConfigurationTarget | boolean): Promise<void> {
      const store = target === ConfigurationTarget.Workspace ? fake.workspaceSettings : fake.user;
      if (value === undefined) store.delete(full(key));
      else store.set(full(key), value);
      fake.fireConfigChange([full(key)]);
      return Promise.resolve();
    },
  };
}

const noDocumentEvents = new EventEmitter<never>();

export const workspace = {
  isTrusted: true,
  textDocuments: [] as { uri: Uri }[],
  onDidChangeTextDocument: noDocumentEvents.event,
  onDidSaveTextDocument: noDocumentEvents.event,
  onDidCloseTextDocument: noDocumentEvents.event,
  workspaceFile: undefined as Uri | undefined,
  workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,
  getConfiguration: configuration,
  onDidChangeConfiguration: fake.configChanged.event,
  onDidGrantWorkspaceTrust: fake.trustGranted.event,
  asRelativePath: (p: Uri | string) => (typeof p === 'string' ? p : p.fsPath),
  fs: {
    stat: async (uri: Uri) => {
      const s = await fs.stat(uri.fsPath);
      return { type: s.isDirectory() ? FileType.Directory : FileType.File, size: s.size, ctime: s.ctimeMs, mtime: s.mtimeMs };
    },
  },
};

function outputChannel(name: string) {
  const write = (level: string) => (text: string) => void fake.logLines.push(`${level}: ${text}`);
  return { name, info: write('info'), warn: write('warn'), error: write('error'), debug: write('debug'), trace: write('trace'), appendLine: write('info'), show() {}, dispose() {} };
}

export const window = {
  createOutputChannel: outputChannel,
  // svc.checkpoints.copyId (a command, not a manager: commandArgs.test) copies and says so.
  setStatusBarMessage: (text: string) => {
    fake.logLines.push(`status: ${text}`);
    return new Disposable(() => undefined);
  },
  createWebviewPanel: (viewType: string, title: string) => {
    const panel = new FakeWebviewPanel(viewType, title);
    fake.panels.push(panel);
    return panel;
  },
};

export const commands = {
  registerCommand(command: string, callback: (...args: unknown[]) => unknown): Disposable {
    if (fake.commands.has(command)) throw new Error(`command '${command}' already exists`);
    fake.commands.set(command, callback);
    return new Disposable(() => fake.commands.delete(command));
  },
  executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    // setContext (common/background.ts, for the classes not handed ContextKeys) sets nothing a test reads.
    if (command === 'setContext') return Promise.resolve();
    fake.executed.push({ command, args });
    const handler = fake.commands.get(command);
    return Promise.resolve(handler?.(...args));
  },
};

export const languages = {
  createDiagnosticCollection(name: string): FakeDiagnostics {
    const collection = new FakeDiagnostics(name);
    fake.diagnostics.set(name, collection);
    return collection;
  },
};

export const env = {
  clipboard: {
    text: '',
    writeText(text: string): Promise<void> {
      env.clipboard.text = text;
      return Promise.resolve();
    },
  },
};
