/**
 * The refusals of scripted command calls (an arguments object), each parsed by ui/args.ts's
 * parseArgs: the command's id, the field and what it must be. The in-host suites pin some of these
 * messages too; these run in plain Node over the fake `vscode`.
 */
import { DashboardOpener } from '../../../src/dashboard/opener';
import type { Prompts } from '../../../src/ui/prompts';
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { fake } from '../../fakes/vscode';
import { InputError } from '../../../src/api';
import { registerRunsCommands } from '../../../src/runs/commands';
import { RunsManager } from '../../../src/runs/manager';
import { commandsPresentedBy } from '../../../src/ui/commands';
import type { RunsModel } from '../../../src/runs/model';
import { registerSearchCommands } from '../../../src/search/command';
import { RunSearchManager } from '../../../src/search/manager';
import type { SearchCache } from '../../../src/search/searchCache';
import type { TrajectoryViewerProvider } from '../../../src/viewer/provider';
import type { WorkspaceRuns } from '../../../src/ui/runPick';
import { registerThreadsCommands } from '../../../src/threads/commands';
import { ThreadsManager } from '../../../src/threads/manager';
import type { ThreadsModel } from '../../../src/threads/model';
import type { ThreadDetailsProvider } from '../../../src/threads/details';
import type { ThreadDetailsPanel } from '../../../src/threads/detailsPanel';
import type { Connection } from '../../../src/service/connection';
import { FakeMemento } from '../../fakes/vscode';
import { ScriptedPrompts } from '../../fakes/prompts';
import { registerCheckpointsCommands } from '../../../src/checkpoints/commands';
import { CheckpointsManager } from '../../../src/checkpoints/manager';
import type { CheckpointsModel } from '../../../src/checkpoints/model';
import { registerDashboardCommands } from '../../../src/dashboard/commands';
import { registerCompareCommand } from '../../../src/dashboard/compareCommand';
import type { Dashboards } from '../../../src/dashboard/manager';
import type { CompareRuns } from '../../../src/dashboard/compare';
import { registerCopyLinkCommands } from '../../../src/links/commands';
import { ScenarioPanels } from '../../../src/viewer/scenarioPanel';
import { activateHarnesses } from '../../../src/harnesses/commands';
import type { Logger } from '../../../src/common/logger';
import { registerAuthCommands } from '../../../src/service/authCommands';
import { AuthManager } from '../../../src/service/authManager';
import type { CredentialManager } from '../../../src/auth/credentials';
import type { KeyApprovals } from '../../../src/auth/approvals';
import { WebUi } from '../../../src/webUi/commands';
import { registerUploadCommands } from '../../../src/trajectories/commands';
import type { UploadManager } from '../../../src/trajectories/manager';
import { registerFeedbackCommands } from '../../../src/feedback/commands';
import { treeNode } from '../../../src/ui/treeNodes';
import { openViewerArgs } from '../../../src/viewer/provider';
import { FeedbackManager, type FeedbackDeps } from '../../../src/feedback/manager';

/** Runs `command` with `arg`; the InputError it rejects with, checked against `message`. */
async function refuses(command: string, arg: unknown, message: RegExp, field?: string): Promise<void> {
  await assert.rejects(Promise.resolve(vscode.commands.executeCommand(command, arg)), (e: unknown) => {
    assert.ok(e instanceof InputError, `${command}: not an InputError: ${String(e)}`);
    assert.match(e.message, message);
    if (field !== undefined) assert.equal(e.place.field, field);
    return true;
  });
}

