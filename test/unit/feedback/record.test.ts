import assert from 'node:assert/strict';
import { displayContent, FeedbackRecord, MAX_CONTENT, MAX_ENTRIES, payloadContent, RECORD_KEY, type RecordStore } from '../../../src/feedback/record';

function memento(): RecordStore & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return { data, get: <T>(k: string) => data.get(k) as T | undefined, update: (k: string, v: unknown) => (data.set(k, v), Promise.resolve()) };
}

const entry = (i: number, ref = 'svc:///e/p/call/c1') => ({ ref, kind: 'wandb.note.1', content: `note ${i}`, time: `2026-11-25T10:00:${String(i % 60).padStart(2, '0')}Z`, id: `id-${i}` });

describe('feedback/record', () => {
  it('lists what was attached to a ref, newest first, and tells listeners', async () => {
    const store = memento();
    const record = new FeedbackRecord(store);
    let told = 0;
    record.onDidChange(() => told++);
    await record.add(entry(1));
    await record.add(entry(2, 'svc:///e/p/call/other'));
    await record.add(entry(3));
    assert.deepEqual(record.forRefs(['svc:///e/p/call/c1']).map((e) => e.id), ['id-3', 'id-1']);
    assert.equal(told, 3);
  });

  it(`keeps at most ${MAX_ENTRIES} entries, dropping the oldest`, async () => {
    const store = memento();
    store.data.set(RECORD_KEY, Array.from({ length: MAX_ENTRIES }, (_, i) => entry(i)));
    const record = new FeedbackRecord(store);
    await record.add(entry(MAX_ENTRIES));
    const all = record.all();
    assert.equal(all.length, MAX_ENTRIES);
    assert.equal(all[0]!.id, 'id-1');
    assert.equal(all.at(-1)!.id, `id-${MAX_ENTRIES}`);
  });

  it('replaces an entry sent again with the same id (a retry), and skips malformed stored entries', async () => {
    const store = memento();
    store.data.set(RECORD_KEY, [{ ref: 1 }, entry(1)]);
    const record = new FeedbackRecord(store);
    await record.add({ ...entry(1), content: 'again' });
    assert.deepEqual(record.all().map((e) => e.content), ['again']);
  });

  it('stores the note, the emoji or the payload as JSON, cut to a bound; display cuts to one short line', () => {
    assert.equal(payloadContent({ note: 'hi' }), 'hi');
    assert.equal(payloadContent({ emoji: '👍' }), '👍');
    assert.equal(payloadContent({ score: 1 }), '{"score":1}');
    assert.equal(payloadContent({ note: 'x'.repeat(5000) }).length, MAX_CONTENT);
    assert.equal(displayContent('a\n  b'), 'a b');
    assert.equal(displayContent('y'.repeat(500), 20), `${'y'.repeat(19)}…`);
  });
});
