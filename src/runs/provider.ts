/**
 * The Runs view: each ART run of the workspace (its splits, their steps with group and trajectory
 * counts, mean reward and the groups whose rewards vary, its checkpoint folders, model.json in the
 * tooltip), then the service's models (the Checkpoints view's list). A split of more than PAGE
 * steps lists ranges of PAGE steps, so a run of thousands of steps expands in pages. A step's
 * numbers are read when its row is first listed, in the background, one file at a time, and kept
 * by (path, size, mtime): a row shows "…" until its numbers arrive.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from '../common/disposable';
import { escapeMarkdown, formatBytes, plural } from '../common/format';
import { background } from '../common/background';
import { treeNode } from '../ui/treeNodes';
import type { StepFile } from '../files/stepShares';
import { fmt } from '../files/verdicts';
import { QUANTILES } from '../dashboard/shared/distribution';
import { runSteps, type Run } from '../files/runs';
import type { RunsModel } from './model';
import type { StepResult } from '../dashboard/stepStats';

/** Steps listed under one node; more make ranges of this many. */
export const PAGE = 100;

export type RunNode =
  | { kind: 'run'; run: Run }
  | { kind: 'split'; run: Run; split: string }
  | { kind: 'range'; run: Run; split: string; files: StepFile[] }
  | { kind: 'step'; run: Run; split: string; file: StepFile }
  | { kind: 'checkpoints'; run: Run }
  | { kind: 'checkpoint'; run: Run; step: number }
  | { kind: 'services' }
  | { kind: 'service'; modelId: string }
  | { kind: 'note'; message: string };

/** What the Runs view shows of the service's models: the Checkpoints view's list. */
export interface ServiceModels {
  readonly models: string[];
  readonly onDidChange: vscode.Event<unknown>;
}

