import * as assert from 'node:assert/strict';
import { InputError } from '../../../src/api';
import { ErrorPresenter } from '../../../src/common/errors';
import { FeedbackManager } from '../../../src/feedback/manager';
import { FeedbackRecord } from '../../../src/feedback/record';
import { connect, PROJECT, type Service } from '../../fakes/service';
import { fake } from '../../fakes/vscode';

const CREATE = '/feedback/create';

// Attach Feedback's flow for scripted calls against the reference service in plain Node (the
// in-host suites cover the questions a user answers).
describe('FeedbackManager (plain Node, reference service)', () => {
  let svc: Service;
  let feedback: FeedbackManager;
  let record: FeedbackRecord;
  const ref = `svc:///${PROJECT}/call/thread-0-turn-0`;

  beforeEach(async () => {
    svc = await connect({ 'svc.feedback.creator': 'alice' });
    svc.server.seedThreads(PROJECT, 1);
    record = new FeedbackRecord(svc.workspaceState);
    feedback = new FeedbackManager({ connection: svc.connection, errors: new ErrorPresenter(svc.log, svc.prompts), prompts: svc.prompts, log: svc.log, globalState: svc.globalState, record });
  });
  afterEach(() => svc.close());

  it('attaches a scripted note with the creator from the settings, and records it', async () => {
    const created = await feedback.attachFrom({ ref, note: 'wrong tool at turn 4' });
    assert.ok(created);
    assert.deepEqual(svc.server.store.feedback.map((f) => [f.feedback_type, f.payload, f.creator]), [['svc.note.1', { note: 'wrong tool at turn 4' }, 'alice']]);
    assert.equal(record.forRefs([ref]).length, 1);
  });

  it('sends one id for the feedback, so a connection lost after the service stored it stores it once', async () => {
    svc.server.faults.add({ kind: 'reset-after-processing', path: CREATE });
    await feedback.attachFrom({ ref, emoji: '👍' });
    assert.equal(svc.server.stats.count(CREATE), 2, 'sent again after the reset');
    assert.equal(svc.server.store.feedback.length, 1);
  });

  it('refuses a ref of another project with the fix to switch, sending nothing', async () => {
    await assert.rejects(feedback.attachFrom({ ref: 'svc:///acme/other/call/c-1', note: 'x' }), (e: unknown) => e instanceof InputError && e.place.field === 'ref' && e.fix?.command === 'svc.selectProject');
    assert.equal(svc.server.stats.count(CREATE), 0);
  });

  it('refuses a script without a project, and shows a link click the same refusal instead of asking', async () => {
    fake.setSettings({ 'svc.project': '' });
    await assert.rejects(feedback.attachFrom({ ref, note: 'x' }), /No project is selected/);
    assert.equal(await feedback.attachFrom({ ref, via: 'link' }), undefined);
    await new Promise((r) => setImmediate(r));
    assert.match(svc.prompts.messages('error').join('\n'), /No project is selected/);
    assert.equal(svc.server.stats.count(CREATE), 0);
  });
});
