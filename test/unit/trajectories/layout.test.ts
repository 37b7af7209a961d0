import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artLayout, artSplitFolder, artTail, stepFiles, uploadOrder } from '../../../src/trajectories/layout';
import { useTempDir } from '../files/helpers';

describe('trajectories/layout: ART\'s .art/<project>/models/<model>/trajectories/<split>/<step> files', () => {
  const dir = useTempDir();

  it('reads model, split and step from a .parquet or .jsonl step file, on any platform', () => {
    assert.deepEqual(artLayout('/w/.art/p/models/agent-1/trajectories/train/0003.parquet'), { model: 'agent-1', split: 'train', step: 3 });
    assert.deepEqual(artLayout('C:\\w\\.art\\p\\models\\m\\trajectories\\val\\0012.jsonl'), { model: 'm', split: 'val', step: 12 });
    assert.equal(artLayout('/w/.art/p/models/m/trajectories/train/notes.parquet'), undefined);
    assert.equal(artLayout('/w/0003.parquet'), undefined);
  });

  it('knows a split folder, with or without a trailing separator, and nothing above it', () => {
    assert.deepEqual(artSplitFolder('/w/.art/p/models/m/trajectories/train'), { model: 'm', split: 'train' });
    assert.deepEqual(artSplitFolder('/w/.art/p/models/m/trajectories/train/'), { model: 'm', split: 'train' });
    assert.equal(artSplitFolder('/w/.art/p/models/m/trajectories'), undefined);
    assert.equal(artSplitFolder('/w/.art/p/models/m'), undefined);
    assert.equal(artTail('/w/.art/p/models/m/trajectories/train/anything.json'), 'models/m/trajectories/train');
  });

  it('lists a split folder\'s step files in step order, a step written both ways once, as Parquet', async () => {
    const folder = join(dir(), 'models', 'm', 'trajectories', 'train');
    mkdirSync(folder, { recursive: true });
    for (const name of ['0010.parquet', '0002.jsonl', '0002.parquet', '0001.jsonl', 'notes.txt', 'x.parquet']) writeFileSync(join(folder, name), '');
    const found = await stepFiles(folder);
    assert.deepEqual(found.steps, [1, 2, 10]);
    assert.deepEqual(found.files, ['0001.jsonl', '0002.parquet', '0010.parquet'].map((n) => join(folder, n)));
    assert.deepEqual(found.skipped, [join(folder, '0002.jsonl')]);
  });

  it('puts selected step files in step order in the places step files held', () => {
    const files = ['/a/other.json', '/w/models/m/trajectories/train/0010.parquet', '/w/models/m/trajectories/train/0002.jsonl', '/b/x.jsonl'];
    assert.deepEqual(uploadOrder(files, (f) => f), ['/a/other.json', '/w/models/m/trajectories/train/0002.jsonl', '/w/models/m/trajectories/train/0010.parquet', '/b/x.jsonl']);
  });
});
