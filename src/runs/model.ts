/**
 * The Runs view's state: the ART runs of the workspace folders (discovery.ts), found again when
 * files under an `.art` folder appear, change or vanish (one watcher, debounced) or the folders
 * change, and the step numbers cache shared with the dashboard's reward distribution. State and
 * events only: nothing here talks to the user.
 */
import type { ContextKeys } from '../ui/prompts';
import * as vscode from 'vscode';
import { Disposable } from '../common/disposable';
import type { Logger } from '../common/logger';
import { background } from '../common/background';
import { findRuns, type Run } from '../files/runs';
import { StepStatsCache } from '../dashboard/stepStats';

const DEBOUNCE_MS = 500;

export class RunsModel extends Disposable {
  runs: Run[] = [];
  /** Why not every run is listed, when a cap was reached. */
  cut: string | undefined;
  /** Step numbers by (path, size, mtime), for the view and the dashboards. */
  readonly stats = new StepStatsCache();
  private scanning: Promise<void> | undefined;
  private scanned = false;
  private again = false;
  private loud = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** The runs were found again (the list, or files inside a run, may have changed). */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly roots: () => string[],
    private readonly log: Logger,
    /** `svc.runs.none` (the view's welcome) is set here. */
    private readonly contextKeys: ContextKeys,
  ) {
    super();
    const watcher = this._register(vscode.workspace.createFileSystemWatcher('**/.art/**'));
    const soon = () => this.refreshSoon();
    this._register(watcher.onDidCreate(soon));
    this._register(watcher.onDidDelete(soon));
    this._register(watcher.onDidChange(soon));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(soon));
    this._register({ dispose: () => clearTimeout(this.timer) });
  }

  /** Resolves once the runs were looked for at least once (the first call starts it). */
  whenScanned(): Promise<void> {
    if (!this.scanned && !this.scanning) return this.refresh();
    return this.scanning ?? Promise.resolve();
  }

  /**
   * Looks for the runs again; a call while a scan runs makes one more scan after it. `quiet`: fire
   * the change only when the runs differ (a file event fires it always: a step file may be new).
   */
  refresh(options: { quiet?: boolean } = {}): Promise<void> {
    if (this.scanning) {
      if (!options.quiet) {
        this.again = true;
        this.loud = true;
      }
      return this.scanning;
    }
    this.loud = !options.quiet;
    const before = JSON.stringify(this.runs);
    this.scanning = (async () => {
      do {
        this.again = false;
        try {
          const { runs, cut } = await findRuns(this.roots());
          this.runs = runs;
          this.cut = cut;
        } catch (e) {
          this.log.warn(`Runs: could not look for ART runs: ${e instanceof Error ? e.message : String(e)}`);
        }
      } while (this.again);
      this.scanned = true;
      background(this.contextKeys.set('svc.runs.none', this.runs.length === 0), 'setContext svc.runs.none');
      this.scanning = undefined;
      if (this.loud || JSON.stringify(this.runs) !== before) this.changed.fire();
    })();
    return this.scanning;
  }

  private refreshSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => background(this.refresh(), 'Runs: looking for ART runs'), DEBOUNCE_MS);
  }

  /** The run whose model folder is `dir`. */
  runAt(dir: string): Run | undefined {
    return this.runs.find((r) => r.dir === dir);
  }
}
