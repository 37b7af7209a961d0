// The trajectory viewer says what ART's trainer will train on: each group row carries its verdict
// ("0 of 3: no reward variance") and the file's progress its summary line, from the same verdicts
// as the agents' tools (src/files/verdicts.ts). Fixture: test/fixtures/trainability/step.jsonl,
// written by Python's json in ART's shapes.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { TrajectoryIndex } from '../../../src/files/groupIndex';
import type { ViewerSession } from '../../../src/viewer/session';
import { summaryText } from '../../../src/files/verdicts';
import { waitFor } from './helpers';
import { openAsStepFile, openInViewer } from './setups';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-viewer-trainability-'));
const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/trainability/step.jsonl');

type Rendered = NonNullable<ViewerSession['lastRendered']>;

/** The fixture's summary line. */
const SUMMARY =
  'Of 17 trajectories, 7 will train; 2 zero advantage, 3 in groups without reward variance, 1 in a group of one, 1 without logprobs, 1 with logprobs only in message dicts (not read), 1 without a trainable assistant turn, 1 exception. ' +
  "4 of 7 groups train (ART's data/step_num_groups_trainable would say 5: it counts groups whose rewards vary).";

const open = (file: string) => openInViewer(file, { indexed: true });

/** What the webview's trajectory list rendered: "#3 zero advantage (0.5 − 0.5 = 0)". */
const badges = (r: Rendered) => (r.trajectoryRows ?? []).map((t) => `${t.label} ${t.badge}`);

async function showGroup(session: ViewerSession, group: number, trajectory = 0): Promise<Rendered> {
  session.select(group, trajectory);
  await waitFor(`group ${group + 1}, trajectory ${trajectory + 1}`, () => session.lastRendered?.group === group && session.lastRendered.trajectory === trajectory && !!session.lastRendered.trajectoryRows?.length, 20_000);
  return session.lastRendered!;
}

/**
 * The badges and the filter on the fixture's groups, as the webview renders them: the same for the
 * JSONL file (verdicts from the index) and the Parquet one (verdicts when a group is read).
 */
