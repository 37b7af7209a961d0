/**
 * Over 300 lines because the QuickPick's streaming state (the search in flight, its hits, the
 * pending Enter) lives in one closure, which reads best whole.
 *
 * The flows of "svc: Search Run…" (svc.searchRun) and "svc: Clear Search Cache" (command.ts parses
 * the arguments and calls here), the editor side of the run search (runSearch.ts, which has no
 * `vscode` import). From the palette it takes the runs of the workspace the Runs view found
 * (ui/runPick.ts: asking which when there are several, saying how to get one when there is none);
 * from the explorer it takes the run folder or history.jsonl clicked. A QuickPick
 * then searches as you type: hits stream in (busy, with the files searched in the title), grouped
 * by step (a separator per step file) then group and trajectory, each with its snippet; Enter opens
 * the trajectory viewer at the hit; Escape cancels. Filters go in the query as words
 * (`step:5-40 reward:0.5-1 role:assistant tool:get_weather verdict:not-trained split:train`, and
 * `/pattern/` for a regular expression). Called with an arguments object it never prompts: it
 * returns the hits (and opens one with `open`).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InputError } from '../api/errors';
import type { Invocation } from '../ui/commands';
import type { Prompts } from '../ui/prompts';
import { background } from '../common/background';
import type { TrajectoryViewerProvider } from '../viewer/provider';
import { pickWorkspaceRun, type WorkspaceRuns } from '../ui/runPick';
import { readSearchCacheBytes } from '../common/config';
import { SearchDiskCache } from './diskCache';
import type { SearchCache } from './searchCache';
import { filesAsSteps, runStepFiles, searchRun, VERDICTS, type RunHit, type RunProblem, type RunSearchQuery, type RunSearchSummary, type StepFile, type Verdict } from './runSearch';

/** Hits a search shows (and a scripted call returns by default) before it stops and says so. */
export const MAX_SHOWN = 2000;
const TYPING_MS = 250;
const REDRAW_MS = 150;
const count = (n: number) => n.toLocaleString('en-US');

/** A scripted call's arguments: the query's fields (RunSearchQuery, each optional), where to search, and what to return. */
export interface SearchRunArgs extends Partial<RunSearchQuery> {
  run?: string;
  files?: string[];
  /** Hits to return, default MAX_SHOWN. */
  limit?: number;
  /** Open the viewer at this hit (0-based, of those returned). */
  open?: number;
}

export interface SearchRunResult {
  summary: RunSearchSummary;
  hits: RunHit[];
  problems: RunProblem[];
  /** More hits than `limit`: the search stopped there. */
  truncated: boolean;
}

/** What Clear Search Cache cleared from the disk folder. */
export interface ClearedCache {
  files: number;
  bytes: number;
}

export class RunSearchManager {
  constructor(
    /** Opens a hit's group in the trajectory viewer. */
    private readonly viewer: TrajectoryViewerProvider,
    /** The workspace's runs (the Runs view's), for the palette's pick. */
    private readonly runs: WorkspaceRuns,
    readonly cache: SearchCache,
    /** The disk cache's folder. */
    private readonly folder: string,
    /** Says the cache was cleared. */
    private readonly prompts: Pick<Prompts, 'showInformationMessage'>,
  ) {}

  /** Gives the cache its disk folder with the budget of svc.search.cacheSizeGiB, now and as the setting changes. */
  followCacheSetting(): vscode.Disposable {
    const apply = () => {
      const bytes = readSearchCacheBytes();
      this.cache.useDisk(bytes > 0 ? this.folder : undefined, bytes);
    };
    apply();
    return vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('svc.search.cacheSizeGiB')) apply();
    });
  }

  /** Empties the cache, in memory and on disk; a user is told what was cleared. */
  async clearCache(how: Invocation): Promise<ClearedCache> {
    // The folder is cleared even when the setting turned the disk cache off since it was filled.
    const disk = new SearchDiskCache(this.folder);
    const { bytes } = await disk.usage();
    const files = await disk.clear();
    await this.cache.clear();
    if (how.interactive) background(Promise.resolve(this.prompts.showInformationMessage(`svc: Cleared the search cache: ${count(files)} step file${files === 1 ? '' : 's'}, ${(bytes / 1024 / 1024).toFixed(1)} MiB.`)), 'Saying the search cache is cleared');
    return { files, bytes };
  }

  /** A scripted search (`a` parsed by the command): the hits, no prompt; opens hit `a.open` when given. */
  async search(a: SearchRunArgs & { query: string }): Promise<SearchRunResult> {
    const limit = a.limit ?? MAX_SHOWN;
    const files = a.run !== undefined ? await runStepFiles(resolve(a.run)) : filesAsSteps((a.files ?? []).map(resolve));
    const hits: RunHit[] = [];
    const problems: RunProblem[] = [];
    let truncated = false;
    const onHit = (h: RunHit) => {
      if (hits.length >= limit) {
        truncated = true;
        return false;
      }
      hits.push(h);
      return true;
    };
    const summary = await searchRun(files, a, { onHit, onProblem: (p) => problems.push(p) }, undefined, this.cache);
    if (a.open !== undefined) {
      const hit = hits[a.open];
      if (!hit) throw new InputError(`svc.searchRun: no hit ${a.open} to open (${hits.length} found).`, { field: 'open' });
      await this.openHit(hit);
    }
    return { summary, hits, problems, truncated };
  }

  /**
   * The search QuickPick over `clicked` (a run folder or history.jsonl from the explorer), else the
   * run of the workspace picked; resolves with the hit opened, undefined when cancelled.
   */
  async searchInteractively(clicked?: vscode.Uri): Promise<RunHit | undefined> {
    const run = clicked ? clicked.fsPath : await this.pickRun();
    if (!run) return undefined;
    const files = await runStepFiles(run);
    return quickPick(this.viewer, this.cache, run, files);
  }

  /** Opens the trajectory viewer at a hit. */
  openHit(hit: RunHit): Promise<unknown> {
    return openHit(this.viewer, hit);
  }

  /** The run of the workspace to search (a model folder with step files); asks which when there are several. */
  private async pickRun(): Promise<string | undefined> {
    const run = await pickWorkspaceRun(this.runs, {
      title: 'svc: Search Run: which run?',
      having: 'with step files',
      filter: (r) => r.splits.length > 0,
      otherwise: 'or right-click a run folder or its history.jsonl in the Explorer and choose "Search Run…"',
    });
    return run?.dir;
  }
}

