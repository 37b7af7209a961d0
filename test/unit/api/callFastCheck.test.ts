import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isPlainCallBatchItem } from '../../../src/api/schemas/fastCheck';
import { CallBatchItem } from '../../../src/api/schemas';
import { callArbitraries } from '../fuzz/arbitraries';
import { swapValue, valueSwap } from '../fuzz/files';
import { check, fuzz, named } from '../fuzz/helpers';

// The call import's cheap check may only say yes where the schema says yes (anything unusual is
// left to the schema); and it must say yes to what tracing SDKs commonly write, or it saves nothing.

const sound = (v: unknown, what: string) => {
  if (isPlainCallBatchItem(v)) assert.ok(CallBatchItem.safeParse(v).success, `${what}: the fast check said yes, the schema says no: ${JSON.stringify(v).slice(0, 300)}`);
};

describe('api/calls: the fast item check never accepts what the schema refuses', () => {
  const b = fuzz(0xca11, 600);
  it(named('on generated items, and on items with one value swapped or removed', b), () => {
    const { line } = callArbitraries();
    let yes = 0;
    let valid = 0;
    check(
      fc.property(line, valueSwap, (l, swap) => {
        const item = l.item;
        sound(item, 'generated');
        if (CallBatchItem.safeParse(item).success) valid++;
        if (isPlainCallBatchItem(item)) yes++;
        sound(swapValue(item, swap).value, 'swapped');
      }),
      b,
    );
    assert.ok(yes > valid * 0.5, `the fast check settles ${yes} of ${valid} valid generated items`);
  });

  it('says yes to what tracing SDKs write, and no to near misses', () => {
    const start = { mode: 'start', req: { start: { project_id: 'acme/bot', id: 'c1', trace_id: 't1', op_name: 'chat', started_at: '2026-11-20T10:00:00.123Z', attributes: {}, inputs: { q: 'hi' }, thread_id: 'th', turn_id: 'c1' } } };
    const end = { mode: 'end', req: { end: { project_id: 'acme/bot', id: 'c1', ended_at: '2026-11-20T10:00:02+01:00', summary: { usage: {} }, output: null } } };
    assert.equal(isPlainCallBatchItem(start), true);
    assert.equal(isPlainCallBatchItem(end), true);
    for (const bad of [
      { ...start, extra: 1 },
      { mode: 'start', req: { start: { ...start.req.start, started_at: '2026-02-30T10:00:00Z' } } },
      { mode: 'start', req: { start: { ...start.req.start, started_at: '2026-11-20T10:00:00' } } },
      { mode: 'start', req: { start: { ...start.req.start, project_id: 'acme' } } },
      { mode: 'start', req: { start: { ...start.req.start, surprise: 1 } } },
      { mode: 'start', req: { start: { ...start.req.start, svc_run_step: 1.5 } } },
      { mode: 'end', req: { end: { ...end.req.end, id: '' } } },
      { mode: 'end', req: { start: start.req.start } },
    ]) {
      assert.equal(isPlainCallBatchItem(bad), false, JSON.stringify(bad));
      assert.equal(CallBatchItem.safeParse(bad).success, false);
    }
  });
});
