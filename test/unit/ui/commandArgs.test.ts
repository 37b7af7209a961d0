/**
 * The refusals of scripted command calls (an arguments object), each parsed by ui/args.ts's
 * parseArgs: the command's id, the field and what it must be. The in-host suites pin some of these
 * messages too; these run in plain Node over the fake `vscode`.
 */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { fake } from '../../fakes/vscode';
import { InputError } from '../../../src/api';
import { registerRunsCommands } from '../../../src/runs/commands';
import type { RunsModel } from '../../../src/runs/model';
import { registerRunSearch } from '../../../src/search/command';
import type { SearchCache } from '../../../src/search/searchCache';
import type { TrajectoryViewerProvider } from '../../../src/viewer/provider';
import type { WorkspaceRuns } from '../../../src/ui/runPick';

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
  const subs: { dispose(): unknown }[] = [];
  beforeEach(() => fake.reset());
  afterEach(() => subs.splice(0).forEach((d) => d.dispose()));

  it('svc.runs.openDashboard and svc.runs.openStep', async () => {
    subs.push(...registerRunsCommands({} as RunsModel, () => []));
    await refuses('svc.runs.openDashboard', { dir: ' ' }, /^svc\.runs\.openDashboard: "dir" must be a non-empty string\. svc\.runs\.openDashboard takes \{ dir: the model folder/, 'dir');
    await refuses('svc.runs.openDashboard', { folder: 'x' }, /"dir" is needed \(a string\)/, 'dir');
    await refuses('svc.runs.openStep', { file: 3 }, /^svc\.runs\.openStep: "file" must be a string\. svc\.runs\.openStep takes \{ file: a step file, reward\?: \{ min\?, max\? \} \}\.$/, 'file');
    await refuses('svc.runs.openStep', { file: 'a.parquet', reward: { min: 2, max: 1 } }, /min 2 is above max 1/, 'reward');
  });

  it('svc.searchRun', async () => {
    const cache = { useDisk() {}, clear: () => Promise.resolve() } as unknown as SearchCache;
    subs.push(...registerRunSearch({} as TrajectoryViewerProvider, {} as WorkspaceRuns, cache, '/nowhere'));
    await refuses('svc.searchRun', { run: 'm' }, /^svc\.searchRun: "query" must be a non-empty string\./, 'query');
    await refuses('svc.searchRun', { run: 'm', query: '' }, /"query" must be a non-empty string/, 'query');
    await refuses('svc.searchRun', { query: 'x' }, /give exactly one of "run" \(a run folder or its history\.jsonl\) and "files"/, 'run');
    await refuses('svc.searchRun', { run: 'm', files: [], query: 'x' }, /give exactly one of "run"/, 'run');
    await refuses('svc.searchRun', { run: 'm', query: 'x', steps: '5-40' }, /"steps" must be \{ from\?: number, to\?: number \}/, 'steps');
    await refuses('svc.searchRun', { run: 'm', query: 'x', reward: { min: 0, high: 1 } }, /"reward" must be \{ min\?: number, max\?: number \}/, 'reward');
    await refuses('svc.searchRun', { run: 'm', query: 'x', verdict: 'good' }, /"verdict" must be one of trains, not-trained, fails/, 'verdict');
    await refuses('svc.searchRun', { run: 'm', query: 'x', limit: 0 }, /"limit" must be a positive integer/, 'limit');
    await refuses('svc.searchRun', { run: 'm', query: 'x', role: 1 }, /"role" must be a string/, 'role');
    await refuses('svc.searchRun', { files: ['a', 2], query: 'x' }, /"files\[1\]" must be a string/, 'files[1]');
  });
});