/** A path as given: absolute, or in the first workspace folder. */
function resolve(p: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return path.isAbsolute(p) || !folder ? path.resolve(p) : path.join(folder, p);
}

function openHit(viewer: TrajectoryViewerProvider, hit: RunHit): Promise<unknown> {
  return viewer.openAt(vscode.Uri.file(hit.file), { group: hit.group, trajectory: hit.trajectory, message: hit.message });
}

/** What the query box holds: the text, and filters as words. */
export function parseQueryLine(line: string): RunSearchQuery {
  const q: RunSearchQuery = { query: '' };
  const rest: string[] = [];
  const range = (v: string) => {
    const m = /^(-?[\d.]*)(?:-|\.\.)(-?[\d.]*)$/.exec(v) ?? /^(-?[\d.]+)()$/.exec(v);
    if (!m) throw new InputError(`“${v}” is not a range: write 5-40, 5- or -40`);
    const a = m[1] ? Number(m[1]) : undefined;
    const b = m[2] ? Number(m[2]) : m[0] === m[1] ? a : undefined;
    if ((a !== undefined && Number.isNaN(a)) || (b !== undefined && Number.isNaN(b))) throw new InputError(`“${v}” is not a range of numbers`);
    return [a, b] as const;
  };
  for (const word of line.trim().split(/\s+/)) {
    const m = /^(step|steps|reward|role|tool|verdict|split):(.+)$/i.exec(word);
    if (!m) {
      if (word) rest.push(word);
      continue;
    }
    const [, key, value] = m as unknown as [string, string, string];
    switch (key.toLowerCase()) {
      case 'step':
      case 'steps': {
        const [from, to] = range(value);
        q.steps = { from, to };
        break;
      }
      case 'reward': {
        const [min, max] = range(value);
        q.reward = { min, max };
        break;
      }
      case 'role':
        q.role = value;
        break;
      case 'tool':
        q.tool = value;
        break;
      case 'split':
        q.split = value;
        break;
      case 'verdict':
        if (!VERDICTS.includes(value as Verdict)) throw new InputError(`verdict:${value}: write verdict:${VERDICTS.join(', verdict:')}`);
        q.verdict = value as Verdict;
        break;
    }
  }
  const text = rest.join(' ');
  const re = /^\/(.+)\/$/.exec(text);
  q.query = re ? re[1]! : text;
  q.regex = !!re;
  return q;
}

interface HitItem extends vscode.QuickPickItem {
  hit?: RunHit;
  problem?: RunProblem;
}

