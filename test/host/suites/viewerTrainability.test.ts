// The trajectory viewer says what ART's trainer will train on: each group row carries its verdict
// ("0 of 3: no reward variance") and the file's progress its summary line, from the same verdicts
// as the agents' tools (src/viewer/verdicts.ts). Fixture: test/fixtures/trainability/step.jsonl,
// written by Python's json in ART's shapes.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { TrajectoryIndex } from '../../../src/files/groupIndex';
import type { ViewerSession } from '../../../src/viewer/session';
import { summaryText } from '../../../src/viewer/verdicts';
import { api, waitFor } from './helpers';

const VIEW_TYPE = 'svc.trajectoryViewer';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-viewer-trainability-'));

describe('trajectory viewer: what ART will train on', function () {
  this.timeout(60_000);
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives each group row its verdict and the file its summary line', async () => {
    const file = path.join(dir, 'step.trajectories.jsonl');
    fs.copyFileSync(path.resolve(__dirname, '../../../test/fixtures/trainability/step.jsonl'), file);
    const uri = vscode.Uri.file(file);
    const viewer = (await api()).viewer;
    await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
    let session: ViewerSession | undefined;
    await waitFor('the viewer to open', () => !!(session = viewer.sessionsFor(uri)[0]), 20_000);
    await waitFor('the webview to render a trajectory', () => session!.lastRendered?.trajectory !== undefined, 30_000);
    await session!.whenIndexed();
    const index = session!.index!;
    const rows = Array.from({ length: index.groups }, (_, i) => session!.row(index, i).verdict);
    assert.deepStrictEqual(
      rows.map((v) => v?.text),
      ['2 of 4', '0 of 3: no reward variance', '0 of 1: group of one', '1 of 2', '0 of 2: with logprobs only in message dicts (not read)', '2 of 2', '2 of 2'],
    );
    assert.deepStrictEqual(rows.map((v) => v?.fails), [false, false, false, false, false, false, false]);
    assert.strictEqual(
      summaryText((index as TrajectoryIndex).verdicts),
      'Of 17 trajectories, 7 will train; 2 zero advantage, 3 in groups without reward variance, 1 in a group of one, 1 without logprobs, 1 with logprobs only in message dicts (not read), 1 without a trainable assistant turn, 1 exception. ' +
        "4 of 7 groups train (ART's data/step_num_groups_trainable would say 5: it counts groups whose rewards vary).",
    );
  });
});
