import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mock } from 'node:test';
import { InputError } from '../../../src/api';
import { Logger } from '../../../src/common/logger';
import { FILE_KEY, HistorySync } from '../../../src/dashboard/historySync';
import type { SourceAppend } from '../../../src/dashboard/source';

// A run's history.jsonl dashboard source in plain Node (the fake vscode module gives its events):
// the first read, what is appended, a file rewritten or cut short, a file that is not a history,
// and a hidden dashboard that reads nothing by itself. Lines as ART's Model._log_metrics writes them.
const line = (step: number, split: 'train' | 'val', reward: number) =>
  `{"${split}/reward": ${reward}, "training_step": ${step}, "step": ${step}, "recorded_at": "2026-03-01T12:00:${String(step).padStart(2, '0')}.000001"}\n`;

describe('HistorySync (plain Node, a history.jsonl on disk)', () => {
  let dir: string;
  let file: string;
  let log: Logger;
  let sync: HistorySync;
  let appends: SourceAppend[];
  let clears: number;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-history-'));
    const modelDir = path.join(dir, '.art', 'demo', 'models', 'agent-7b');
    fs.mkdirSync(path.join(modelDir, 'trajectories', 'train'), { recursive: true });
    fs.mkdirSync(path.join(modelDir, 'trajectories', 'val'), { recursive: true });
    file = path.join(modelDir, 'history.jsonl');
    log = new Logger('svc-test');
    appends = [];
    clears = 0;
  });
  afterEach(() => {
    sync?.dispose();
    log.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** Polls `done` every 20 ms; fails naming `what` when it is still false after 5 s (a watcher's or the 2 s look's read). */
  async function until(done: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (!done()) {
      if (Date.now() > deadline) assert.fail(`waited 5 s for ${what}`);
      await sleep(20);
    }
  }
  /** Waits for the read in progress and any read asked for meanwhile (check() runs one after). */
  async function settle(s: HistorySync): Promise<void> {
    await s.check();
    await until(() => !s.busy, 'the reads to end');
  }
  /** The file written with `content`, its source opened and loaded as the command does. */
  async function loaded(content: string): Promise<HistorySync> {
    fs.writeFileSync(file, content);
    const s = open();
    await s.load();
    await settle(s);
    return s;
  }

  function open(): HistorySync {
    sync = new HistorySync(file, 'history.jsonl', log);
    sync.onDidAppend((a) => appends.push(a));
    sync.onDidClear(() => clears++);
    return sync;
  }

  it('reads the file once for the command: a row per step, train and val merged, the model folder and its splits named', async () => {
    fs.writeFileSync(file, line(1, 'train', 0.2) + line(1, 'val', 0.3) + line(2, 'train', 0.4));
    const s = open();
    assert.equal(s.modelId, FILE_KEY + file);
    assert.equal(s.title, 'agent-7b (history.jsonl)');
    await s.load();
    await settle(s);
    assert.equal(s.series.length, 2);
    assert.equal(s.loaded, true);
    assert.deepEqual(s.stepSplits, ['train', 'val']);
    const status = s.status();
    assert.equal(status.loading, false);
    assert.equal(status.count, 2);
    assert.equal(status.file?.problems, 0);
    assert.equal(status.file?.watching, false, 'not watching until the panel is visible');
    assert.equal(status.file?.recordedAt, new Date(2026, 2, 1, 12, 0, 2).getTime(), 'the last line written, read as local time');
    assert.ok(appends.some((a) => a.done), 'the end of the first read is told');
  });

  it('reads only what was appended since: new steps are told as fresh, an existing step updated', async () => {
    const s = await loaded(line(1, 'train', 0.2));
    const readsBefore = s.reads;
    appends = [];
    fs.appendFileSync(file, line(1, 'val', 0.3) + line(2, 'train', 0.5));
    await settle(s);
    assert.equal(s.reads, readsBefore + 1);
    assert.equal(s.series.length, 2);
    const fresh = appends.filter((a) => a.fresh && a.columns.steps.length > 0);
    assert.equal(fresh.length, 1, 'one append with a new step');
    assert.deepEqual(fresh[0]!.columns.steps, [1, 2], 'the val line of step 1 and step 2 travel together');
    assert.equal(clears, 0, 'nothing read again from the start');
  });

  it('reads a file that was cut short or replaced again from the start, and says so by clearing', async () => {
    const s = await loaded(line(1, 'train', 0.2) + line(2, 'train', 0.4) + line(3, 'train', 0.6));
    assert.equal(s.series.length, 3);
    fs.writeFileSync(file, line(1, 'train', 0.9));
    await settle(s);
    assert.equal(clears, 1);
    assert.equal(s.series.length, 1);
    // Replaced by another file under the same name (a new inode), longer than before.
    const other = file + '.new';
    fs.writeFileSync(other, line(1, 'train', 0.1) + line(2, 'train', 0.2) + line(3, 'train', 0.3) + line(4, 'train', 0.4));
    fs.renameSync(other, file);
    await settle(s);
    assert.equal(clears, 2);
    assert.equal(s.series.length, 4);
  });

  it('refuses a file with lines and not one history row, naming the file and the first bad line', async () => {
    fs.writeFileSync(file, '{"messages_and_choices": [], "reward": 1}\n{"also": "not a step"}\n');
    const s = open();
    await assert.rejects(s.load(), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /^history\.jsonl line 1: .*It is not a training history \(ART's history\.jsonl\)/);
      return true;
    });
  });

  it('refuses a missing file by name; a bad line among good ones is counted, not fatal', async () => {
    const s = open();
    await assert.rejects(s.load(), /history\.jsonl: no such file/);
    sync.dispose();
    const t = await loaded(line(1, 'train', 0.2) + 'not json\n' + line(2, 'train', 0.4));
    assert.equal(t.series.length, 2);
    assert.equal(t.problemTotal, 1);
    assert.match(t.status().file?.problem ?? '', /^line 2: /);
  });

  // Issue 28, items 2 and 5: a history.jsonl that is a link to a device or a pipe (git keeps links).
  it('refuses a history.jsonl that is a link to a device, or a named pipe, by name (the pipe is not waited on)', async function () {
    this.timeout(5000);
    fs.symlinkSync('/dev/zero', file);
    await assert.rejects(open().load(), /history\.jsonl: is a character device, not a history\.jsonl file \(only regular files are read\)/);
    sync.dispose();
    fs.rmSync(file);
    execFileSync('mkfifo', [file]);
    try {
      await assert.rejects(open().load(), /history\.jsonl: is a named pipe \(FIFO\), not a history\.jsonl file/);
    } finally {
      // The old code's open waits for a writer: give it one, and the end.
      try {
        fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
      } catch {
        // Nobody waiting.
      }
    }
  });

  it('names a line over 16 MiB by its number and reads on after it', async () => {
    const s = await loaded(`${line(1, 'train', 0.2)}{"train/reward": "${'x'.repeat(17 * 1024 * 1024)}"}\n${line(2, 'train', 0.4)}`);
    assert.equal(s.series.length, 2);
    assert.equal(s.problemTotal, 1);
    assert.equal(s.status().file?.problem, 'line 2: longer than 16 MiB: not read (a history line holds one log call)');
  });

  it('reads nothing by itself while hidden; once visible it watches, and hidden again it stops', async () => {
    // The 2 s look is driven by hand (setInterval mocked); the folder watcher is the real one. A
    // visible twin on the same file proves each look happened: it read while the hidden one did not.
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const s = await loaded(line(1, 'train', 0.2));
      const twin = new HistorySync(file, 'history.jsonl', log);
      try {
        await twin.load();
        await settle(twin);
        twin.setActive(true);
        await settle(twin);
        const reads = s.reads;
        fs.appendFileSync(file, line(2, 'train', 0.4));
        await until(() => twin.series.length >= 2 && !twin.busy, "the visible twin's watcher to read the append");
        const twinReads = twin.reads;
        mock.timers.tick(2_000);
        await until(() => !twin.busy, "the twin's look to end");
        assert.equal(twin.reads, twinReads + 1, "the twin's 2 s look read");
        assert.equal(s.reads, reads, 'a hidden dashboard makes no read: not on the watcher, not on the 2 s look');
        assert.equal(s.series.length, 1);

        s.setActive(true);
        assert.equal(s.status().file?.watching, true);
        await until(() => s.series.length >= 2, 'the visible dashboard to read the append');
        assert.equal(s.series.length, 2, 'visible: the appended line is read');
        fs.appendFileSync(file, line(3, 'train', 0.6));
        await until(() => s.series.length >= 3, "the watcher's read");
        assert.equal(s.series.length, 3, 'a later append is seen by the watcher');
        await settle(s);
        const looked = s.reads;
        mock.timers.tick(2_000);
        await until(() => !s.busy, 'the look to end');
        assert.equal(s.reads, looked + 1, 'visible: a look every 2 s besides the watcher');

        s.setActive(false);
        assert.equal(s.status().file?.watching, false);
        await settle(s);
        await settle(twin);
        const after = s.reads;
        fs.appendFileSync(file, line(4, 'train', 0.8));
        await until(() => twin.series.length >= 4 && !twin.busy, "the twin's watcher to read the append");
        const twinAfter = twin.reads;
        mock.timers.tick(2_000);
        await until(() => !twin.busy, "the twin's look to end");
        assert.equal(twin.reads, twinAfter + 1, "the twin's 2 s look read");
        assert.equal(s.reads, after, 'hidden again: no read');
      } finally {
        twin.dispose();
      }
    } finally {
      mock.timers.reset();
    }
  });
});