async function checkBadgesAndFilter(session: ViewerSession): Promise<void> {
  // Group 1: rewards 1, 0, 0.5, 0.5 (mean 0.5, std 0.354): two train, two have zero advantage.
  let r = await showGroup(session, 0);
  assert.deepStrictEqual(badges(r), ['#1 adv +1.41', '#2 adv -1.41', '#3 zero advantage (0.5 − 0.5 = 0)', '#4 zero advantage (0.5 − 0.5 = 0)']);
  const zero = r.trajectoryRows![2]!.tooltip;
  assert.match(zero, /^ART does not train on this trajectory\.\nZero advantage: its reward 0\.5 equals its group's mean 0\.5/);
  assert.match(zero, /drop_zero_advantage_trajectories/);
  assert.match(zero, /src\/art\/preprocessing\/tokenize\.py: tokenize_trajectory_groups/, 'the tooltip names the ART rule');
  assert.match(r.trajectoryRows![0]!.tooltip, /^ART trains on this trajectory\.\nAdvantage \+0\.5 \(reward 1 − group mean 0\.5\); \+1\.41421 over the group's std 0\.353553/);
  // Group 2 has no reward variance, group 3 is a group of one.
  r = await showGroup(session, 1);
  assert.deepStrictEqual(badges(r), ['#1 no variance', '#2 no variance', '#3 no variance']);
  r = await showGroup(session, 2);
  assert.deepStrictEqual(badges(r), ['#1 group of one']);
  assert.match(r.trajectoryRows![0]!.tooltip, /A group of one/);
  // Group 4: a trajectory whose choice has logprobs null; group 5: logprobs in message dicts, and an assistant dict.
  r = await showGroup(session, 3);
  assert.deepStrictEqual(badges(r), ['#1 no logprobs', '#2 adv -1.00']);
  assert.match(r.trajectoryRows![0]!.tooltip, /No logprobs on its 1 assistant choice \(logprobs is null\).*ART issue #336/);
  r = await showGroup(session, 4);
  assert.deepStrictEqual(badges(r), ['#1 dict logprobs', '#2 no trainable turn']);
  assert.match(r.trajectoryRows![0]!.tooltip, /ART pull request #467/);
  r = await showGroup(session, 5);
  assert.deepStrictEqual(badges(r), ['#1 adv +1.00', '#2 adv -1.00']);
  assert.strictEqual(r.untrainedOnly, false);
  assert.deepStrictEqual(r.groupsListed, [1, 2, 3, 4, 5, 6, 7]);

  // "Will not train": group 6 trains fully, so the view moves to the first group that does not;
  // there only the two zero-advantage trajectories stay listed.
  session.filterUntrained(true);
  await waitFor('the filter to show group 1, trajectory 3', () => !!session.lastRendered?.untrainedOnly && session.lastRendered.group === 0 && session.lastRendered.trajectory === 2, 30_000);
  r = session.lastRendered!;
  assert.deepStrictEqual(r.groupsListed, [1, 2, 3, 4, 5], 'groups 6 and 7 train fully: hidden');
  assert.deepStrictEqual(badges(r), ['#3 zero advantage (0.5 − 0.5 = 0)', '#4 zero advantage (0.5 − 0.5 = 0)']);
  r = await showGroup(session, 3);
  assert.deepStrictEqual(badges(r), ['#1 no logprobs'], 'the trajectory that trains is hidden');

  session.filterUntrained(false);
  await waitFor('the filter to be off', () => session.lastRendered?.untrainedOnly === false && session.lastRendered.trajectoryRows?.length === 2, 20_000);
  r = session.lastRendered!;
  assert.deepStrictEqual(r.groupsListed, [1, 2, 3, 4, 5, 6, 7]);
  assert.deepStrictEqual(badges(r), ['#1 no logprobs', '#2 adv -1.00']);
}

describe('trajectory viewer: what ART will train on', function () {
  this.timeout(60_000);
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives each group row its verdict and the file its summary line', async () => {
    const file = path.join(dir, 'step.trajectories.jsonl');
    fs.copyFileSync(path.resolve(__dirname, '../../../test/fixtures/trainability/step.jsonl'), file);
    const session = await open(file);
    await waitFor('the summary line on screen', () => !!session.lastRendered?.trainability, 20_000);
    assert.strictEqual(session.lastRendered!.trainability, SUMMARY);
    const index = session.index!;
    const rows = Array.from({ length: index.groups }, (_, i) => session.row(index, i).verdict);
    assert.deepStrictEqual(
      rows.map((v) => v?.text),
      ['2 of 4', '0 of 3: no reward variance', '0 of 1: group of one', '1 of 2', '0 of 2: with logprobs only in message dicts (not read)', '2 of 2', '2 of 2'],
    );
    assert.deepStrictEqual(rows.map((v) => v?.fails), [false, false, false, false, false, false, false]);
    assert.strictEqual(summaryText((index as TrajectoryIndex).verdicts), SUMMARY);
  });

  it('badges each trajectory with its verdict (tooltip: the reason and the ART rule), and "will not train" hides what trains', async () => {
    const file = path.join(dir, 'badges.trajectories.jsonl');
    fs.copyFileSync(FIXTURE, file);
    await checkBadgesAndFilter(await open(file));
  });

  it('gives a Parquet step file the same verdicts, computed as its groups are read', async () => {
    const session = await openAsStepFile(FIXTURE, dir);
    // The summary line: the index reads no trajectory_json, so it comes once the groups are read after it.
    await waitFor('the Parquet file\'s summary line on screen', () => !!session.lastRendered?.trainability, 20_000);
    assert.strictEqual(session.lastRendered!.trainability, SUMMARY);
    await checkBadgesAndFilter(session);
    // Every group was read for the filter: each row has its verdict now, as a JSONL file's index gives it.
    const index = session.index!;
    assert.deepStrictEqual(
      Array.from({ length: index.groups }, (_, i) => session.row(index, i).verdict?.text),
      ['2 of 4', '0 of 3: no reward variance', '0 of 1: group of one', '1 of 2', '0 of 2: with logprobs only in message dicts (not read)', '2 of 2', '2 of 2'],
    );
  });
});