export class RunsTreeProvider extends Disposable implements vscode.TreeDataProvider<RunNode> {
  private readonly changed = this._register(new vscode.EventEmitter<RunNode | RunNode[] | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  /** Step rows whose numbers are being read, in order; rows that got theirs go to the view in batches. */
  private readonly queue: RunNode[] = [];
  private reading = false;
  private done: RunNode[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Every node handed out, by its id: VS Code finds elements by identity (reveal, a refresh of one
   * row), so a row keeps its object across refreshes, with its fields brought up to date.
   */
  private readonly nodes = new Map<string, RunNode>();
  private readonly parents = new WeakMap<RunNode, RunNode>();

  constructor(
    private readonly model: RunsModel,
    private readonly services: ServiceModels,
  ) {
    super();
    this._register(model.onDidChange(() => this.changed.fire(undefined)));
    // The Checkpoints view's model fires for every page it loads: only a changed list of models matters here.
    let models = services.models.join('\n');
    this._register(
      services.onDidChange(() => {
        const now = services.models.join('\n');
        if (now !== models) this.changed.fire(undefined);
        models = now;
      }),
    );
    this._register({ dispose: () => clearTimeout(this.flushTimer) });
  }

  async getChildren(element?: RunNode): Promise<RunNode[]> {
    const kids = await this.childrenOf(element);
    if (element) for (const k of kids) this.parents.set(k, element);
    return kids;
  }

  getParent(element: RunNode): RunNode | undefined {
    return this.parents.get(element);
  }

  /** The one node of an id, its fields updated (the objects VS Code already holds stay valid). */
  private node<T extends RunNode>(id: string, fresh: T): T {
    const had = this.nodes.get(id) as T | undefined;
    if (had && had.kind === fresh.kind) return Object.assign(had, fresh);
    const n = treeNode<T>(fresh);
    this.nodes.set(id, n);
    return n;
  }

  /** The node of a run's step file (for reveal: the tests, a command that shows a step). */
  async stepNode(runDir: string, split: string, file: string): Promise<RunNode | undefined> {
    await this.model.whenScanned();
    for (const r of await this.getChildren()) {
      if (r.kind !== 'run' || r.run.dir !== runDir) continue;
      for (const s of await this.getChildren(r)) {
        if (s.kind !== 'split' || s.split !== split) continue;
        for (const x of await this.getChildren(s)) {
          const inner = x.kind === 'range' ? await this.getChildren(x) : [x];
          const hit = inner.find((n) => n.kind === 'step' && n.file.path === file);
          if (hit) return hit;
        }
      }
    }
    return undefined;
  }

  private async childrenOf(element?: RunNode): Promise<RunNode[]> {
    if (!element) {
      await this.model.whenScanned();
      const nodes: RunNode[] = this.model.runs.map((run) => this.node(`run:${run.dir}`, { kind: 'run', run }));
      if (this.model.cut) nodes.push(treeNode<RunNode>({ kind: 'note', message: `Not every run is listed: ${this.model.cut}.` }));
      // Without a run the welcome view shows; the service's models are in the Checkpoints view too.
      if (nodes.length && this.services.models.length) nodes.push(this.node('services', { kind: 'services' }));
      return nodes;
    }
    switch (element.kind) {
      case 'run': {
        const { run } = element;
        const nodes: RunNode[] = run.splits.map((split) => this.node(`split:${run.dir}:${split}`, { kind: 'split', run, split }));
        if (run.checkpoints.length) nodes.push(this.node(`checkpoints:${run.dir}`, { kind: 'checkpoints', run }));
        if (!nodes.length) nodes.push(treeNode<RunNode>({ kind: 'note', message: 'No step files or checkpoints yet.' }));
        return nodes;
      }
      case 'split': {
        const files = await runSteps(element.run, element.split);
        if (!files.length) return [treeNode<RunNode>({ kind: 'note', message: 'No step files in this split.' })];
        if (files.length <= PAGE) return this.stepNodes(element.run, element.split, files);
        const ranges: RunNode[] = [];
        for (let i = 0; i < files.length; i += PAGE) {
          const slice = files.slice(i, i + PAGE);
          ranges.push(this.node(`range:${element.run.dir}:${element.split}:${i}`, { kind: 'range', run: element.run, split: element.split, files: slice }));
        }
        return ranges;
      }
      case 'range':
        return this.stepNodes(element.run, element.split, element.files);
      case 'checkpoints':
        return element.run.checkpoints.map((step) => this.node(`checkpoint:${element.run.dir}:${step}`, { kind: 'checkpoint', run: element.run, step }));
      case 'services':
        return this.services.models.map((modelId) => this.node(`service:${modelId}`, { kind: 'service', modelId }));
      default:
        return [];
    }
  }

  getTreeItem(n: RunNode): vscode.TreeItem {
    const C = vscode.TreeItemCollapsibleState;
    switch (n.kind) {
      case 'run': {
        const item = new vscode.TreeItem(n.run.model, C.Collapsed);
        item.id = `run:${n.run.dir}`;
        item.description = [n.run.project, n.run.modelJson?.baseModel].filter(Boolean).join(' · ');
        item.tooltip = runTooltip(n.run);
        item.iconPath = new vscode.ThemeIcon('beaker');
        item.contextValue = n.run.history ? 'svcRun.history' : 'svcRun';
        item.resourceUri = vscode.Uri.file(n.run.dir);
        if (n.run.history) item.command = { command: 'svc.runs.openDashboard', title: 'Open Dashboard', arguments: [n] };
        return item;
      }
      case 'split': {
        const item = new vscode.TreeItem(n.split, C.Collapsed);
        item.id = `split:${n.run.dir}:${n.split}`;
        item.iconPath = new vscode.ThemeIcon('folder');
        item.tooltip = path.join(n.run.dir, 'trajectories', n.split);
        item.contextValue = 'svcRunSplit';
        return item;
      }
      case 'range': {
        const first = n.files[0]!.step;
        const last = n.files[n.files.length - 1]!.step;
        const item = new vscode.TreeItem(`steps ${first}–${last}`, C.Collapsed);
        item.id = `range:${n.run.dir}:${n.split}:${first}`;
        item.description = plural(n.files.length, 'step file');
        return item;
      }
      case 'step':
        return this.stepItem(n);
      case 'checkpoints': {
        const item = new vscode.TreeItem('checkpoints', C.Collapsed);
        item.id = `checkpoints:${n.run.dir}`;
        item.description = `${n.run.checkpoints.length} · last step ${n.run.checkpoints[n.run.checkpoints.length - 1]}`;
        item.iconPath = new vscode.ThemeIcon('history');
        return item;
      }
      case 'checkpoint': {
        const item = new vscode.TreeItem(`step ${n.step}`, C.None);
        item.id = `checkpoint:${n.run.dir}:${n.step}`;
        item.tooltip = path.join(n.run.dir, 'checkpoints', String(n.step).padStart(4, '0'));
        item.iconPath = new vscode.ThemeIcon('save');
        return item;
      }
      case 'services': {
        const item = new vscode.TreeItem('service models', C.Collapsed);
        item.id = 'services';
        item.description = plural(this.services.models.length, 'model');
        item.tooltip = 'The models of the Checkpoints view: open one to see its training dashboard.';
        item.iconPath = new vscode.ThemeIcon('cloud');
        return item;
      }
      case 'service': {
        const item = new vscode.TreeItem(n.modelId, C.None);
        item.id = `service:${n.modelId}`;
        item.iconPath = new vscode.ThemeIcon('graph-line');
        item.command = { command: 'svc.dashboard.open', title: 'Open Dashboard', arguments: [{ modelId: n.modelId }] };
        item.tooltip = `Open the training dashboard of ${n.modelId}`;
        return item;
      }
      case 'note': {
        const item = new vscode.TreeItem(n.message, C.None);
        item.iconPath = new vscode.ThemeIcon('info');
        return item;
      }
    }
  }

  /** The step rows of a list of files: their numbers from the cache, or read in the background. */
  private stepNodes(run: Run, split: string, files: StepFile[]): RunNode[] {
    const nodes = files.map((file) => this.node(`step:${file.path}`, { kind: 'step', run, split, file }));
    const missing = nodes.filter((n) => n.kind === 'step' && !this.model.stats.peek(n.file));
    if (missing.length) {
      this.queue.push(...missing);
      background(this.readQueue(), 'Runs: reading step numbers');
    }
    return nodes;
  }

  private async readQueue(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      for (let n = this.queue.shift(); n; n = this.queue.shift()) {
        if (n.kind !== 'step') continue;
        await this.model.stats.get(n.file);
        this.done.push(n);
        if (!this.flushTimer) this.flushTimer = setTimeout(() => this.flush(), 200);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.reading = false;
    }
  }

  private flush(): void {
    this.flushTimer = undefined;
    const nodes = this.done;
    this.done = [];
    if (nodes.length) this.changed.fire(nodes);
  }

  /** Resolves once every step row listed so far has its numbers (for the tests). */
  async whenStepsRead(): Promise<void> {
    while (this.reading || this.queue.length || this.done.length || this.flushTimer) await new Promise((r) => setTimeout(r, 50));
  }

  private stepItem(n: Extract<RunNode, { kind: 'step' }>): vscode.TreeItem {
    const { file, run } = n;
    const item = new vscode.TreeItem(`step ${file.step}`, vscode.TreeItemCollapsibleState.None);
    item.id = `step:${file.path}`;
    const result = this.model.stats.peek(file);
    const checkpoint = run.checkpoints.includes(file.step);
    item.description = [stepDescription(result), checkpoint ? 'checkpoint' : ''].filter(Boolean).join(' · ');
    item.tooltip = stepTooltip(n.split, file, result, checkpoint);
    item.iconPath = new vscode.ThemeIcon(result?.error ? 'warning' : checkpoint ? 'pass-filled' : 'circle-outline');
    item.contextValue = 'svcRunStep';
    item.resourceUri = vscode.Uri.file(file.path);
    item.command = { command: 'svc.runs.openStep', title: 'Open in the Trajectory Viewer', arguments: [n] };
    item.accessibilityInformation = { label: `step ${file.step}, ${item.description}` };
    return item;
  }
}

/** The share of groups whose rewards vary, as "3/4 vary". */
function varying(s: NonNullable<StepResult['stats']>): string {
  return `${s.groupsVarying}/${s.groups} vary`;
}

/** "4 groups · 16 traj. · mean 0.531 · 3/4 vary", "…" while reading, or the error. */
export function stepDescription(r: StepResult | undefined): string {
  if (!r) return '…';
  if (!r.stats) return `unreadable: ${r.error.slice(0, 80)}`;
  const s = r.stats;
  return [plural(s.groups, 'group'), `${s.trajectories} traj.`, s.mean === null ? 'no reward' : `mean ${fmt(Number(s.mean.toPrecision(3)))}`, varying(s)].join(' · ');
}

function stepTooltip(split: string, file: StepFile, r: StepResult | undefined, checkpoint: boolean): vscode.MarkdownString {
  const lines = [`**step ${file.step}** of ${escapeMarkdown(split)} · ${escapeMarkdown(path.basename(file.path))} · ${formatBytes(file.bytes)}`];
  if (!r) lines.push('Reading its numbers…');
  else if (!r.stats) lines.push(`Could not be read: ${escapeMarkdown(r.error)}`);
  else {
    const s = r.stats;
    lines.push(`${plural(s.groups, 'group')}, ${plural(s.trajectories, 'trajectory', 'trajectories')}, ${s.rewards} with a reward`);
    if (s.mean !== null) lines.push(`reward mean ${fmt(s.mean)}; ${QUANTILES.map((p, i) => `${p === 0 ? 'min' : p === 1 ? 'max' : `p${Math.round(p * 100)}`} ${fmt(s.quantiles[i]!)}`).join(', ')}`);
    const share = s.groups ? Math.round((100 * s.groupsVarying) / s.groups) : 0;
    lines.push(`${s.groupsVarying} of ${s.groups} groups (${share}%, ${s.trajectoriesVarying} trajectories) have rewards that vary: ART trains on those only (data/step_num_groups_trainable). Which trajectories train by ART's other rules (logprobs, token ids): the viewer's "will not train" filter.`);
  }
  if (checkpoint) lines.push('A checkpoint of this step is in checkpoints/.');
  const md = new vscode.MarkdownString(lines.join('\n\n'));
  md.isTrusted = false;
  return md;
}

function runTooltip(run: Run): vscode.MarkdownString {
  const lines = [`**${escapeMarkdown(run.project)} / ${escapeMarkdown(run.model)}**`, escapeMarkdown(run.dir)];
  const mj = run.modelJson;
  if (mj?.baseModel) lines.push(`base model: ${escapeMarkdown(mj.baseModel)}`);
  if (mj?.error) lines.push(`model.json: ${escapeMarkdown(mj.error)}`);
  for (const f of mj?.fields.slice(0, 12) ?? []) lines.push(`${escapeMarkdown(f.key)}: ${escapeMarkdown(f.value)}`);
  lines.push(`splits: ${run.splits.length ? run.splits.map(escapeMarkdown).join(', ') : 'none'} · checkpoints: ${run.checkpoints.length ? run.checkpoints.join(', ') : 'none'}`);
  lines.push(run.history ? 'Open it to see the training dashboard of its history.jsonl.' : 'No history.jsonl yet.');
  const md = new vscode.MarkdownString(lines.join('\n\n'));
  md.isTrusted = false;
  return md;
}
