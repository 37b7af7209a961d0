import assert from 'node:assert/strict';
import type { TrajectoryGroup } from '../../../src/api';
import { describeLines, uploadGroups } from '../../../src/trajectories/upload';
import type { GroupRecord } from '../../../src/files';
import { harness, trajectory, type Harness } from '../contract/helpers';

function groups(n: number, from = 0): GroupRecord[] {
  return Array.from({ length: n - from }, (_, k) => {
    const i = from + k;
    const group: TrajectoryGroup = { trajectories: [{ ...trajectory(i), metadata: { group: i } }] };
    const json = JSON.stringify(group);
    return { index: i, line: i + 1, endLine: i + 1, bytes: Buffer.byteLength(json), trajectories: 1, json };
  });
}
async function* iter<T>(items: T[]): AsyncGenerator<T> {
  for (const x of items) yield x;
}
/** "Retry remaining": uploads from `nextGroup` on, then every group is logged exactly once. */
async function resumeAndCheck(h: Harness, all: GroupRecord[], nextGroup: number, why: string, maxRequestBytes?: number): Promise<void> {
  const resumed = await uploadGroups(h.client, iter(all.slice(nextGroup)), { modelId: 'm', split: 'train', maxRequestBytes });
  assert.equal(resumed.outcome.status, 'done');
  assert.deepEqual(loggedGroups(h), all.map((g) => g.index), why);
}
/** Group indexes the server logged, in order, across all requests. */
function loggedGroups(h: Harness): number[] {
  return h.server.store.logs.flatMap((l) => (l.body.trajectory_groups as { trajectories: { metadata: { group: number } }[] }[]).map((g) => g.trajectories[0]!.metadata.group));
}

