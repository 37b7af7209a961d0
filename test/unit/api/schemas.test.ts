import assert from 'node:assert/strict';
import {
  CallBatchItem,
  CheckpointList,
  FeedbackCreateRequest,
  ThreadRow,
  ThreadsQueryRequest,
  TrajectoryLogRequest,
  ListCheckpointsQuery,
} from '../../../src/api/schemas';

const okFeedback = {
  project_id: 'acme/chatbot',
  svc_ref: 'svc:///acme/chatbot/call/abc',
  feedback_type: 'svc.note.1',
  payload: { note: 'good' },
};

describe('api/schemas', () => {
  describe('FeedbackCreateRequest', () => {
    it('accepts a minimal request and call/op/object refs as svc_ref', () => {
      assert.ok(FeedbackCreateRequest.safeParse(okFeedback).success);
      assert.ok(FeedbackCreateRequest.safeParse({ ...okFeedback, svc_ref: 'svc:///acme/chatbot/op/f:1' }).success);
      assert.ok(FeedbackCreateRequest.safeParse({ ...okFeedback, svc_ref: 'svc:///acme/chatbot/object/o:1' }).success);
    });
    it('refuses svc_user_id set by the client', () => {
      const r = FeedbackCreateRequest.safeParse({ ...okFeedback, svc_user_id: 'me' });
      assert.ok(!r.success);
      assert.deepEqual(r.error.issues[0]!.path, ['svc_user_id']);
    });
    it('refuses a ref of the wrong kind for its field', () => {
      const r = FeedbackCreateRequest.safeParse({ ...okFeedback, call_ref: 'svc:///acme/chatbot/object/o:1' });
      assert.ok(!r.success);
      assert.deepEqual(r.error.issues[0]!.path, ['call_ref']);
    });
    it('refuses a ref whose project differs from project_id, naming both', () => {
      const r = FeedbackCreateRequest.safeParse({ ...okFeedback, svc_ref: 'svc:///other/proj/call/abc' });
      assert.ok(!r.success);
      assert.match(r.error.issues[0]!.message, /other\/proj.*acme\/chatbot/);
    });
    it('refuses a non-UUID id, unknown fields and a non-object payload', () => {
      assert.ok(!FeedbackCreateRequest.safeParse({ ...okFeedback, id: 'nope' }).success);
      assert.ok(!FeedbackCreateRequest.safeParse({ ...okFeedback, extra: 1 }).success);
      assert.ok(!FeedbackCreateRequest.safeParse({ ...okFeedback, payload: [1] }).success);
      assert.ok(!FeedbackCreateRequest.safeParse({ ...okFeedback, project_id: 'acme' }).success);
    });
  });

  describe('free-form JSON objects reach the service whole', () => {
    // JSON.parse makes an own "__proto__" key; z.record rebuilt the object without it.
    const proto = () => JSON.parse('{"__proto__": {"x": 1}, "note": "n"}') as Record<string, unknown>;
    it('keeps an own __proto__ key of a feedback payload', () => {
      const r = FeedbackCreateRequest.parse({ ...okFeedback, payload: proto() });
      assert.equal(JSON.stringify(r.payload), '{"__proto__":{"x":1},"note":"n"}');
    });
    it('keeps an own __proto__ key of a call\'s attributes and inputs', () => {
      const r = CallBatchItem.parse({ mode: 'start', req: { start: { project_id: 'a/b', op_name: 'op', started_at: '2026-11-20T10:00:00Z', attributes: proto(), inputs: proto() } } });
      assert.match(JSON.stringify(r), /"attributes":\{"__proto__":\{"x":1\},"note":"n"\},"inputs":\{"__proto__":\{"x":1\},"note":"n"\}/);
    });
    it('still refuses a payload that is not an object, by name', () => {
      for (const payload of [null, 'x', 1, [1]]) {
        const r = FeedbackCreateRequest.safeParse({ ...okFeedback, payload });
        assert.ok(!r.success, JSON.stringify(payload));
        assert.deepEqual(r.error.issues[0]!.path, ['payload']);
        assert.match(r.error.issues[0]!.message, /^expected object, received (null|string|number|array)$/);
      }
    });
  });

  describe('CallBatchItem', () => {
    const start = {
      mode: 'start',
      req: { start: { project_id: 'a/b', op_name: 'op', started_at: '2026-11-20T10:00:00Z', attributes: {}, inputs: {} } },
    };
    it('accepts start and end items', () => {
      assert.ok(CallBatchItem.safeParse(start).success);
      const end = { mode: 'end', req: { end: { project_id: 'a/b', id: 'c', ended_at: '2026-11-20T10:00:01.5Z', summary: {} } } };
      assert.ok(CallBatchItem.safeParse(end).success);
    });
    it('refuses an unknown mode, a missing required field and a bad date', () => {
      assert.ok(!CallBatchItem.safeParse({ ...start, mode: 'finish' }).success);
      const { inputs: _drop, ...noInputs } = start.req.start;
      assert.ok(!CallBatchItem.safeParse({ mode: 'start', req: { start: noInputs } }).success);
      assert.ok(!CallBatchItem.safeParse({ mode: 'start', req: { start: { ...start.req.start, started_at: 'yesterday' } } }).success);
      assert.ok(!CallBatchItem.safeParse({ mode: 'start', req: { start: { ...start.req.start, svc_run_step: 1.5 } } }).success);
    });
  });

  describe('ThreadsQueryRequest and ThreadRow', () => {
    it('accepts the six sort fields in both directions and nothing else', () => {
      for (const field of ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms']) {
        for (const direction of ['asc', 'desc']) {
          assert.ok(ThreadsQueryRequest.safeParse({ project_id: 'a/b', sort_by: [{ field, direction }] }).success);
        }
      }
      assert.ok(!ThreadsQueryRequest.safeParse({ project_id: 'a/b', sort_by: [{ field: 'cost', direction: 'asc' }] }).success);
      assert.ok(!ThreadsQueryRequest.safeParse({ project_id: 'a/b', sort_by: [{ field: 'turn_count', direction: 'up' }] }).success);
      assert.ok(!ThreadsQueryRequest.safeParse({ project_id: 'a/b', limit: -1 }).success);
    });
    it('keeps unknown row fields and accepts null and -1 durations', () => {
      const row = ThreadRow.parse({
        thread_id: 't', turn_count: 2, start_time: 's', last_updated: 'l', p50_turn_duration_ms: -1, p99_turn_duration_ms: null, extra: 'kept',
      });
      assert.equal((row as Record<string, unknown>).extra, 'kept');
      assert.equal(row.p50_turn_duration_ms, -1);
    });
  });

  describe('TrajectoryLogRequest', () => {
    const traj = {
      messages_and_choices: [
        { role: 'system', content: 'be nice' },
        { role: 'user', content: 'hi' },
        { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'hello' } },
      ],
      reward: 1,
      tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: {}, strict: true } }],
      metrics: { acc: 0.5, ok: true },
      metadata: { run: 'x', n: 1, flag: false, none: null },
      logs: ['a'],
      additional_histories: [{ messages_and_choices: [{ role: 'user', content: 'x' }] }],
      start_time: '2026-11-20T10:00:00Z',
    };
    it('accepts a complete request', () => {
      const r = TrajectoryLogRequest.safeParse({ split: 'train', trajectory_groups: [{ trajectories: [traj] }] });
      assert.ok(r.success, JSON.stringify(r.error?.issues));
    });
    it('reports every problem with its path', () => {
      const bad = {
        split: 'train',
        trajectory_groups: [
          { trajectories: [{ ...traj, reward: 'high' }, { ...traj, messages_and_choices: [{ role: 'robot', content: 'x' }] }] },
          { trajectories: [{ ...traj, metrics: { acc: 'x' } }] },
        ],
      };
      const r = TrajectoryLogRequest.safeParse(bad);
      assert.ok(!r.success);
      const paths = r.error.issues.map((i) => i.path.join('.'));
      assert.ok(paths.includes('trajectory_groups.0.trajectories.0.reward'), paths.join(' | '));
      assert.ok(paths.some((p) => p.startsWith('trajectory_groups.0.trajectories.1.messages_and_choices.0')), paths.join(' | '));
      assert.ok(paths.includes('trajectory_groups.1.trajectories.0.metrics.acc'), paths.join(' | '));
    });
    it('takes unknown fields and null optional fields, as the service does (behaviour note)', () => {
      const r = TrajectoryLogRequest.safeParse({ split: 't', model_id: 'm', trajectory_groups: [{ trajectories: [{ ...traj, rewards: 1, tools: null, initial_policy_version: null }], exceptions: [] }] });
      assert.ok(r.success, JSON.stringify(r.error?.issues));
      assert.equal((r.data.trajectory_groups[0]!.trajectories![0] as Record<string, unknown>).rewards, 1, 'an unknown field is kept');
    });
    it('still refuses a wrong type for a known field and a missing required one', () => {
      assert.ok(!TrajectoryLogRequest.safeParse({ split: 't', trajectory_groups: [{ trajectories: [{ ...traj, reward: 'high' }] }] }).success);
      const exchange = { request: {}, response: {}, model: 'm', start_time: '2026-01-01T00:00:00Z' };
      assert.ok(!TrajectoryLogRequest.safeParse({ split: 't', trajectory_groups: [{ trajectories: [{ exchanges: { responses: [exchange] } }] }] }).success, 'end_time is required');
    });
    it("takes ART's compact dumps: a trajectory without messages_and_choices and a group without trajectories", () => {
      const r = TrajectoryLogRequest.safeParse({ split: 't', trajectory_groups: [{ trajectories: [{ reward: 1 }, {}] }, {}, { exceptions: [{ type: 'E', message: 'm', traceback: 't' }] }] });
      assert.ok(r.success, JSON.stringify(r.error?.issues));
    });
    it('refuses exchanges together with legacy fields, as ART\'s validator does, at the trajectory', () => {
      const exchange = { request: {}, response: {}, model: 'm', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' };
      const ok = { exchanges: { chat_completions: [exchange] } };
      assert.ok(TrajectoryLogRequest.safeParse({ split: 't', trajectory_groups: [{ trajectories: [ok, { ...ok, tools: null, messages_and_choices: [], exchanges: { ...ok.exchanges, responses: [] } }] }] }).success);
      for (const legacy of [{ messages_and_choices: [{ role: 'user', content: 'x' }] }, { tools: [] }, { additional_histories: [{ messages_and_choices: [] }] }]) {
        const r = TrajectoryLogRequest.safeParse({ split: 't', trajectory_groups: [{ trajectories: [{ ...ok, ...legacy }] }] });
        assert.ok(!r.success, JSON.stringify(legacy));
        assert.deepEqual(r.error.issues.map((i) => [i.path.join('.'), /both exchanges and legacy/.test(i.message)]), [['trajectory_groups.0.trajectories.0', true]]);
      }
    });
  });

  describe('checkpoints', () => {
    it('fills the list envelope defaults', () => {
      const r = CheckpointList.parse({ data: [], has_more: false });
      assert.equal(r.object, 'list');
      assert.equal(r.first_id, '');
      assert.equal(r.last_id, '');
    });
    it('bounds limit to 1..100', () => {
      assert.ok(ListCheckpointsQuery.safeParse({ limit: 1 }).success);
      assert.ok(ListCheckpointsQuery.safeParse({ limit: 100 }).success);
      assert.ok(!ListCheckpointsQuery.safeParse({ limit: 0 }).success);
      assert.ok(!ListCheckpointsQuery.safeParse({ limit: 101 }).success);
      assert.ok(!ListCheckpointsQuery.safeParse({ order: 'newest' }).success);
    });
  });
});
