import assert from 'node:assert/strict';
import { describeRepeats, MAX_SENT, MemoryStore, SENT_KEY, SentUploads, type SentUpload } from '../../../src/trajectories/sent';

const entry = (i: number, over: Partial<SentUpload> = {}): SentUpload => ({ sha256: `h${i}`, modelId: 'm', split: 'train', groups: i, file: `/w/${i}.jsonl`, at: Date.UTC(2026, 10, 27, 7, 50) + i, ...over });

describe('trajectories/sent: the record of what this editor uploaded', () => {
  it('finds the latest upload of the same content to the same model and split, and no other', async () => {
    const sent = new SentUploads(new MemoryStore());
    await sent.add(entry(1, { sha256: 'a', groups: 3 }));
    await sent.add(entry(2, { sha256: 'a', groups: 6, step: 1 }));
    assert.equal(sent.find('a', 'm', 'train')?.groups, 6);
    assert.equal(sent.find('a', 'm', 'val'), undefined);
    assert.equal(sent.find('a', 'other', 'train'), undefined);
    assert.equal(sent.find('b', 'm', 'train'), undefined);
    assert.equal(describeRepeats([{ file: '/w/0001.jsonl', sent: sent.find('a', 'm', 'train')! }]), '0001.jsonl (this content) was already uploaded to m (train), step 1, on 2026-11-27 07:50 UTC: 6 groups.');
  });

  it(`keeps the latest ${MAX_SENT} entries, and ignores what it did not write`, async () => {
    const store = new MemoryStore();
    const sent = new SentUploads(store);
    for (let i = 0; i < MAX_SENT + 20; i++) await sent.add(entry(i));
    const all = sent.list();
    assert.equal(all.length, MAX_SENT);
    assert.equal(all[0]!.sha256, 'h20');
    assert.equal(all.at(-1)!.sha256, `h${MAX_SENT + 19}`);
    await store.update(SENT_KEY, [{ sha256: 1 }, null, 'x', entry(7)]);
    assert.deepEqual(sent.list(), [entry(7)]);
    await store.update(SENT_KEY, { not: 'a list' });
    assert.deepEqual(sent.list(), []);
  });
});