describe('trajectories/upload uploadGroups', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('sends every group once, in order, in requests under the byte budget', async () => {
    h = await harness();
    const all = groups(100);
    const budget = 4 * all[0]!.bytes;
    const progress: number[] = [];
    const res = await uploadGroups(h.client, iter(all), { modelId: 'm', split: 'train', maxRequestBytes: budget, onProgress: (p) => progress.push(p.groupsSent) });
    assert.equal(res.outcome.status, 'done');
    assert.deepEqual(loggedGroups(h), all.map((g) => g.index));
    assert.ok(h.server.stats.filter('/v1/preview/models/m/log').every((r) => r.bodyBytes <= budget), 'every request under the budget');
    assert.ok(res.totals.requests >= 25, `${res.totals.requests} requests`);
    assert.equal(res.totals.groupsSent, 100);
    assert.equal(res.nextGroup, 100);
    assert.equal(progress.at(-1), 100);
    assert.equal(describeLines(res.logged), 'lines 1–100');
  });

  it('stops after the request in flight when cancelled, and says where to resume', async () => {
    h = await harness();
    const ac = new AbortController();
    const all = groups(30);
    const res = await uploadGroups(h.client, iter(all), {
      modelId: 'm',
      split: 'train',
      maxRequestBytes: 3 * all[0]!.bytes,
      cancel: ac.signal,
      onProgress: (p) => p.requests === 2 && ac.abort(),
    });
    assert.equal(res.outcome.status, 'cancelled');
    assert.equal(res.totals.requests, 2);
    assert.deepEqual(loggedGroups(h), all.slice(0, res.nextGroup).map((g) => g.index));
    await resumeAndCheck(h, all, res.nextGroup, 'nothing lost, nothing twice');
  });

  it('does not retry a failed request; "retry remaining" from nextGroup logs each group once', async () => {
    h = await harness();
    const all = groups(20);
    // The 429 hits the second request: the fault is queued once the service has the first one
    // (the uploader reads ahead while a request is in flight, so reading g5 is not enough).
    let calls = 0;
    const budget = 5 * all[0]!.bytes;
    const server = h.server;
    const first = await uploadGroups(
      h.client,
      (async function* () {
        for (const g of all) {
          if (g.index === 5 && calls++ === 0) {
            while (server.stats.count('/v1/preview/models/m/log') < 1) await new Promise((r) => setTimeout(r, 5));
            server.faults.add({ path: '/v1/preview/models/m/log', kind: 'status', status: 429 });
          }
          yield g;
        }
      })(),
      { modelId: 'm', split: 'train', maxRequestBytes: budget },
    );
    assert.equal(first.outcome.status, 'failed');
    assert.ok(first.outcome.status === 'failed' && !first.outcome.uncertain, 'a 4xx answer means not logged');
    assert.equal(h.server.stats.count('/v1/preview/models/m/log'), 2, 'the failed request was not retried');
    await resumeAndCheck(h, all, first.nextGroup, 'each group once', budget);
  });

  it('calls any 5xx uncertain and says why: a 503 from a gateway after the service stored the request', async () => {
    h = await harness();
    const all = groups(10);
    h.server.faults.add({ path: '/v1/preview/models/m/log', kind: 'status-after-processing', status: 503 });
    const res = await uploadGroups(h.client, iter(all), { modelId: 'm', split: 'train', maxRequestBytes: 5 * all[0]!.bytes });
    assert.equal(res.outcome.status, 'failed');
    if (res.outcome.status !== 'failed') return;
    assert.equal(res.outcome.uncertain, true);
    assert.equal(res.outcome.uncertainWhy, 'the service answered 503 after receiving them');
    const { firstGroup, lastGroup } = res.outcome.chunk;
    assert.equal(firstGroup, 0);
    assert.deepEqual(loggedGroups(h), all.slice(0, lastGroup + 1).map((g) => g.index), 'the service did store it');
    assert.equal(res.nextGroup, lastGroup + 1, 'resuming skips the lines that may be logged');
    assert.equal(h.server.stats.count('/v1/preview/models/m/log'), 1, 'never resent automatically');
  });

  it('reports a request that may have been logged (reset after sending) as uncertain, and resumes after it', async () => {
    h = await harness();
    const all = groups(10);
    h.server.faults.add({ path: '/v1/preview/models/m/log', kind: 'reset-after-processing' });
    const res = await uploadGroups(h.client, iter(all), { modelId: 'm', split: 'train', maxRequestBytes: 5 * all[0]!.bytes });
    assert.equal(res.outcome.status, 'failed');
    if (res.outcome.status !== 'failed') return;
    assert.equal(res.outcome.uncertain, true);
    assert.equal(res.outcome.chunk.firstGroup, 0);
    assert.equal(h.server.stats.count('/v1/preview/models/m/log'), 1, 'never resent automatically');
    assert.equal(res.nextGroup, res.outcome.chunk.lastGroup + 1);
    await resumeAndCheck(h, all, res.nextGroup, 'the server had logged the uncertain request once; nothing is twice');
  });

  it('maps a 422 back to the group and line it points at', async () => {
    h = await harness();
    const all = groups(6);
    h.server.faults.add({
      path: '/v1/preview/models/m/log',
      kind: 'status',
      status: 422,
      body: { detail: [{ loc: ['body', 'trajectory_groups', 2, 'trajectories', 0, 'reward'], msg: 'bad reward', type: 'value_error' }] },
    });
    const res = await uploadGroups(h.client, iter(all), { modelId: 'm', split: 'train' });
    assert.equal(res.outcome.status, 'failed');
    if (res.outcome.status !== 'failed') return;
    assert.equal(res.outcome.uncertain, false);
    assert.deepEqual(res.outcome.issues, [{ group: 2, line: 3, loc: ['trajectories', 0, 'reward'], msg: 'bad reward' }]);
    assert.equal(res.nextGroup, 0);
  });

  it('reads the next request from the file while one is in flight, and never has two in flight', async () => {
    h = await harness();
    const all = groups(40);
    const budget = 5 * all[0]!.bytes;
    // Every log request waits 150 ms at the service: groups read meanwhile were read ahead.
    h.server.faults.add({ path: '/v1/preview/models/m/log', kind: 'delay', ms: 150, times: 100 });
    const server = h.server;
    let readWhileInFlight = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const original = h.client.models.logGroupsJson.bind(h.client.models);
    h.client.models.logGroupsJson = async (...args) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      try {
        return await original(...args);
      } finally {
        inFlight--;
      }
    };
    const res = await uploadGroups(
      h.client,
      (async function* () {
        for (const g of all) {
          if (inFlight > 0) readWhileInFlight++;
          yield g;
        }
      })(),
      { modelId: 'm', split: 'train', maxRequestBytes: budget },
    );
    assert.equal(res.outcome.status, 'done');
    assert.deepEqual(loggedGroups(h), all.map((g) => g.index), 'in order, each once');
    assert.equal(maxInFlight, 1, 'one request at a time');
    assert.ok(readWhileInFlight >= 20, `only ${readWhileInFlight} groups were read while a request was in flight`);
    assert.equal(server.stats.count('/v1/preview/models/m/log'), res.totals.requests);
  });

  it('describes logged lines as merged ranges', () => {
    const c = (a: number, b: number) => ({ firstGroup: 0, lastGroup: 0, firstLine: a, lastLine: b, groups: 1, trajectories: 1, bytes: 1 });
    assert.equal(describeLines([c(1, 10), c(11, 20), c(30, 30)]), 'lines 1–20, line 30');
  });
});

