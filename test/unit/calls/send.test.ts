import assert from 'node:assert/strict';
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import type { CallsApi } from '../../../src/api/calls';
import { ProblemError, validateCallsFile } from '../../../src/calls/reader';
import { sendCallsFile, withStableIds } from '../../../src/calls/send';
import { harness, PROJECT, type Harness } from '../contract/helpers';
import { useTempDir, writeTemp } from '../files/helpers';

const startLine = (id: string, extra = '') =>
  `{"mode":"start", "req":{"start":{"project_id":"${PROJECT}","op_name":"op","started_at":"2026-01-01T10:00:00Z","attributes":{},"inputs":{"n":1.50,"big":12345678901234567890}${extra},"id":"${id}","trace_id":"t-${id}","thread_id":"th-${id}"}}}`;
const bareEnd = (id: string) => `{"end":{"project_id":"${PROJECT}","id":"${id}","ended_at":"2026-01-01T10:00:02Z","summary":{}}}`;
const bareStartNoIds = `{"start":{"project_id":"${PROJECT}","op_name":"adhoc","started_at":"2026-01-01T10:00:00Z","attributes":{},"inputs":{"i":1}}}`;

/** A CallsApi stand-in that records each upsertBatchJson call's items as text. */
function recorder(delayMs = 0) {
  const calls: string[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const api = {
    async upsertBatchJson(items: readonly Uint8Array[], options: { onChunk?: (first: number, results: unknown[], bytes: number) => void } = {}) {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      calls.push(items.map((b) => Buffer.from(b).toString('utf8')));
      await new Promise((r) => setTimeout(r, delayMs));
      inFlight--;
      const results = items.map(() => ({}));
      options.onChunk?.(0, results, items.reduce((n, b) => n + b.length, 0));
      return results;
    },
  };
  return { api: api as unknown as CallsApi, calls, maxInFlight: () => maxInFlight };
}

/** Counts JSON.parse calls while `fn` runs. */
async function countingParses<T>(fn: () => Promise<T>): Promise<{ value: T; parses: number }> {
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = ((...args: Parameters<typeof parse>) => (parses++, parse(...args))) as typeof parse;
  try {
    return { value: await fn(), parses };
  } finally {
    JSON.parse = parse;
  }
}

describe('calls/send: the import sends the file\'s bytes', () => {
  const dir = useTempDir();

  it('sends an item that needs no change as its line\'s bytes, and a bare record inside the {mode, req} frame, parsing neither', async () => {
    const file = writeTemp(dir(), 'as-is.jsonl', `\uFEFF  ${startLine('a')}  \r\n\r\n${bareEnd('a')}\n`);
    const { plan } = await validateCallsFile(file, { plan: true });
    const r = recorder();
    const { parses } = await countingParses(() => sendCallsFile(r.api, file, { plan }));
    assert.deepEqual(r.calls, [[startLine('a'), `{"mode":"end","req":${bareEnd('a')}}`]]);
    assert.equal(parses, 0);
  });

  it('parses and serializes again only the items that change: ids filled in, null optional fields dropped', async () => {
    const file = writeTemp(dir(), 'changes.jsonl', [startLine('a'), startLine('b', ',"display_name":null,"parent_id":null'), bareStartNoIds, bareEnd('a')].join('\n'));
    const { plan } = await validateCallsFile(file, { plan: true });
    const r = recorder();
    const { parses } = await countingParses(() => sendCallsFile(r.api, file, { plan }));
    const [sent] = r.calls;
    assert.equal(sent!.length, 4);
    assert.equal(sent![0], startLine('a'));
    const b = JSON.parse(sent![1]!) as { req: { start: Record<string, unknown> } };
    assert.ok(!('display_name' in b.req.start) && !('parent_id' in b.req.start), 'null optional fields left out');
    assert.equal(b.req.start.id, 'b');
    const c = JSON.parse(sent![2]!) as { mode: string; req: { start: { id: string; trace_id: string } } };
    assert.equal(c.mode, 'start');
    const expected = withStableIds({ mode: 'start', req: JSON.parse(bareStartNoIds) } as never, file, 3).req as { start: { id: string; trace_id: string } };
    assert.deepEqual([c.req.start.id, c.req.start.trace_id], [expected.start.id, expected.start.trace_id]);
    assert.equal(sent![3], `{"mode":"end","req":${bareEnd('a')}}`);
    assert.equal(parses, 2, 'one parse for each item that changes');
  });

  it('derives the same stable ids as earlier versions, so importing again after an update upserts the same calls', () => {
    const item = { mode: 'start', req: { start: { project_id: 'acme/bot', op_name: 'op', started_at: '2026-01-01T10:00:00Z', attributes: {}, inputs: {} } } };
    const { id, trace_id } = (withStableIds(item as never, '/data/calls.jsonl', 7).req as { start: { id: string; trace_id: string } }).start;
    assert.deepEqual([id, trace_id], ['2f505672-e674-5586-9185-e19a2d1a6c40', '15df8bf4-0761-5397-aeb0-b6be2d3533a7']);
  });

  it('reads a line that is not the validated one (the file changed since) by parsing it, as it is now', async () => {
    const file = writeTemp(dir(), 'changed.jsonl', [startLine('a'), bareEnd('a')].join('\n'));
    const { plan } = await validateCallsFile(file, { plan: true });
    const { mtime } = statSync(file);
    // Same size and modification time, but the lines swapped: their lengths differ from the plan's.
    writeFileSync(file, [bareEnd('a'), startLine('a')].join('\n'));
    utimesSync(file, mtime, mtime);
    const r = recorder();
    const { parses } = await countingParses(() => sendCallsFile(r.api, file, { plan }));
    assert.equal(parses, 2);
    assert.equal(JSON.parse(r.calls[0]![0]!).mode, 'end');
    assert.equal(JSON.parse(r.calls[0]![1]!).req.start.inputs.n, 1.5);
    // A file written since (another size or time) has no plan at all.
    writeFileSync(file, [bareEnd('a'), startLine('a'), bareEnd('a')].join('\n'));
    const again = recorder();
    assert.equal((await countingParses(() => sendCallsFile(again.api, file, { plan }))).parses, 3);
    // A line that became something else is refused at its line, naming what it holds.
    writeFileSync(file, [startLine('a'), '[1, 2]'].join('\n'));
    await assert.rejects(sendCallsFile(recorder().api, file, { plan }), (e: unknown) => e instanceof ProblemError && /:2:1: expected a call record .*, received array$/.test(e.message));
  });

  it('sends itemsPerBatch items per call, one call at a time, in file order, and names the lines of a failed one', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => (i % 2 ? bareEnd(`c${i - 1}`) : startLine(`c${i}`)));
    const file = writeTemp(dir(), 'batches.jsonl', lines.join('\n'));
    const { plan } = await validateCallsFile(file, { plan: true, threadsOf: PROJECT });
    const r = recorder(20);
    const stored = { starts: 0, ends: 0 };
    const { threadIds } = await sendCallsFile(r.api, file, { plan, itemsPerBatch: 4, threadsOf: PROJECT, onChunk: (s) => ((stored.starts += s.starts), (stored.ends += s.ends)) });
    assert.deepEqual(r.calls.map((c) => c.length), [4, 4, 2]);
    assert.equal(r.maxInFlight(), 1);
    assert.deepEqual(stored, { starts: 5, ends: 5 });
    assert.deepEqual(threadIds, ['th-c0', 'th-c2', 'th-c4', 'th-c6', 'th-c8']);

    let n = 0;
    const failing = {
      upsertBatchJson: async (items: readonly Uint8Array[], o: { onChunk?: (f: number, r: unknown[], b: number) => void }) => {
        if (n++ === 1) throw new Error('boom');
        o.onChunk?.(0, items.map(() => ({})), 1);
        return items.map(() => ({}));
      },
    } as unknown as CallsApi;
    let failed = '';
    let acknowledged = 0;
    await assert.rejects(
      sendCallsFile(failing, file, { plan, itemsPerBatch: 4, onChunk: (s) => (acknowledged += s.starts + s.ends), onFailedLines: (a, b) => (failed = `${a}-${b}`) }),
      /boom/,
    );
    assert.equal(failed, '5-8');
    assert.equal(acknowledged, 4);
  });
});

describe('contract: calls.upsertBatchJson', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('stores the items as given and answers one result per item, splitting after a 413', async () => {
    h = await harness({ maxBodyBytes: 8 * 1024 });
    const items = Array.from({ length: 20 }, (_, i) => Buffer.from(startLine(`c${i}`, `,"display_name":"${'x'.repeat(600)}"`)));
    const res = await h.client.calls.upsertBatchJson(items, { maxBatchBytes: 64 * 1024 });
    assert.equal(res.length, 20);
    res.forEach((r, i) => assert.equal((r as { id: string }).id, `c${i}`));
    assert.ok(h.server.stats.filter('/call/upsert_batch').some((r) => r.status === 413), 'a 413 was split');
    assert.equal(h.server.store.calls.get(PROJECT)!.size, 20);
    assert.equal(h.server.store.getCall(PROJECT, 'c3')!.thread_id, 'th-c3');
  });

  it('refuses an item that is not a JSON object before sending, naming its index', async () => {
    h = await harness();
    await assert.rejects(h.client.calls.upsertBatchJson([Buffer.from(startLine('a')), Buffer.from('[1]')]), /item 1 is not a JSON object/);
    assert.equal(h.server.stats.count(), 0);
  });
});
