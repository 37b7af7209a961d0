/**
 * "svc: Follow Scenario Across Steps…" (issue 31, item 4): the table of one scenario across the
 * steps of a run (src/viewer/scenario.ts) in a webview, each step's file a click away in the viewer,
 * and any two rollouts side by side in the diff editor ("svc: Compare Two Trajectories", the
 * viewer's compare across files: the same transcripts, transcript.ts).
 *
 * Scripted calls never prompt:
 *   svc.followScenario { run, scenario, key?, split? }        run: a run folder, history.jsonl or step file
 *   svc.followScenario { file, group, trajectory, key? }      the scenario of that trajectory (the viewer's button)
 *   svc.compareTrajectories { left: { file, group, trajectory }, right: { file, group, trajectory } }
 * Each resolves to what it showed (the history; the two transcript URIs) or rejects naming the field.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { formatPath, InputError } from '../api';
import { background } from '../common/background';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import { isArgumentsObject, type Commands, type Invocation } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { Disposable } from '../common/disposable';
import { webviewHtml, webviewOptions } from '../ui/webview';
import { parseMessage } from '../webview/protocol';
import type { TranscriptStore } from './compare';
import { readTrajectoryAt, resolveRun, scenarioHistory, scenarioOf, scenariosInFile, DEFAULT_SCENARIO_KEY, type ScenarioHistory } from './scenario';
import { FromScenario, type ToScenario } from './scenarioProtocol';
import { transcript } from './transcript';
import { trajectoryView } from './views';
import { pickWorkspaceRun, type WorkspaceRuns } from '../ui/runPick';
import { runSteps } from '../files/runs';
import type { StepFile } from '../files/stepShares';

export const SCENARIO_VIEW = 'svc.scenario';

interface Place {
  file: string;
  group: number;
  trajectory: number;
}


/** A group's or trajectory's index in a file. */
const notAnIndex = (issue: { path?: PropertyKey[] }) => `"${formatPath(issue.path ?? [])}" must be an integer from 0 (0-based, as the file numbers it)`;
const fileIndex = z.int({ error: notAnIndex }).min(0, { error: notAnIndex });
/** A place `{ file, group, trajectory }` (the file resolved). */
const placeFields = { file: nonBlank().transform((f) => path.resolve(f)), group: fileIndex, trajectory: fileIndex };
const place = z.object(placeFields, { error: (issue) => `"${formatPath(issue.path ?? [])}" must be { file, group, trajectory }` });

const FOLLOW_USAGE = '{ run, scenario, key?, split? } or { file, group, trajectory, key? }';
/** The keys of either form (each form's own are checked by its schema below): any other key is refused by name. */
const FOLLOW_ARGS = z.strictObject({ key: nonBlank().optional(), split: nonBlank().optional(), run: z.unknown().optional(), scenario: z.unknown().optional(), file: z.unknown().optional(), group: z.unknown().optional(), trajectory: z.unknown().optional() });
const FOLLOW_BY_SCENARIO = z.object({ run: nonBlank(), scenario: nonBlank() });
const FOLLOW_FROM_PLACE = z.object(placeFields);
const COMPARE_ARGS = z.object({ left: place, right: place });

