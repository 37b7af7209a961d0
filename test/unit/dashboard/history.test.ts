import assert from 'node:assert/strict';
import { HistoryReader, parseHistoryLine, parseRecordedAt, readHistory, stepFileNames } from '../../../src/dashboard/shared/history';

// Lines as ART's Model._log_metrics writes them: json.dumps (", " and ": " separators) of the
// qualified metrics without NaN, then training_step, step and recorded_at (datetime.now().isoformat()).
const TRAIN_1 = '{"train/reward": 0.25, "train/reward_std_dev": 0.1, "train/exception_rate": 0.0, "loss/train": 0.9, "time/step_wall_s": 31.5, "training_step": 1, "step": 1, "recorded_at": "2026-03-01T12:00:01.123456"}';
const VAL_1 = '{"val/reward": 0.3, "val/reward_std_dev": 0.05, "costs/eval/judge": 0.012, "training_step": 1, "step": 1, "recorded_at": "2026-03-01T12:00:09.500001"}';
// loss/kl_div was NaN at step 2: the client leaves it out.
const TRAIN_2 = '{"train/reward": 0.4, "train/reward_std_dev": 0.12, "loss/train": 0.8, "training_step": 2, "step": 2, "recorded_at": "2026-03-01T12:00:41.000002"}';

