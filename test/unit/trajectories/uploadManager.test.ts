import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { AuthenticationError, InputError } from '../../../src/api';
import { ErrorPresenter } from '../../../src/common/errors';
import { RECENT_MODELS } from '../../../src/common/pick';
import { UploadManager } from '../../../src/trajectories/manager';
import type { UploadFinished } from '../../../src/trajectories/report';
import { connect, type Service } from '../../fakes/service';
import { fake, Uri } from '../../fakes/vscode';
import { numberedGroup as group, numberedJsonl } from '../../fixtures/trajectories/numbered';

const scripted = { interactive: false };
const user = { interactive: true };
const LOG = (model: string) => `/v1/preview/models/${model}/log`;


// Upload Trajectories' flow against the reference service in plain Node (the in-host suites cover
// the explorer, the editor and the notifications' buttons around it).
describe('UploadManager (plain Node, reference service)', () => {
  let svc: Service;
  let uploads: UploadManager;
  let dir: string;
  let finished: UploadFinished[];

  beforeEach(async () => {
    svc = await connect();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-upload-unit-'));
    const context = { globalState: svc.globalState, workspaceState: svc.workspaceState } as unknown as vscode.ExtensionContext;
    uploads = new UploadManager(svc.connection, new ErrorPresenter(svc.log, svc.prompts), svc.prompts, svc.contextKeys, svc.log, context);
    finished = [];
    uploads.onDidFinish((e) => finished.push(e));
  });
  afterEach(async () => {
    uploads.dispose();
    await svc.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const writeJsonl = (name: string, n: number) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, numberedJsonl(n));
    return file;
  };
  const logged = () => svc.server.store.logs.flatMap((l) => (l.body.trajectory_groups as { trajectories: { metadata: { group: number } }[] }[]).map((g) => g.trajectories[0]!.metadata.group));
  const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('sends every group of the files in order, remembers the model, and says it finished', async () => {
    const file = writeJsonl('a.jsonl', 5);
    const report = await uploads.upload(scripted, { files: [file], modelId: 'model-a', split: 'train' });
    assert.equal(report.status, 'done');
    assert.deepEqual(logged(), upTo(5));
    assert.deepEqual(finished.map((f) => [f.modelId, f.split, f.report.status]), [['model-a', 'train', 'done']]);
    assert.deepEqual(svc.globalState.get(RECENT_MODELS), ['model-a']);
  });

  it('refuses a scripted call without files, model or split at once, naming the argument, without a dialog', async () => {
    const file = writeJsonl('a.jsonl', 1);
    const field = async (args: object) => {
      const e = await uploads.upload(scripted, args).then(() => undefined, (e: unknown) => e);
      assert.ok(e instanceof InputError, String(e));
      return e.place.field;
    };
    assert.equal(await field({ modelId: 'm', split: 's' }), 'files');
    assert.equal(await field({ files: [file], split: 's' }), 'modelId');
    assert.equal(await field({ files: [file], modelId: 'm' }), 'split');
    assert.equal(await field({ files: [file], modelId: 'm', split: 's', allowRepeat: 'yes' }), 'allowRepeat');
    assert.equal(await field({ files: [file], modelId: 'm', split: 's', maxRequestBytes: 0 }), 'maxRequestBytes');
    await assert.rejects(uploads.upload(scripted, { files: [file], modelId: 'm', split: 's', maxRequestBytes: '1 MiB' }), /^InputError: svc\.uploadTrajectories: "maxRequestBytes" must be a number\./);
    assert.equal(svc.prompts.openDialogs, 0);
    assert.equal(svc.server.stats.count(), 0);
  });

  it('refuses when signed out with the same error for a user and a script, sending nothing', async () => {
    const file = writeJsonl('a.jsonl', 1);
    await svc.signOut();
    for (const how of [user, scripted]) {
      await assert.rejects(uploads.upload(how, { files: [file], modelId: 'm', split: 's' }), (e: unknown) => e instanceof AuthenticationError && /^svc\.uploadTrajectories: not signed in to 127\.0\.0\.1:\d+: run "svc: Sign In" first\.$/.test(e.message));
    }
    assert.equal(svc.prompts.shown.length, 0, 'the manager shows nothing itself: the presenter does');
    assert.equal(svc.server.stats.count(LOG('m')), 0);
  });

  it('refuses a second upload while one runs, for a user as for a script', async () => {
    const file = writeJsonl('a.jsonl', 3);
    svc.server.faults.add({ kind: 'delay', ms: 300, path: LOG('model-b') });
    const running = uploads.upload(scripted, { files: [file], modelId: 'model-b', split: 'train' });
    while (svc.server.stats.count(LOG('model-b')) === 0) await new Promise((r) => setTimeout(r, 5));
    for (const how of [user, scripted]) await assert.rejects(uploads.upload(how, { files: [file], modelId: 'model-b', split: 'train' }), /an upload is already running/);
    // Cancel Upload shows while it runs (its `when` is svc.uploading), and goes when it is done.
    assert.equal(svc.contextKeys.get('svc.uploading'), true);
    assert.equal((await running).status, 'done');
    assert.equal(svc.contextKeys.get('svc.uploading'), false);
  });

  it('validates before sending: a file with a problem is in the Problems panel and nothing is sent', async () => {
    const file = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(file, [JSON.stringify(group(0)), '{"trajectories": [{"messages_and_choices": [], "reward": "high"}]}'].join('\n') + '\n');
    const report = await uploads.upload(scripted, { files: [file], modelId: 'model-x', split: 'train' });
    assert.equal(report.status, 'invalid');
    const entries = fake.diagnostics.get('svc-trajectories')!.get(Uri.file(file))!;
    assert.ok(entries.some((d) => d.range.start.line === 1));
    assert.equal(svc.server.stats.count(LOG('model-x')), 0);
  });

  it('stops after the request in flight on cancel; Retry Remaining sends the rest, none twice', async () => {
    const file = writeJsonl('many.jsonl', 40);
    svc.server.faults.add({ kind: 'delay', ms: 100, path: LOG('model-c'), times: 100 });
    const running = uploads.upload(scripted, { files: [file], modelId: 'model-c', split: 'train', maxRequestBytes: 2048 });
    while (svc.server.store.logs.length < 2) await new Promise((r) => setTimeout(r, 5));
    uploads.cancel();
    assert.equal((await running).status, 'cancelled');
    const before = logged();
    assert.ok(before.length > 0 && before.length < 40);
    assert.deepEqual(before, upTo(before.length), 'a prefix, in order');
    svc.server.faults.clear();
    assert.equal((await uploads.retryRemaining({})).status, 'done');
    assert.deepEqual(logged(), upTo(40));
  });

  it('never retries a refused request itself; Retry Remaining resumes from the first unsent group', async () => {
    const file = writeJsonl('fail.jsonl', 12);
    svc.server.faults.add([{ kind: 'delay', ms: 0, path: LOG('model-f') }, { kind: 'status', status: 429, path: LOG('model-f') }]);
    const report = await uploads.upload(scripted, { files: [file], modelId: 'model-f', split: 'train', maxRequestBytes: 2048 });
    assert.equal(report.status, 'failed');
    assert.equal(svc.server.stats.count(LOG('model-f')), 2, 'the refused request was not sent again');
    assert.equal((await uploads.retryRemaining({})).status, 'done');
    assert.deepEqual(logged(), upTo(12));
  });
});
