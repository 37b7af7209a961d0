import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readTrajectoryGroups, validateTrajectoryFile } from '../../../src/files';
import { FileChangedError, fingerprint, HashingBytes, unchangedGroups } from '../../../src/trajectories/guard';
import { validateForUpload } from '../../../src/trajectories/passes';
import { uploadGroups } from '../../../src/trajectories/upload';
import { harness, trajectory, type Harness } from '../contract/helpers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-guard-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const line = (i: number) => JSON.stringify({ trajectories: [{ ...trajectory(i), metadata: { group: i } }] });
function jsonl(name: string, n: number, bom = false): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, (bom ? '\uFEFF' : '') + Array.from({ length: n }, (_, i) => line(i)).join('\n') + '\n');
  return file;
}

describe('trajectories/guard: the content check costs no pass of its own', () => {
  it('HashingBytes gives the SHA-256 of the whole file from the validation pass that reads it (a byte order mark too)', async () => {
    for (const bom of [false, true]) {
      const file = jsonl(`hashed-${bom}.jsonl`, 3000, bom);
      const source = await HashingBytes.open(file);
      const summary = await validateTrajectoryFile(file, { source }).finally(() => source.close());
      assert.equal(summary.groups, 3000);
      assert.equal(summary.problems.length, 0);
      assert.equal(source.digest(), (await fingerprint(file)).sha256, `bom ${bom}`);
    }
  });

  it('HashingBytes reads the file once, 1 MiB at a time, however small the reads asked for', async () => {
    const file = jsonl('blocks.jsonl', 12000);
    const size = fs.statSync(file).size;
    assert.ok(size > 2 << 20, `${size} bytes`);
    const source = await HashingBytes.open(file);
    await source.read(0, 3);
    for (let at = 0; at < size; ) at += (await source.read(at, at + 64 * 1024)).length;
    assert.equal(source.reads, Math.ceil(size / (1 << 20)), 'one read per 1 MiB block');
    assert.equal(source.digest(), (await fingerprint(file)).sha256);
    await source.close();
  });

  it('HashingBytes gives no hash when the reads skip a block, or read a block twice and get other bytes', async () => {
    const file = jsonl('gaps.jsonl', 12000);
    const skip = await HashingBytes.open(file);
    await skip.read(0, 100);
    await skip.read(2 << 20, skip.size);
    assert.equal(skip.digest(), undefined, 'skipped the second block');
    await skip.close();
    // Going back is no harm: each block has its own hash.
    const back = await HashingBytes.open(file);
    await back.read(0, 100);
    await back.read(1 << 20, (1 << 20) + 100);
    await back.read(0, back.size);
    for (let at = (1 << 20) + 100; at < back.size; ) at += (await back.read(at, at + 64 * 1024)).length;
    assert.equal(back.digest(), (await fingerprint(file)).sha256, 'went back to the first block');
    await back.close();
    const twice = path.join(dir, 'twice.jsonl');
    fs.copyFileSync(file, twice);
    const other = await HashingBytes.open(twice);
    await other.read(0, 100);
    await other.read(1 << 20, (1 << 20) + 100);
    const bytes = fs.readFileSync(twice);
    bytes[10] = bytes[10] === 0x41 ? 0x42 : 0x41;
    fs.writeFileSync(twice, bytes);
    await other.read(0, 100);
    for (let at = 1 << 20; at < other.size; ) at += (await other.read(at, at + 64 * 1024)).length;
    assert.equal(other.digest(), undefined, 'the first block read twice, not the same bytes');
    await other.close();
  });

  it('HashingBytes with the validation\'s block hashes: a block that differs is refused as it is read, before the reader gets a byte of it', async () => {
    const file = jsonl('checked.jsonl', 12000);
    const { blocks, sha256 } = await fingerprint(file);
    assert.ok(blocks.length >= 3, `${blocks.length} blocks`);
    const st = fs.statSync(file);
    const bytes = fs.readFileSync(file);
    const at = (2 << 20) + 500;
    bytes[at] = bytes[at] === 0x30 ? 0x31 : 0x30;
    fs.writeFileSync(file, bytes);
    fs.utimesSync(file, st.atime, st.mtime);
    const source = await HashingBytes.open(file, blocks);
    let read = 0;
    const error = await (async () => {
      for (;;) {
        const b = await source.read(read, read + 64 * 1024);
        if (!b.length) return undefined;
        read += b.length;
      }
    })().catch((e: unknown) => e);
    await source.close();
    assert.ok(error instanceof FileChangedError, String(error));
    assert.match(error.message, /checked\.jsonl changed during the upload \(its content differs/);
    assert.equal(read, 2 << 20, 'every byte before the edited block, none of it');
    assert.notEqual((await fingerprint(file)).sha256, sha256);
  });

  it('validateForUpload: a valid file gets the SHA-256 of its bytes (JSONL from the validation pass, .json from a pass of its own); an invalid one gets none', async () => {
    const file = jsonl('valid.jsonl', 100);
    const v = await validateForUpload(file);
    assert.equal(v.summary.problems.length, 0);
    assert.equal(v.fingerprint?.sha256, (await fingerprint(file)).sha256);
    const json = path.join(dir, 'valid.json');
    fs.writeFileSync(json, `{"split":"train","trajectory_groups":[${line(1)},${line(2)}]}`);
    const j = await validateForUpload(json);
    assert.equal(j.summary.groups, 2);
    assert.equal(j.fingerprint?.sha256, (await fingerprint(json)).sha256);
    const bad = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(bad, `${line(1)}\n{"trajectories": 3}\n`);
    const b = await validateForUpload(bad);
    assert.ok(b.summary.problems.some((p) => p.severity === 'error'));
    assert.equal(b.fingerprint, undefined);
  });

  describe('unchangedGroups with the send pass reading through a HashingBytes', () => {
    let h: Harness | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });

    async function upload(file: string, sha256: string, summary: Awaited<ReturnType<typeof validateTrajectoryFile>>) {
      const source = await HashingBytes.open(file);
      const groups = readTrajectoryGroups(file, { trusted: true, groupTrajectories: summary.groupTrajectories, source });
      const validated = { size: summary.fileBytes, mtimeMs: summary.mtimeMs, sha256 };
      return uploadGroups(h!.client, unchangedGroups(file, validated, groups, undefined, source), { modelId: 'm', split: 'train', maxRequestBytes: 64 * 1024 }).finally(() => source.close());
    }

    it('uploads an unchanged file whole, its hash taken from the bytes the send pass read', async () => {
      h = await harness();
      const file = jsonl('unchanged.jsonl', 2000);
      const summary = await validateTrajectoryFile(file);
      const res = await upload(file, (await fingerprint(file)).sha256, summary);
      assert.equal(res.outcome.status, 'done');
      assert.equal(res.totals.groupsSent, 2000);
    });

    it('stops before the last request when what the send pass read is not what was validated (same size, mtime put back)', async () => {
      h = await harness();
      const file = jsonl('same-size.jsonl', 20);
      const summary = await validateTrajectoryFile(file);
      const sha256 = (await fingerprint(file)).sha256;
      const st = fs.statSync(file);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"group":19}', '"group":91}'));
      fs.utimesSync(file, st.atime, st.mtime);
      const res = await upload(file, sha256, summary);
      assert.equal(res.outcome.status, 'failed');
      assert.match(String((res.outcome as { error: Error }).error.message), /its content differs/);
      assert.equal(h.server.store.logs.length, 0, 'the one request was never sent');
    });

    it('stops at the first look after an edit, and sends no group read after it', async () => {
      h = await harness();
      const n = 4000;
      const file = jsonl('edited.jsonl', n);
      const summary = await validateTrajectoryFile(file);
      const sha256 = (await fingerprint(file)).sha256;
      const source = await HashingBytes.open(file);
      let edited = false;
      const res = await uploadGroups(
        h.client,
        unchangedGroups(file, { size: summary.fileBytes, mtimeMs: summary.mtimeMs, sha256 }, readTrajectoryGroups(file, { trusted: true, groupTrajectories: summary.groupTrajectories, source }), undefined, source),
        {
          modelId: 'm',
          split: 'train',
          maxRequestBytes: 16 * 1024,
          onProgress: (p) => {
            if (p.requests === 2 && !edited) {
              edited = true;
              fs.writeFileSync(file, Array.from({ length: n }, (_, i) => line(i + 1)).join('\n') + '\n');
            }
          },
        },
      ).finally(() => source.close());
      assert.equal(res.outcome.status, 'failed');
      assert.match(String((res.outcome as { error: Error }).error.message), /changed during the upload/);
      const stored = h.server.store.logs.flatMap((l) => (l.body.trajectory_groups as { trajectories: { metadata: { group: number } }[] }[]).map((g) => g.trajectories[0]!.metadata.group));
      assert.deepEqual(stored, Array.from({ length: stored.length }, (_, i) => i), 'a prefix of the validated file, each once');
      assert.ok(stored.length < n);
    });
  });
});
