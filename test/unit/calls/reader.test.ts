import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ProblemError, readCallItems, validateCallsFile } from '../../../src/calls/reader';
import { brief, CALL_FIXTURES, collect, useTempDir, writeTemp } from '../files/helpers';

const fixture = (name: string) => join(CALL_FIXTURES, name);

const start = (id?: string) =>
  JSON.stringify({
    start: { project_id: 'acme/bot', ...(id ? { id } : {}), op_name: 'op', started_at: '2026-01-01T10:00:00Z', attributes: {}, inputs: {} },
  });

describe('calls/reader', () => {
  const dir = useTempDir();

  describe('validateCallsFile', () => {
    it('accepts {mode, req} items and bare {start} / {end} records, with blank lines between', async () => {
      const s = await validateCallsFile(fixture('calls.jsonl'));
      assert.deepEqual(s.problems.map(brief), []);
      assert.deepEqual([s.items, s.starts, s.ends, s.truncated], [4, 2, 2, false]);
      assert.ok(s.fileBytes > 0);
    });

    it('reports every problem at once, with line and column', async () => {
      const s = await validateCallsFile(fixture('problems.jsonl'));
      assert.deepEqual(s.problems.map(brief), [
        // 1: {"mode": "middle", "req": {}}
        '1:10-1:18 error mode: expected one of "start", "end", received "middle"',
        // 2: several problems in one bare start
        '2:26-2:32 error start.project_id: must have the form <entity>/<project>',
        '2:56-2:58 error start.op_name: must not be empty',
        '2:74-2:79 error start.started_at: expected an ISO 8601 date-time with seconds and a time zone, e.g. 2026-01-31T12:00:00Z; received "now"',
        '2:95-2:96 error start.attributes: expected object, received array',
        '2:113-2:121 error start.colour: unknown field',
        '3:1-3:2 error line 3 holds both a start and an end: put each on its own line, start first',
        '4:1-4:2 error expected a call record ({"mode": "start" or "end", "req": {...}}, {"start": {...}} or {"end": {...}})',
        // 5: the end object at column 32 lacks its id
        '5:32-5:33 error req.end.id: required field is missing',
        // 6: the line stops before the last closing brace
        '6:159-6:160 error Invalid JSON: close brace expected',
        '7:1-7:8 error expected a call record ({"mode": "start" or "end", "req": {...}}, {"start": {...}} or {"end": {...}}), received string',
        '8:11-8:12 warning start without an id: the import derives one from the file, line and content, so editing this line and importing again creates a new call (give each call an "id")',
      ]);
      assert.deepEqual(s.problems[1]!.path, ['start', 'project_id']);
      // Lines 2 and 8 are starts, line 5 an end; the others hold no recognizable record.
      assert.deepEqual([s.items, s.starts, s.ends], [8, 2, 1]);
    });

    it('warns about a start without an id, at the start object, without blocking the import', async () => {
      const s = await validateCallsFile(fixture('crlf-no-ids.jsonl'));
      // The file has a byte order mark and CRLF breaks: columns count from after the mark.
      assert.deepEqual(s.problems.map(brief), [
        '1:11-1:12 warning start without an id: the import derives one from the file, line and content, so editing this line and importing again creates a new call (give each call an "id")',
      ]);
      const wrapped = writeTemp(dir(), 'wrapped.jsonl', `{"mode": "start", "req": ${start()}}\n`);
      assert.deepEqual((await validateCallsFile(wrapped)).problems.map(brief), [
        '1:35-1:36 warning start without an id: the import derives one from the file, line and content, so editing this line and importing again creates a new call (give each call an "id")',
      ]);
    });

    it('warns that svc_user_id is not kept (the service sets it from the credentials)', async () => {
      const line = JSON.stringify({ start: { ...JSON.parse(start('a')).start, svc_user_id: 'me' } });
      const s = await validateCallsFile(writeTemp(dir(), 'user.jsonl', `${line}\n`));
      assert.deepEqual(s.problems.map(brief), [
        // Points at the value "me".
        `1:${line.indexOf('"me"') + 1}-1:${line.indexOf('"me"') + 5} warning start.svc_user_id: set by the service from your credentials, so this value is not kept`,
      ]);
    });

    it('names the mode and req fields of a {mode, req} item', async () => {
      const path = writeTemp(dir(), 'modes.jsonl', ['{"req": {"start": {}}}', '{"mode": "start", "req": {"end": {}}}', '{"mode": "end"}'].join('\n'));
      const s = await validateCallsFile(path);
      assert.deepEqual(s.problems.map(brief), [
        '1:1-1:2 error mode: required field is missing',
        '2:26-2:27 error req.start: required field is missing',
        '2:27-2:32 error req.end: unknown field',
        '3:1-3:2 error req: required field is missing',
      ]);
    });

    it('reports an empty file', async () => {
      const s = await validateCallsFile(writeTemp(dir(), 'empty.jsonl', '\n\n'));
      assert.deepEqual(s.problems.map(brief), ['1:1-1:2 error The file is empty']);
    });

    it('reports an overlong line and goes on', async () => {
      const path = writeTemp(dir(), 'long.jsonl', `${start('a')}\n${start('b'.repeat(5000))}\n{"end": 1}\n`);
      const s = await validateCallsFile(path, { maxLineBytes: 1024 });
      assert.deepEqual(s.problems.map(brief), [
        '2:1-2:2 error line 2 is longer than 1 KiB: a call record must fit on one line within the limit',
        '3:9-3:10 error end: expected object, received number',
      ]);
    });

    it('keeps maxProblems problems and says more were found', async () => {
      const path = writeTemp(dir(), 'many.jsonl', Array.from({ length: 20 }, () => start()).join('\n'));
      const s = await validateCallsFile(path, { maxProblems: 5 });
      assert.deepEqual([s.problems.length, s.truncated, s.items, s.starts], [5, true, 20, 20]);
    });

    it('stops when the signal is aborted', async () => {
      const reason = new Error('cancelled');
      await assert.rejects(validateCallsFile(fixture('calls.jsonl'), { signal: AbortSignal.abort(reason) }), (e) => e === reason);
    });
  });

  describe('readCallItems', () => {
    it('yields items normalized to {mode, req}, with index, line and UTF-8 size', async () => {
      const records = await collect(readCallItems(fixture('calls.jsonl')));
      assert.deepEqual(records.map((r) => [r.index, r.line, r.item.mode]), [[0, 1, 'start'], [1, 2, 'end'], [2, 4, 'start'], [3, 5, 'end']]);
      const bare = records[2]!.item;
      assert.ok(bare.mode === 'start');
      assert.equal(bare.req.start.op_name, 'tool');
      for (const r of records) assert.equal(r.bytes, Buffer.byteLength(JSON.stringify(r.item)));
    });

    it('trusted: yields the same records without the schema pass, and still refuses a line of no record shape', async () => {
      for (const name of ['calls.jsonl', 'crlf-no-ids.jsonl']) {
        const checked = await collect(readCallItems(fixture(name)));
        const trusted = await collect(readCallItems(fixture(name), { trusted: true }));
        assert.deepEqual(trusted.map((r) => [r.index, r.line, r.item, r.bytes]), checked.map((r) => [r.index, r.line, r.item, r.bytes]), name);
      }
      const path = writeTemp(dir(), 'shapeless.jsonl', `${start('a')}\n[1, 2]\n`);
      await assert.rejects(collect(readCallItems(path, { trusted: true })), (e: unknown) => e instanceof ProblemError && /:2:1: expected a call record .*, received array$/.test(e.message));
    });

    it('starts at startItem without parsing the lines before it', async () => {
      const path = writeTemp(dir(), 'skip.jsonl', `{broken\n\n${start('a')}\n`);
      assert.deepEqual((await collect(readCallItems(path, { startItem: 1 }))).map((r) => [r.index, r.line]), [[1, 3]]);
      assert.deepEqual((await collect(readCallItems(fixture('calls.jsonl'), { startItem: 3 }))).map((r) => r.index), [3]);
    });

    it('yields a start without an id (a warning, not an error)', async () => {
      const records = await collect(readCallItems(fixture('crlf-no-ids.jsonl')));
      assert.deepEqual(records.map((r) => r.item.mode), ['start', 'end']);
    });

    it('throws a ProblemError with the line of the first invalid item', async () => {
      await assert.rejects(collect(readCallItems(fixture('problems.jsonl'))), (e: unknown) => {
        assert.ok(e instanceof ProblemError);
        assert.equal(e.message, `${fixture('problems.jsonl')}:1:10: mode: expected one of "start", "end", received "middle"`);
        return true;
      });
    });

    it('stops when the signal is aborted', async () => {
      const ac = new AbortController();
      const seen: number[] = [];
      await assert.rejects(
        (async () => {
          for await (const r of readCallItems(fixture('calls.jsonl'), { signal: ac.signal })) {
            seen.push(r.index);
            ac.abort(new Error('stop'));
          }
        })(),
        /stop/,
      );
      assert.deepEqual(seen, [0]);
    });
  });
});