describe('dashboard/history: the run metrics ART writes to history.jsonl', () => {
  it('merges the train and the val line of one step into one row, one row per step in step order', () => {
    const h = readHistory([TRAIN_2, TRAIN_1, VAL_1].join('\n') + '\n');
    assert.deepEqual(
      h.rows.map((r) => [r.id, r.step]),
      [
        ['1', 1],
        ['2', 2],
      ],
    );
    // Spread: the metrics are a null-prototype record (metric names are data).
    assert.deepEqual({ ...h.rows[0]!.metrics }, {
      'train/reward': 0.25,
      'train/reward_std_dev': 0.1,
      'train/exception_rate': 0,
      'loss/train': 0.9,
      'time/step_wall_s': 31.5,
      'val/reward': 0.3,
      'val/reward_std_dev': 0.05,
      'costs/eval/judge': 0.012,
    });
    assert.equal(h.lines, 3);
    assert.equal(h.latestStep, 1, 'the step of the last line');
    assert.equal(h.lastRecordedAt, '2026-03-01T12:00:09.500001', 'when the run last wrote');
    assert.deepEqual(h.problems, []);
  });

  it('lets a later line of the same step win for a metric both give', () => {
    const again = '{"train/reward": 0.5, "training_step": 1, "step": 1, "recorded_at": "2026-03-01T12:05:00"}';
    const h = readHistory([TRAIN_1, again].join('\n'));
    assert.equal(h.rows[0]!.metrics['train/reward'], 0.5);
    assert.equal(h.rows[0]!.metrics['loss/train'], 0.9);
  });

  it('has no value for a metric the client left out (NaN), and no metric for step, training_step or recorded_at', () => {
    const h = readHistory(TRAIN_2);
    assert.equal('loss/kl_div' in h.rows[0]!.metrics, false);
    for (const k of ['step', 'training_step', 'recorded_at']) assert.equal(k in h.rows[0]!.metrics, false, k);
    assert.equal(h.recordedAt.get(2), '2026-03-01T12:00:41.000002');
  });

  it('counts an infinite value (Python writes Infinity, not JSON) as missing and keeps the rest of its line', () => {
    const line = '{"loss/grad_norm": Infinity, "loss/train": -Infinity, "train/reward": 0.7, "training_step": 4, "step": 4, "recorded_at": "2026-03-01T12:02:00.5"}';
    const h = readHistory(line);
    assert.deepEqual(h.problems, []);
    assert.deepEqual({ ...h.rows[0]!.metrics }, { 'train/reward': 0.7 });
  });

  it('names each bad line by its number and why, and keeps every good line', () => {
    const text = [TRAIN_1, '{"train/reward": 0.3, "step": ', '', '[1, 2]', '{"train/reward": 1}', '{"train/reward": 1, "step": 2.5}', TRAIN_2].join('\n');
    const h = readHistory(text);
    assert.deepEqual(
      h.problems.map((p) => p.line),
      [2, 4, 5, 6],
    );
    assert.match(h.problems[0]!.message, /^not JSON/);
    assert.match(h.problems[1]!.message, /not a JSON object \(an array\)/);
    assert.match(h.problems[2]!.message, /no "step" or "training_step"/);
    assert.match(h.problems[3]!.message, /"step" is not a whole number/);
    assert.deepEqual(
      h.rows.map((r) => r.step),
      [1, 2],
    );
    assert.equal(h.lines, 6, 'the blank line is not counted');
  });

  it('takes training_step when a line has no step (older clients)', () => {
    const r = parseHistoryLine('{"train/reward": 0.1, "training_step": 7}', 1);
    assert.ok(r && 'step' in r);
    assert.equal(r.step, 7);
  });

  it('reads the naive recorded_at as local time, like the writer, and a zoned one in its zone', () => {
    const local = parseRecordedAt('2026-03-01T12:00:41.000002');
    assert.equal(local, new Date(2026, 2, 1, 12, 0, 41, 0).getTime());
    assert.equal(parseRecordedAt('2026-03-01T12:00:41.123999'), new Date(2026, 2, 1, 12, 0, 41, 123).getTime(), 'microseconds cut to ms');
    assert.equal(parseRecordedAt('2026-03-01T12:00:41+02:00'), Date.UTC(2026, 2, 1, 10, 0, 41));
    assert.equal(parseRecordedAt('2026-03-01T12:00:41Z'), Date.UTC(2026, 2, 1, 12, 0, 41));
    assert.equal(parseRecordedAt('2026-02-30T12:00:00'), undefined, 'no such day');
    assert.equal(parseRecordedAt('yesterday'), undefined);
  });

  it("names a step's trajectory files as ART does, Parquet first: four digits at least", () => {
    assert.deepEqual(stepFileNames(3), ['0003.parquet', '0003.jsonl']);
    assert.deepEqual(stepFileNames(12345), ['12345.parquet', '12345.jsonl']);
  });

  describe('HistoryReader: a file read as it grows', () => {
    const bytes = (s: string) => new TextEncoder().encode(s);

    it('reads only complete lines, numbers them across reads, and keeps a half-written line for later', () => {
      const r = new HistoryReader();
      const whole = `${TRAIN_1}\n${VAL_1}\n${TRAIN_2}\n`;
      const cut = whole.indexOf(TRAIN_2) + 20;
      const a = r.push(bytes(whole.slice(0, cut)));
      assert.equal(a.lines, 2);
      assert.equal(r.lineNumber, 3);
      assert.equal(r.pending(), undefined, 'a half-written line is not read, nor a problem');
      const b = r.push(bytes(whole.slice(cut) + '{oops\n'));
      assert.deepEqual(
        b.rows.map((x) => x.step),
        [2],
      );
      assert.deepEqual(b.problems.map((p) => p.line), [4]);
      assert.equal(r.offset, bytes(whole).byteLength + 6);
    });

    it('joins a character split between two reads', () => {
      const r = new HistoryReader();
      const line = bytes('{"train/reward": 0.5, "step": 1, "recorded_at": "2026-03-01T12:00:00", "note": "é"}\n');
      const at = line.indexOf(0xc3) + 1; // inside the two bytes of é
      assert.equal(r.push(line.subarray(0, at)).lines, 0);
      const h = r.push(line.subarray(at));
      assert.equal(h.lines, 1);
      assert.deepEqual(h.problems, []);
    });

    it('offers a last line without its newline, unconsumed, and starts over after reset', () => {
      const r = new HistoryReader();
      r.push(bytes(`${TRAIN_1}\n${TRAIN_2}`));
      assert.equal(r.pending()?.step, 2);
      assert.equal(r.push(bytes('\n')).rows[0]?.step, 2, 'read once its newline comes');
      r.reset();
      assert.equal(r.offset, 0);
      assert.equal(r.lineNumber, 1);
    });

    // Issue 28, item 5: a line without its end was joined and searched again on every read
    // (64 MiB in 1 MiB reads: 15 s and 1.1 GB). Each byte is now scanned once, and a line over the
    // limit is dropped as it comes and named.
    it('names a line longer than the limit by its number as soon as it is, keeps none of it, and reads the lines after it', () => {
      const r = new HistoryReader(1024);
      assert.equal(r.push(bytes(`${TRAIN_1}\n{"train/reward": "${'a'.repeat(600)}`)).problems.length, 0, 'not over the limit yet');
      const over = r.push(bytes('a'.repeat(600)));
      assert.deepEqual(over.problems, [{ line: 2, message: 'longer than 1 KiB: not read (a history line holds one log call)' }]);
      assert.equal(over.lines, 1, 'the overlong line counts as a line read');
      for (let i = 0; i < 100; i++) assert.deepEqual(r.push(bytes('a'.repeat(4096))).problems, [], 'named once');
      assert.ok(r.buffered <= 1025, `bytes held for the unfinished line: ${r.buffered}`);
      assert.equal(r.pending(), undefined);
      const after = r.push(bytes(`aaa"}\n${TRAIN_2}\n`));
      assert.deepEqual(after.rows.map((x) => x.step), [2]);
      assert.deepEqual(after.problems, []);
      assert.equal(r.lineNumber, 4);
    });

    it('holds only the unfinished line: a chunk read into a reused buffer is copied, not kept', () => {
      const r = new HistoryReader();
      // A Node Buffer, as HistorySync reads into: its slice() does not copy.
      const buffer = Buffer.alloc(256);
      const line = bytes(`${TRAIN_2}\n`);
      // The reader's own buffer, reused for each read (as HistorySync does).
      buffer.set(line.subarray(0, 40));
      r.push(buffer.subarray(0, 40));
      buffer.fill(0x20);
      buffer.set(line.subarray(40, 80));
      r.push(buffer.subarray(0, 40));
      buffer.set(line.subarray(80));
      const h = r.push(buffer.subarray(0, line.length - 80));
      assert.deepEqual(h.rows.map((x) => x.step), [2]);
      assert.deepEqual(h.problems, []);
    });
  });
});