/** The search QuickPick: resolves when it closes (after opening a hit, or cancelled). */
function quickPick(viewer: TrajectoryViewerProvider, cache: SearchCache, run: string, files: readonly StepFile[]): Promise<RunHit | undefined> {
  const qp = vscode.window.createQuickPick<HitItem>();
  const name = path.basename(run) === 'history.jsonl' ? path.basename(path.dirname(run)) : path.basename(run);
  const title = `svc: Search Run ${name} (${count(files.length)} step files)`;
  qp.title = title;
  qp.placeholder = 'Text, or /regular expression/; filters: step:5-40 reward:0.5-1 role:assistant tool:get_weather verdict:not-trained split:train';
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  let search: AbortController | undefined;
  let running: Promise<void> = Promise.resolve();
  let hits: RunHit[] = [];
  let problems: RunProblem[] = [];
  let typing: ReturnType<typeof setTimeout> | undefined;
  let acceptWhenDone = false;
  let opening = false;
  let settle: (hit: RunHit | undefined) => void = () => undefined;
  let fail: (e: unknown) => void = () => undefined;
  const done = new Promise<RunHit | undefined>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });

  const items = (): HitItem[] => {
    const out: HitItem[] = [];
    let step = '';
    for (const h of hits) {
      const key = `${h.split} · step ${h.step}`;
      if (key !== step) {
        step = key;
        out.push({ label: key, kind: vscode.QuickPickItemKind.Separator });
      }
      const where = h.trajectory >= 0 ? `Group ${h.group + 1} · #${h.trajectory + 1} · ${h.message >= 0 ? `${h.history >= 0 ? `history ${h.history + 1} · ` : ''}message ${h.message + 1} (${h.field})` : h.field}` : `Group ${h.group + 1} · ${h.field}`;
      out.push({ label: where, description: h.reward !== undefined ? `reward ${h.reward}` : undefined, detail: h.snippet, alwaysShow: true, hit: h });
    }
    if (problems.length) {
      out.push({ label: `Skipped (${problems.length})`, kind: vscode.QuickPickItemKind.Separator });
      for (const p of problems) out.push({ label: `$(warning) ${path.basename(p.file)}${p.at ? `, ${p.at}` : ''}`, detail: p.message, alwaysShow: true, problem: p });
    }
    return out;
  };

  const start = (line: string) => {
    search?.abort();
    hits = [];
    problems = [];
    qp.items = [];
    qp.title = title;
    if (!line.trim()) {
      qp.busy = false;
      return;
    }
    let q: RunSearchQuery;
    try {
      q = parseQueryLine(line);
      if (!q.query) throw new InputError('Type the text to find, with the filters.');
    } catch (e) {
      qp.busy = false;
      qp.title = `${title}: ${(e as Error).message}`;
      return;
    }
    const abort = new AbortController();
    search = abort;
    qp.busy = true;
    let at = 0;
    let redraw: ReturnType<typeof setTimeout> | undefined;
    const show = () => {
      redraw = undefined;
      if (search !== abort) return;
      qp.items = items();
      qp.title = `${title}: ${count(hits.length)}${hits.length >= MAX_SHOWN ? '+' : ''} hits · file ${count(at)} of ${count(files.length)}…`;
    };
    const later = () => (redraw ??= setTimeout(show, REDRAW_MS));
    running = searchRun(
      files,
      q,
      {
        onFile: (_f, i) => {
          at = i + 1;
          later();
        },
        onHit: (h) => {
          hits.push(h);
          later();
          return hits.length < MAX_SHOWN;
        },
        onProblem: (p) => {
          problems.push(p);
          later();
        },
      },
      abort.signal,
      cache,
    ).then(
      (s) => {
        clearTimeout(redraw);
        if (search !== abort) return;
        qp.busy = false;
        qp.items = items();
        const cut = s.stopped ? ` (the first ${count(MAX_SHOWN)}: narrow the search)` : '';
        const cached = s.cached ? ` · ${count(s.cached)} from the cache` : '';
        qp.title = `${title}: ${count(hits.length)} hits${cut} in ${count(s.filesSearched)} files${s.problems ? ` · ${count(s.problems)} skipped` : ''}${cached}`;
        if (acceptWhenDone) accept();
      },
      (e: unknown) => {
        clearTimeout(redraw);
        if (search !== abort || abort.signal.aborted) return;
        qp.busy = false;
        qp.title = `${title}: ${(e as Error).message}`;
      },
    );
  };

  const accept = () => {
    const item = qp.selectedItems[0] ?? qp.activeItems[0];
    const target = item?.hit ?? (item?.problem ? undefined : hits[0]);
    if (!target) {
      if (item?.problem) {
        // A skipped file opens in the viewer, which shows its problems.
        opening = true;
        qp.hide();
        viewer.openAt(vscode.Uri.file(item.problem.file)).then(() => settle(undefined), fail);
      }
      return;
    }
    opening = true;
    qp.hide();
    // A failure rejects the command: the presenter tells it, as for any command.
    openHit(viewer, target).then(() => settle(target), fail);
  };

  qp.onDidChangeValue((v) => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      typing = undefined;
      start(v);
    }, TYPING_MS);
  });
  qp.onDidAccept(() => {
    // Enter before the typing pause ran the search: run it now, and open the first hit when it is found.
    if (typing !== undefined && !hits.length) {
      clearTimeout(typing);
      typing = undefined;
      acceptWhenDone = true;
      start(qp.value);
      return;
    }
    if (qp.busy && !hits.length) {
      acceptWhenDone = true;
      return;
    }
    accept();
  });
  qp.onDidHide(() => {
    clearTimeout(typing);
    search?.abort();
    background(running.finally(() => qp.dispose()), 'Closing the run search');
    // Resolved by accept() once the viewer is at the hit; otherwise cancelled.
    if (!opening) settle(undefined);
  });
  qp.show();
  return done;
}