describe('scripted command arguments (parseArgs)', () => {
  // No presenter: a refusal is the rejection as thrown.
  const commands = commandsPresentedBy(undefined);
  const subs: { dispose(): unknown }[] = [];
  beforeEach(() => fake.reset());
  afterEach(() => subs.splice(0).forEach((d) => d.dispose()));

  it('svc.runs.openDashboard and svc.runs.openStep', async () => {
    subs.push(...registerRunsCommands({ commands, manager: new RunsManager({} as RunsModel, () => [], new ScriptedPrompts()) }));
    await refuses('svc.runs.openDashboard', { dir: ' ' }, /^svc\.runs\.openDashboard: "dir" must be a non-empty string\. svc\.runs\.openDashboard takes \{ dir: the model folder/, 'dir');
    await refuses('svc.runs.openDashboard', { folder: 'x' }, /"dir" must be a non-empty string/, 'dir');
    await refuses('svc.runs.openStep', { file: 3 }, /^svc\.runs\.openStep: "file" must be a non-empty string\. svc\.runs\.openStep takes \{ file: a step file, reward\?: \{ min\?, max\? \} \}\.$/, 'file');
    await refuses('svc.runs.openStep', { file: 'a.parquet', reward: { min: 2, max: 1 } }, /^svc\.runs\.openStep: "reward": min 2 is above max 1\./, 'reward');
    await refuses('svc.runs.openStep', { file: 'a.parquet', reward: { min: '0.5' } }, /"reward" must be \{ min\?: number, max\?: number \} \(finite numbers\)/, 'reward.min');
    await refuses('svc.runs.openStep', { file: 'a.parquet', reward: 0.5 }, /"reward" must be \{ min\?: number, max\?: number \} \(finite numbers\)/, 'reward');
  });

  it('svc.searchRun', async () => {
    const cache = { useDisk() {}, clear: () => Promise.resolve() } as unknown as SearchCache;
    subs.push(...registerSearchCommands({ commands, manager: new RunSearchManager({} as TrajectoryViewerProvider, {} as WorkspaceRuns, cache, '/nowhere', new ScriptedPrompts()) }));
    await refuses('svc.searchRun', { run: 'm' }, /^svc\.searchRun: "query" must be a non-empty string\./, 'query');
    await refuses('svc.searchRun', { run: 'm', query: '' }, /"query" must be a non-empty string/, 'query');
    await refuses('svc.searchRun', { query: 'x' }, /give exactly one of "run" \(a run folder or its history\.jsonl\) and "files"/, 'run');
    await refuses('svc.searchRun', { run: 'm', files: [], query: 'x' }, /give exactly one of "run"/, 'run');
    await refuses('svc.searchRun', { run: 'm', query: 'x', steps: '5-40' }, /"steps" must be \{ from\?: number, to\?: number \}/, 'steps');
    await refuses('svc.searchRun', { run: 'm', query: 'x', reward: { min: 0, high: 1 } }, /"reward" must be \{ min\?: number, max\?: number \}/, 'reward');
    await refuses('svc.searchRun', { run: 'm', query: 'x', reward: { min: Infinity } }, /"reward" must be \{ min\?: number, max\?: number \}/, 'reward.min');
    await refuses('svc.searchRun', { run: 'm', query: 'x', steps: { from: NaN } }, /"steps" must be \{ from\?: number, to\?: number \}/, 'steps.from');
    await refuses('svc.searchRun', { run: 'm', query: 'x', verdict: 'good' }, /"verdict" must be one of trains, not-trained, fails/, 'verdict');
    await refuses('svc.searchRun', { run: 'm', query: 'x', limit: 0 }, /"limit" must be a positive integer/, 'limit');
    await refuses('svc.searchRun', { run: 'm', query: 'x', role: 1 }, /"role" must be a string/, 'role');
    await refuses('svc.searchRun', { files: ['a', 2], query: 'x' }, /"files\[1\]" must be a string/, 'files[1]');
  });

  it('svc.threads.sortBy, svc.threads.filter, svc.threads.show and svc.selectProject', async () => {
    const model = { sort: { field: 'last_updated', direction: 'desc' }, project: 'acme/chat', findRow: () => undefined } as unknown as ThreadsModel;
    subs.push(...registerThreadsCommands({ commands, manager: new ThreadsManager(model, {} as ThreadDetailsProvider, {} as ThreadDetailsPanel, {} as Connection, new FakeMemento() as unknown as vscode.Memento) }));
    await refuses('svc.threads.sortBy', { field: 'cost' }, /^svc\.threads\.sortBy: Unknown sort field "cost"; use one of .*thread_id/, 'field');
    await refuses('svc.threads.sortBy', { direction: 'asc' }, /A sort field is needed; use one of/, 'field');
    await refuses('svc.threads.sortBy', { field: 'thread_id', direction: 'up' }, /Unknown sort direction "up"; use asc or desc/, 'direction');
    await refuses('svc.threads.sortBy', { field: 'thread_id', order: 'asc' }, /^svc\.threads\.sortBy: unknown argument "order"; use field, direction\.$/);
    await refuses('svc.threads.filter', 'day', /^svc\.threads\.filter takes an object argument with preset, after, before, threadIds\.$/);
    await refuses('svc.threads.filter', { after: '2026-11-01', bogus: 1, other: 2 }, /unknown arguments "bogus", "other"; use preset, after, before, threadIds/);
    await refuses('svc.threads.filter', { preset: 'year' }, /Unknown filter preset "year"; use hour, day, week or month/, 'preset');
    await refuses('svc.threads.filter', { after: 20261101 }, /after must be a string such as 2026-11-15/, 'after');
    await refuses('svc.threads.filter', { threadIds: [] }, /threadIds must be a non-empty list/, 'threadIds');
    // The date bounds and the forms are checked by the schema too: the command's id, the field, and one form at a time.
    await refuses('svc.threads.filter', { after: '2026-02-30' }, /^svc\.threads\.filter: after "2026-02-30": Use a date \(2026-11-15/, 'after');
    await refuses('svc.threads.filter', { after: '2026-11-01', before: 'tomorrow' }, /^svc\.threads\.filter: before "tomorrow": Use a date/, 'before');
    await refuses('svc.threads.filter', {}, /^svc\.threads\.filter: A range needs after, before or both\.$/);
    await refuses('svc.threads.filter', { after: '', before: null }, /^svc\.threads\.filter: A range needs after, before or both\.$/);
    await refuses('svc.threads.filter', { preset: 'day', threadIds: ['t'] }, /^svc\.threads\.filter: give one of \{ preset \}, \{ after, before \} or \{ threadIds \}, not preset and threadIds\.$/, 'threadIds');
    await refuses('svc.threads.filter', { preset: 'day', before: '2026-11-01' }, /give one of \{ preset \}, \{ after, before \} or \{ threadIds \}, not preset and before/, 'before');
    await refuses('svc.threads.show', { threadIds: [] }, /^svc\.threads\.show: "threadIds" must hold at least 1 item\. svc\.threads\.show takes \{ threadIds: \[\.\.\.\], project\? \}\.$/, 'threadIds');
    await refuses('svc.threads.show', { threadIds: ['t', 4] }, /"threadIds\[1\]" must be a string/, 'threadIds[1]');
    await refuses('svc.threads.show', { threadIds: ['t'], project: 5 }, /"project" must be a string/, 'project');
    await refuses('svc.selectProject', { projectId: 5 }, /^svc\.selectProject: projectId must be a string such as "acme\/chatbot"\./, 'projectId');
    await refuses('svc.selectProject', { projectId: 'acme/x', scope: 'folder' }, /scope must be "user" or "workspace", not "folder"/, 'scope');
    await refuses('svc.selectProject', 'acme/x', /svc\.selectProject takes \{ projectId: "<entity>\/<project>", scope\? \}/);
    await refuses('svc.selectProject', { project: 'acme/x' }, /svc\.selectProject needs \{ projectId \}/);
    // A script's object shaped like a row is not a row (rows are known by identity).
    const forged = { kind: 'thread', project: 'evil/elsewhere', row: { thread_id: 'forged', first_turn_id: 'forged-turn' } };
    for (const command of ['svc.threads.copyId', 'svc.threads.copyFirstTurnRef', 'svc.threads.openDetails', 'svc.threads.openJson']) {
      await refuses(command, forged, new RegExp(`^${command.replace(/\./g, '\\.')}: select a thread in the Threads view first, or pass \\{ threadId \\}\\.$`), 'threadId');
    }
    await refuses('svc.threads.copyId', { threadId: 7 }, /select a thread in the Threads view first, or pass \{ threadId \}/, 'threadId');
  });

  it('the Checkpoints commands: { modelId, scope? }, { order }, { checkpointId }', async () => {
    const model = { models: [], order: 'desc', ready: false } as unknown as CheckpointsModel;
    subs.push(...registerCheckpointsCommands({ commands, manager: new CheckpointsManager(model, {} as Connection, new FakeMemento() as unknown as vscode.Memento, new ScriptedPrompts()) }));
    await refuses('svc.checkpoints.toggleOrder', { order: 'up' }, /^svc\.checkpoints\.toggleOrder: order must be "asc" or "desc", not "up"\./, 'order');
    await refuses('svc.checkpoints.addModel', { scope: 'user' }, /^svc\.checkpoints\.addModel needs \{ modelId \}\.$/);
    await refuses('svc.checkpoints.addModel', { modelId: 7 }, /^svc\.checkpoints\.addModel: "modelId" must be a string\. svc\.checkpoints\.addModel takes \{ modelId: string, scope\? \}\.$/, 'modelId');
    await refuses('svc.checkpoints.addModel', { modelId: 'm', scope: 'folder' }, /scope must be "user" or "workspace", not "folder"/, 'scope');
    await refuses('svc.checkpoints.removeModel', { scope: 'user' }, /^svc\.checkpoints\.removeModel: "modelId" must be a non-empty string\. svc\.checkpoints\.removeModel takes a model row or \{ modelId, scope\? \}\.$/, 'modelId');
    await refuses('svc.checkpoints.removeModel', { modelId: 'm', scope: 'everywhere' }, /scope must be "user" or "workspace", not "everywhere"/, 'scope');
    await refuses('svc.checkpoints.refreshModel', { modelId: '' }, /"modelId" must be a non-empty string/, 'modelId');
    await refuses('svc.checkpoints.refresh', { modelId: 3 }, /^svc\.checkpoints\.refresh: "modelId" must be a non-empty string/, 'modelId');
    await refuses('svc.checkpoints.copyId', { kind: 'checkpoint', checkpoint: { id: 'c-1' } }, /svc\.checkpoints\.copyId takes a checkpoint row or \{ checkpointId \}/, 'checkpointId');
    assert.equal(await vscode.commands.executeCommand('svc.checkpoints.copyId', { checkpointId: 'c-42' }), 'c-42');
  });

  it('svc.dashboard.open, svc.dashboard.exportCsv and svc.dashboard.compare', async () => {
    const compared: unknown[] = [];
    const compare = { open: (runs: unknown[]) => Promise.resolve({ sources: runs.map((r) => (compared.push(r), r)) }) } as unknown as CompareRuns;
    const opener = new DashboardOpener({} as Dashboards, compare, { prepare: () => Promise.resolve() } as unknown as Connection, {} as Prompts, new FakeMemento() as unknown as vscode.Memento);
    subs.push(...registerDashboardCommands({ commands, opener }));
    subs.push(registerCompareCommand({ commands, opener }));
    await refuses('svc.dashboard.open', { modelId: 42 }, /^svc\.dashboard\.open: "modelId" must be a model id string\./, 'modelId');
    await refuses('svc.dashboard.open', { checkpointId: 'c' }, /^svc\.dashboard\.open: "modelId" must be a model id string\.$/, 'modelId');
    await refuses('svc.dashboard.open', { file: 3 }, /^svc\.dashboard\.open: "file" must be the path of a history\.jsonl file\./, 'file');
    await refuses('svc.dashboard.open', { file: ' ' }, /"file" must be the path of a history\.jsonl file/, 'file');
    await refuses('svc.dashboard.open', 'm-1', /svc\.dashboard\.open takes a Checkpoints tree item, \{ modelId, checkpointId\? \} or \{ file \}/);
    await refuses('svc.dashboard.exportCsv', { modelId: 'm' }, /^svc\.dashboard\.exportCsv: "path" must be a non-empty string\. svc\.dashboard\.exportCsv takes \{ modelId: string, path: string \}\.$/, 'path');
    await refuses('svc.dashboard.exportCsv', { path: '/tmp/x.csv' }, /"modelId" is needed/, 'modelId');
    await refuses('svc.dashboard.compare', { runs: [{ modelId: 'm' }, { bogus: 1 }] }, /^svc\.dashboard\.compare: runs\[1\] must be \{ modelId: string \} or \{ file: string \}\./, 'runs[1]');
    await refuses('svc.dashboard.compare', { runs: 'm, n' }, /"runs" must be a list\. svc\.dashboard\.compare takes \{ runs: /, 'runs');
    await refuses('svc.dashboard.compare', { runs: [{ modelId: 'm' }] }, /Compare Runs needs at least two runs: pass \{ runs: \[\.\.\.\] \} with two or more \(got 1\)/, 'runs');
    // A script's object shaped like a Checkpoints row is not a row (rows are known by identity): it is refused as arguments.
    await refuses('svc.dashboard.compare', { modelId: 'm' }, /^svc\.dashboard\.compare: "runs" is needed \(a list\)\. svc\.dashboard\.compare takes /, 'runs');
    const [a, b] = [treeNode({ kind: 'model', modelId: 'a' }), treeNode({ kind: 'model', modelId: 'b' })];
    await vscode.commands.executeCommand('svc.dashboard.compare', a, [a, b]);
    assert.deepEqual(compared, [{ modelId: 'a' }, { modelId: 'b' }], 'the selected rows');
  });

  it('svc.threads.copyLink and svc.checkpoints.copyLink', async () => {
    subs.push(...registerCopyLinkCommands(commands, { project: () => '', currentThread: () => undefined }));
    await refuses('svc.threads.copyLink', { project: 'acme/x' }, /^svc\.threads\.copyLink: "threadId" must be a non-empty string\. svc\.threads\.copyLink takes a thread row or \{ threadId, project\? \}\.$/, 'threadId');
    await refuses('svc.threads.copyLink', { threadId: 't', project: ' ' }, /^svc\.threads\.copyLink: "project" must be a project id such as acme\/chatbot\./, 'project');
    await refuses('svc.threads.copyLink', { threadId: 't' }, /svc\.threads\.copyLink: no project is selected; pass \{ project \}/, 'project');
    await refuses('svc.checkpoints.copyLink', { step: 3 }, /takes a model or checkpoint row, or \{ modelId, step\? \}/, 'modelId');
    await refuses('svc.checkpoints.copyLink', { modelId: 'm', step: 1.5 }, /^svc\.checkpoints\.copyLink: "step" must be a whole number of 0 or more, not 1\.5\./, 'step');
    await refuses('svc.checkpoints.copyLink', { modelId: 'm', step: -1 }, /"step" must be a whole number of 0 or more, not -1/, 'step');
  });

  it('svc.followScenario and svc.compareTrajectories', async () => {
    const panels = new ScenarioPanels(vscode.Uri.file('/ext'), {} as never, {} as never, {} as never);
    subs.push(...panels.register(commands));
    await refuses('svc.followScenario', { run: '/runs/m' }, /^svc\.followScenario: "scenario" must be a non-empty string\. svc\.followScenario takes \{ run, scenario, key\?, split\? \} or \{ file, group, trajectory, key\? \}\.$/, 'scenario');
    await refuses('svc.followScenario', { run: '/runs/m', scenario: 's', key: 3 }, /"key" must be a non-empty string/, 'key');
    await refuses('svc.followScenario', { file: 'a.parquet', group: -1, trajectory: 0 }, /"group" must be an integer from 0 \(0-based, as the file numbers it\)/, 'group');
    await refuses('svc.followScenario', { scenarioId: 's' }, /^svc\.followScenario: unknown argument "scenarioId"\. svc\.followScenario takes /);
    await refuses('svc.followScenario', { run: '/runs/m', scenario: 's', splt: 'val' }, /^svc\.followScenario: unknown argument "splt"\./);
    await refuses('svc.followScenario', {}, /^svc\.followScenario: give \{ run, scenario, key\?, split\? \} or \{ file, group, trajectory, key\? \}\.$/);
    await refuses('svc.compareTrajectories', { left: { file: 'a.jsonl', group: 0 } }, /^svc\.compareTrajectories: "left\.trajectory" must be an integer from 0/, 'left.trajectory');
    await refuses('svc.compareTrajectories', { left: { file: 'a.jsonl', group: 0, trajectory: 1 }, right: 'b.jsonl' }, /"right" must be \{ file, group, trajectory \}/, 'right');
    await refuses('svc.compareTrajectories', { left: { file: '', group: 0, trajectory: 1 } }, /"left\.file" must be a non-empty string/, 'left.file');
  });

  it('svc.convertToArt and svc.openHarborJob', async () => {
    subs.push(...activateHarnesses({ commands, log: {} as Logger, prompts: new ScriptedPrompts() }).disposables);
    await refuses('svc.convertToArt', { source: 'job' }, /^svc\.convertToArt: "output" is needed \(a string\)\. svc\.convertToArt takes \{ source, output, reward\?, groupBy\? \}\.$/, 'output');
    await refuses('svc.convertToArt', { source: 'job', output: 'a.jsonl', groupBy: '' }, /"groupBy" must be a non-empty string/, 'groupBy');
    await refuses('svc.convertToArt', { source: 'job', output: 'a.jsonl', reward: 'r', extra: 1 }, /unknown argument "extra"/);
    await refuses('svc.openHarborJob', { folder: 3 }, /^svc\.openHarborJob: "folder" must be a non-empty string\. svc\.openHarborJob takes \{ folder \}\.$/, 'folder');
    await refuses('svc.openHarborJob', { foldr: 'job' }, /^svc\.openHarborJob: "folder" must be a non-empty string\. svc\.openHarborJob takes \{ folder \}\.$/, 'folder');
    await refuses('svc.openHarborJob', { folder: 'job', trial: 1 }, /^svc\.openHarborJob: unknown argument "trial"\./);
  });

  it('svc.signIn and svc.setBaseUrl, never echoing a key', async () => {
    subs.push(...registerAuthCommands({ commands, manager: new AuthManager({ client: {} } as unknown as Connection, {} as CredentialManager, {} as KeyApprovals, new ScriptedPrompts()) }));
    await refuses('svc.signIn', { apiKey: 'sk-secret-1234', target: 'models' }, /^svc\.signIn: target must be "trace" or "training", not "models"\./, 'target');
    await refuses('svc.signIn', { apiKey: 'sk-secret-1234', token: 'sk-secret-5678' }, /^svc\.signIn: unknown argument "token"\./);
    await refuses('svc.signIn', { apiKey: 1234 }, /^svc\.signIn: "apiKey" must be a string\./, 'apiKey');
    await refuses('svc.signIn', { apiKey: 'k', useForModels: 'yes' }, /"useForModels" must be true or false/, 'useForModels');
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.signIn', { apiKey: 'sk-secret-1234', oops: 1 })), (e: Error) => !e.message.includes('sk-secret'));
    await refuses('svc.setBaseUrl', { baseUrl: 'https://svc.example.com', scope: 'folder' }, /^svc\.setBaseUrl: scope must be "user" or "workspace", not "folder"\./, 'scope');
    await refuses('svc.setBaseUrl', { baseUrl: 8080 }, /^svc\.setBaseUrl: "baseUrl" must be a string\./, 'baseUrl');
    await refuses('svc.setBaseUrl', { scope: 'user' }, /svc\.setBaseUrl needs \{ baseUrl \}/, 'baseUrl');
    // The arguments object after an empty first argument is still a script's: refused, no prompt.
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.signIn', undefined, { apiKey: 'sk-secret-1234' })), (e: Error) => /^svc\.signIn takes \{ apiKey \} or .* as its first argument\.$/.test(e.message) && !e.message.includes('sk-secret'));
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.setBaseUrl', undefined, { baseUrl: 'https://svc.example.com' })), /svc\.setBaseUrl takes \{ baseUrl, scope\? \} as its first argument\.$/);
  });

  it('svc.openInWebUi', async () => {
    const webUi = new WebUi({ config: { webUiUrl: 'https://ui.example.com/{project}/{threadId}', project: '' } } as unknown as Connection);
    webUi.useThreads({ project: '', findRow: () => undefined });
    webUi.open = () => Promise.resolve(true);
    subs.push(...webUi.register(commands));
    await refuses('svc.openInWebUi', { ref: 5 }, /^svc\.openInWebUi: "ref" must be a string\. svc\.openInWebUi takes a thread row, \{ threadId, project\? \} or \{ ref, threadId\? \}\.$/, 'ref');
    await refuses('svc.openInWebUi', { threadId: 't', project: ['acme/x'] }, /"project" must be a string/, 'project');
    await refuses('svc.openInWebUi', 'thread-1', /svc\.openInWebUi: the argument must be an object/);
    await refuses('svc.openInWebUi', { threadId: ' ' }, /^svc\.openInWebUi: pass a thread row, \{ threadId, project\? \} or \{ ref, threadId\? \}\.$/);
    await refuses('svc.openInWebUi', { threadId: 't' }, /svc\.openInWebUi: no project: pass \{ threadId, project \} or select a project/, 'project');
    // A script's object shaped like a Threads row is not a row (rows are known by identity), and no key is dropped unread.
    await refuses('svc.openInWebUi', { kind: 'thread', project: 'evil/elsewhere', row: { thread_id: 'forged', last_turn_id: 'x' } }, /^svc\.openInWebUi: unknown arguments "kind", "row"\. svc\.openInWebUi takes a thread row/);
    await refuses('svc.openInWebUi', { threadId: 't', project: 'acme/x', turn: 'last' }, /^svc\.openInWebUi: unknown argument "turn"\./);
    const row = treeNode({ kind: 'thread', project: 'acme/x', row: { thread_id: 't 1', last_turn_id: 'c' } });
    assert.equal(await vscode.commands.executeCommand('svc.openInWebUi', row), 'https://ui.example.com/x/t%201');
    assert.equal(await webUi.openThread('acme/y', { thread_id: 't2' }), 'https://ui.example.com/y/t2');
  });

  it('svc.uploadTrajectories.retryRemaining', async () => {
    const asked: unknown[] = [];
    const manager = { dispose() {}, retryRemaining: (args: unknown) => Promise.resolve(void asked.push(args)) } as unknown as UploadManager;
    subs.push(...registerUploadCommands({ commands, manager }));
    await refuses('svc.uploadTrajectories.retryRemaining', { uncertain: 'all' }, /^svc\.uploadTrajectories\.retryRemaining: "uncertain" must be "skip" or "send", not "all"\./, 'uncertain');
    await vscode.commands.executeCommand('svc.uploadTrajectories.retryRemaining', { uncertain: 'send' });
    await vscode.commands.executeCommand('svc.uploadTrajectories.retryRemaining');
    assert.deepEqual(asked, [{ uncertain: 'send' }, undefined]);
  });

  it('svc.attachFeedback: every refusal names the argument, before anything is sent or asked', async () => {
    // No connection: the arguments are refused before the manager reads any of its dependencies.
    subs.push(...registerFeedbackCommands({ commands, manager: new FeedbackManager({} as FeedbackDeps) }));
    const ref = 'svc:///acme/chatbot/call/c1';
    await refuses('svc.attachFeedback', 'svc:///x', /^svc\.attachFeedback takes an object argument such as \{ ref, kind, note \}\.$/);
    await refuses('svc.attachFeedback', { ref, nots: 'x' }, /^svc\.attachFeedback: Unknown argument "nots"; use ref, kind, note, emoji, feedbackType, payload, creator, turn, id, via\.$/);
    await refuses('svc.attachFeedback', { ref: 7 }, /^svc\.attachFeedback: ref must be a string\.$/, 'ref');
    await refuses('svc.attachFeedback', { ref: 'svc:///acme/call/1' }, /^svc\.attachFeedback: ref "svc:\/\/\/acme\/call\/1" must have the form svc:\/\/\/<entity>/, 'ref');
    await refuses('svc.attachFeedback', { ref, kind: 'comment' }, /^svc\.attachFeedback: kind must be one of note, reaction, custom\.$/, 'kind');
    await refuses('svc.attachFeedback', { ref, note: ' ' }, /^svc\.attachFeedback: note: The note must not be empty\.$/, 'note');
    await refuses('svc.attachFeedback', { ref, emoji: '👍👍' }, /^svc\.attachFeedback: emoji: A reaction must be exactly one emoji\.$/, 'emoji');
    await refuses('svc.attachFeedback', { ref, feedbackType: 'svc.x' }, /^svc\.attachFeedback: feedbackType: "svc\.x" is reserved/, 'feedbackType');
    await refuses('svc.attachFeedback', { ref, payload: '{bad' }, /^svc\.attachFeedback: payload: The payload is not valid JSON: .* at line 1, column 2\.$/, 'payload');
    await refuses('svc.attachFeedback', { ref, feedbackType: 'svc.reaction.1', payload: { emoji: 'no' } }, /^svc\.attachFeedback: payload: A reaction must be exactly one emoji\.$/, 'payload');
    await refuses('svc.attachFeedback', { ref, creator: 3 }, /^svc\.attachFeedback: creator must be a string or null\.$/, 'creator');
    await refuses('svc.attachFeedback', { ref, turn: 'middle' }, /^svc\.attachFeedback: turn must be "first" or "last"\.$/, 'turn');
    await refuses('svc.attachFeedback', { ref, id: 'not-a-uuid' }, /^svc\.attachFeedback: id must be a UUID \(8-4-4-4-12 hexadecimal digits\)\.$/, 'id');
    await refuses('svc.attachFeedback', { ref, via: 'menu' }, /^svc\.attachFeedback: via must be "link" \(set by ref links\) or left out\.$/, 'via');
    await refuses('svc.attachFeedback', { ref, note: 'x', emoji: '👍' }, /^svc\.attachFeedback: Give one kind of feedback: note and reaction arguments were both given\.$/, 'kind');
    await refuses('svc.attachFeedback', { ref, kind: 'note', emoji: '👍' }, /^svc\.attachFeedback: emoji cannot be used with kind "note"\.$/, 'emoji');
    await refuses('svc.attachFeedback', { ref, kind: 'reaction', payload: {} }, /^svc\.attachFeedback: feedbackType\/payload cannot be used with kind "reaction"\.$/, 'payload');
  });

  it('svc.openTrajectoryViewer: an arguments object is parsed whole, never read as "no arguments"', () => {
    // Before: only an object with a "file" key was parsed; `{ fil }` or `{ reward }` alone fell through to the active editor's file.
    const refusal = (arg: unknown, message: RegExp, field?: string) =>
      assert.throws(
        () => openViewerArgs(arg),
        (e: unknown) => e instanceof InputError && message.test(e.message) && (field === undefined || e.place.field === field),
      );
    refusal({ fil: 'a.jsonl' }, /^svc\.openTrajectoryViewer: "file" is needed\. svc\.openTrajectoryViewer takes \{ file, reward\?, group\?, trajectory\?, message\? \}\.$/, 'file');
    refusal({ reward: { min: 0.5 } }, /^svc\.openTrajectoryViewer: "file" is needed\./, 'file');
    refusal({ file: 'a.jsonl', rewards: { min: 0.5 } }, /^svc\.openTrajectoryViewer: unknown argument "rewards"\./);
    refusal({ file: 'a.jsonl', trajectory: 2 }, /^svc\.openTrajectoryViewer: trajectory and message need a group\./, 'group');
    assert.deepEqual(openViewerArgs({ file: 'a.jsonl', reward: { min: 0.5 } }), { file: 'a.jsonl', reward: { min: 0.5 } });
    // What menus pass is not an arguments object.
    assert.equal(openViewerArgs(vscode.Uri.file('/a.jsonl')), undefined);
    assert.equal(openViewerArgs(undefined), undefined);
  });
});