export class ScenarioPanels extends Disposable {
  private readonly panels = new Set<vscode.WebviewPanel>();
  private readonly shown = this._register(new vscode.EventEmitter<{ panel: vscode.WebviewPanel; history: ScenarioHistory }>());
  /** A table was sent to its webview. */
  readonly onDidShow = this.shown.event;
  private readonly rendered = this._register(new vscode.EventEmitter<Extract<FromScenario, { type: 'rendered' }>>());
  /** A webview drew its table (tests wait on it). */
  readonly onDidRender = this.rendered.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Logger,
    private readonly errors: ErrorPresenter,
    private readonly transcripts: TranscriptStore,
    /** The workspace's runs (the Runs view's), for the palette's run pick. */
    private readonly runs?: WorkspaceRuns,
  ) {
    super();
    // Disposed before the emitters (the base disposes in reverse).
    this._register({
      dispose: () => {
        for (const p of this.panels) p.dispose();
      },
    });
  }

  register(commands: Commands): vscode.Disposable[] {
    return [this, commands.register('svc.followScenario', (how, arg?: unknown) => this.follow(how, arg)), commands.register('svc.compareTrajectories', (how, arg?: unknown) => this.compareCommand(how, arg))];
  }

  private async follow(how: Invocation, arg: unknown): Promise<ScenarioHistory | undefined> {
    const cmd = 'svc.followScenario';
    let run: string;
    let scenario: string;
    let key: string | undefined;
    let split: string | undefined;
    if (isArgumentsObject(arg)) {
      const a = parseArgs(cmd, FOLLOW_ARGS, arg, FOLLOW_USAGE);
      ({ key, split } = a);
      if (a.run !== undefined || a.scenario !== undefined) {
        ({ run, scenario } = parseArgs(cmd, FOLLOW_BY_SCENARIO, arg, FOLLOW_USAGE));
      } else if (a.file !== undefined) {
        const p: Place = parseArgs(cmd, FOLLOW_FROM_PLACE, arg, FOLLOW_USAGE);
        const at = await readTrajectoryAt(p.file, p.group, p.trajectory);
        if (!at) throw new InputError(`${cmd}: ${p.file} has no trajectory ${p.trajectory} in group ${p.group} (0-based).`);
        const s = scenarioOf(at.trajectory, at.group, key);
        if (!s) throw new InputError(`${cmd}: trajectory ${p.trajectory} of group ${p.group} in ${p.file} has no "${key ?? DEFAULT_SCENARIO_KEY}" metadata and no user message to follow.`);
        run = p.file;
        scenario = s.scenario;
      } else throw new InputError(`${cmd}: give ${FOLLOW_USAGE}.`);
    } else {
      if (!how.interactive) throw new InputError(`${cmd}: give ${FOLLOW_USAGE}.`);
      const picked = await this.pick(arg instanceof vscode.Uri ? arg : undefined);
      if (!picked) return undefined;
      ({ run, scenario } = picked);
    }
    const history = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `svc: following ${scenario.slice(0, 40)} across steps` }, () => scenarioHistory({ run, scenario, key, split }));
    this.show(history);
    return history;
  }

  /**
   * The palette: the step file of the active viewer or editor, else a run of the workspace (the
   * only one, or picked; none: a message saying how to get one) and its latest step file of its
   * first split (train first); then the scenario from that file.
   */
  private async pick(given?: vscode.Uri): Promise<{ run: string; scenario: string } | undefined> {
    let file = given?.scheme === 'file' ? given.fsPath : activeFile();
    if (!file || !isStepFile(file)) {
      if (!this.runs) throw new InputError('Open a step file of a run (.art/<project>/models/<model>/trajectories/<split>/<step>.parquet) and run this again.');
      const run = await pickWorkspaceRun(this.runs, {
        title: 'svc: Follow Scenario: which run?',
        having: 'with step files',
        filter: (r) => r.splits.length > 0,
        otherwise: 'or open a step file of a run and run this again',
      });
      if (!run) return undefined;
      const split = run.splits[0]!;
      const latest = (await runSteps(run, split)).reduce<StepFile | undefined>((a, f) => (!a || f.step > a.step ? f : a), undefined);
      if (!latest) throw new InputError(`${run.model} has no step file in ${split}.`, { file: path.join(run.dir, 'trajectories', split) });
      file = latest.path;
    }
    resolveRun(file);
    const scenarios = await scenariosInFile(file);
    if (!scenarios.length) throw new InputError(`${file} has no trajectories to follow.`);
    const items = scenarios.map((s) => ({
      label: s.scenario.replace(/\s+/g, ' ').slice(0, 120),
      description: `${s.by === 'key' ? DEFAULT_SCENARIO_KEY : 'first user message'} · group ${s.group + 1} · rewards ${s.rewards.map((r) => Number(r.toFixed(3))).join(', ')}`,
      scenario: s.scenario,
    }));
    const pick = await vscode.window.showQuickPick(items, { title: `svc: Follow which scenario of ${path.basename(file)} across steps?`, matchOnDescription: true });
    return pick ? { run: file, scenario: pick.scenario } : undefined;
  }

  private show(h: ScenarioHistory): void {
    const title = `Scenario ${h.scenario.replace(/\s+/g, ' ').slice(0, 40)} · ${h.split}`;
    const panel = vscode.window.createWebviewPanel(SCENARIO_VIEW, title, vscode.ViewColumn.Active, webviewOptions(this.extensionUri));
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'svc.svg');
    this.panels.add(panel);
    const files = new Map(h.steps.map((s) => [s.step, s.file]));
    const notes: string[] = [];
    if (h.cut) notes.push(`${h.cut.left} older step files were not read: ${h.cut.why}.`);
    if (!h.steps.some((s) => s.rollouts.length)) notes.push(`Not found in any of the ${h.read} step files read.${h.known?.length ? ` Scenarios seen: ${h.known.join(' · ')}` : ''}`);
    const message: ToScenario = {
      type: 'history',
      title: path.relative(path.dirname(path.dirname(path.dirname(h.modelDir))), h.modelDir) || h.modelDir,
      scenario: h.scenario,
      key: h.key,
      split: h.split,
      read: h.read,
      steps: h.steps.map((s) => ({ ...s, file: path.basename(s.file) })),
      ...(h.firstChange !== undefined ? { firstChange: h.firstChange } : {}),
      notes,
    };
    const subs = [
      panel.webview.onDidReceiveMessage((raw) => {
        const m = parseMessage(FromScenario, raw);
        if (!m.ok) return this.log.warn(`Scenario view: ${m.error}`);
        const v = m.value;
        const run = async () => {
          if (v.type === 'ready') {
            await panel.webview.postMessage(message);
            this.shown.fire({ panel, history: h });
          } else if (v.type === 'rendered') {
            this.rendered.fire(v);
          } else if (v.type === 'open') {
            const f = files.get(v.step);
            if (f) await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(f), 'svc.trajectoryViewer', vscode.ViewColumn.Beside);
          } else {
            const left = files.get(v.left.step);
            const right = files.get(v.right.step);
            if (left && right) await this.compare({ file: left, group: v.left.group, trajectory: v.left.trajectory }, { file: right, group: v.right.group, trajectory: v.right.trajectory }, [v.left.step, v.right.step]);
          }
        };
        background(
          run().catch((e) => this.errors.show(e, 'Scenario view')),
          'Scenario view',
        );
      }),
    ];
    panel.onDidDispose(() => {
      this.panels.delete(panel);
      for (const s of subs) s.dispose();
    });
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, { entry: 'scenario', title });
  }

  private async compareCommand(how: Invocation, arg: unknown): Promise<{ left: string; right: string } | undefined> {
    const cmd = 'svc.compareTrajectories';
    void how;
    const { left, right } = parseArgs(cmd, COMPARE_ARGS, arg, '{ left: { file, group, trajectory }, right: { file, group, trajectory } }');
    return this.compare(left, right);
  }

  /** Two trajectories of any files as transcripts in the diff editor. */
  async compare(left: Place, right: Place, steps?: [number, number]): Promise<{ left: string; right: string }> {
    const side = async (p: Place, step?: number) => {
      const at = await readTrajectoryAt(p.file, p.group, p.trajectory);
      if (!at) throw new InputError(`${p.file} has no trajectory ${p.trajectory + 1} in group ${p.group + 1}.`);
      const name = `${step !== undefined ? `step ${step} · ` : ''}${path.basename(p.file)} · group ${p.group + 1} · trajectory ${p.trajectory + 1}`;
      return this.transcripts.put(name, transcript(trajectoryView(at.trajectory, p.group, p.trajectory), name));
    };
    const l = await side(left, steps?.[0]);
    const r = await side(right, steps?.[1]);
    const label = (p: Place, step?: number) => `${step !== undefined ? `step ${step}` : path.basename(p.file)} ${p.group + 1}.${p.trajectory + 1}`;
    await vscode.commands.executeCommand('vscode.diff', l, r, `${label(left, steps?.[0])} ↔ ${label(right, steps?.[1])}`);
    return { left: l.toString(), right: r.toString() };
  }
}

function isStepFile(file: string): boolean {
  return /\.(parquet|jsonl|json)$/i.test(file) && path.basename(path.dirname(path.dirname(file))) === 'trajectories';
}

function activeFile(): string | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const uri = input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom ? input.uri : undefined;
  return uri?.scheme === 'file' ? uri.fsPath : undefined;
}