describe('trajectories/upload: what counts as logged', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('a client-side refusal before sending (closed client) is not uncertain: retry resends the chunk', async () => {
    h = await harness();
    const closed = h.make();
    await closed.close();
    const res = await uploadGroups(closed, iter(groups(3)), { modelId: 'm', split: 'train' });
    assert.equal(res.outcome.status, 'failed');
    assert.ok(res.outcome.status === 'failed' && !res.outcome.uncertain);
    assert.equal(res.nextGroup, 0);
    assert.equal(h.server.stats.count(), 0);
  });

  it('a gateway 504 may have been stored: uncertain, never resent', async () => {
    h = await harness();
    h.server.faults.add({ path: '/v1/preview/models/m/log', kind: 'status', status: 504 });
    const res = await uploadGroups(h.client, iter(groups(3)), { modelId: 'm', split: 'train' });
    assert.ok(res.outcome.status === 'failed' && res.outcome.uncertain);
    assert.equal(res.nextGroup, 3);
    assert.equal(h.server.stats.count('/v1/preview/models/m/log'), 1);
  });

  it('keeps the ledger when the file breaks mid-upload, and resumes at the first unsent group', async () => {
    h = await harness();
    const all = groups(10);
    const res = await uploadGroups(
      h.client,
      (async function* () {
        for (const g of all) {
          if (g.index === 7) throw new Error('line 8 is not valid JSON');
          yield g;
        }
      })(),
      { modelId: 'm', split: 'train', maxRequestBytes: 3 * all[0]!.bytes },
    );
    assert.equal(res.outcome.status, 'failed');
    assert.ok(res.logged.length >= 1, 'the chunks logged before the break are in the ledger');
    assert.deepEqual(loggedGroups(h), all.slice(0, res.nextGroup).map((g) => g.index));
    assert.ok(res.outcome.status === 'failed' && !res.outcome.uncertain);
  });

  it('sends nothing more once cancelled, not even the last partial request', async () => {
    h = await harness();
    const res = await uploadGroups(h.client, iter(groups(3)), { modelId: 'm', split: 'train', cancel: AbortSignal.abort() });
    assert.equal(res.outcome.status, 'cancelled');
    assert.equal(h.server.stats.count(), 0);
    assert.equal(res.nextGroup, 0);
  });
});
