import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import {
  formatOf,
  ProblemError,
  readTrajectoryGroups,
  validateTrajectoryFile,
  type GroupRecord,
} from '../../../src/files';
import { exchangeOf } from '../../fixtures/art/producers';
import { brief, collect, MiB, retainedHeap, TRAJECTORY_FIXTURES, useTempDir, writeTemp } from './helpers';

const fixture = (name: string) => join(TRAJECTORY_FIXTURES, name);
const spans = (groups: GroupRecord[]) => groups.map((g) => [g.index, g.line, g.endLine, g.trajectories]);

/** A valid group line of roughly `size` bytes. */
function groupLine(i: number, size = 1060): string {
  const text = `question ${i} `.padEnd(size - 200, 'x');
  return JSON.stringify({
    trajectories: [
      {
        messages_and_choices: [
          { role: 'user', content: text },
          { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'ok' } },
        ],
        reward: i % 2,
        metrics: { step: i },
      },
    ],
  });
}

describe('files/reader', () => {
  const dir = useTempDir();

  describe('formatOf', () => {
    it('reads .jsonl (and .ndjson) as one group per line, anything else as one JSON document', () => {
      assert.equal(formatOf('/a/b.jsonl'), 'jsonl');
      assert.equal(formatOf('C:\\x\\B.JSONL'), 'jsonl');
      assert.equal(formatOf('b.ndjson'), 'jsonl');
      assert.equal(formatOf('b.json'), 'json');
      assert.equal(formatOf('b.trajectories.json'), 'json');
    });
  });

  describe('accepted shapes', () => {
    it('accepts a {split, trajectory_groups} document, with every message kind, and reports its split', async () => {
      const s = await validateTrajectoryFile(fixture('request.json'));
      assert.deepEqual(s.problems.map(brief), []);
      assert.equal(s.format, 'json');
      assert.equal(s.split, 'train');
      assert.equal(s.groups, 2);
      assert.equal(s.trajectories, 3);
      assert.equal(s.truncated, false);
      assert.equal(s.fileBytes, 1738);
    });

    it('accepts an array of groups', async () => {
      const s = await validateTrajectoryFile(fixture('groups.json'));
      assert.deepEqual(s.problems.map(brief), []);
      assert.deepEqual([s.groups, s.trajectories, s.split], [2, 3, undefined]);
    });

    it('accepts a single group {trajectories} in a .json file', async () => {
      const s = await validateTrajectoryFile(fixture('group.json'));
      assert.deepEqual(s.problems.map(brief), []);
      assert.deepEqual([s.groups, s.trajectories], [1, 1]);
    });

    it('accepts JSONL with one group per line and blank lines between', async () => {
      const s = await validateTrajectoryFile(fixture('groups.jsonl'));
      assert.deepEqual(s.problems.map(brief), []);
      assert.deepEqual([s.format, s.groups, s.trajectories], ['jsonl', 3, 4]);
    });

    it('accepts JSONL with a byte order mark and CRLF line breaks', async () => {
      const s = await validateTrajectoryFile(fixture('bom-crlf.jsonl'));
      assert.deepEqual(s.problems.map(brief), []);
      const groups = await collect(readTrajectoryGroups(fixture('bom-crlf.jsonl')));
      assert.deepEqual(spans(groups), [[0, 1, 1, 1], [1, 2, 2, 1]]);
      const first = (JSON.parse(groups[0]!.json) as { trajectories: { messages_and_choices: { content: string }[] }[] }).trajectories[0]!.messages_and_choices[0]!;
      assert.equal(first.content, 'café');
    });
  });

  describe('reading groups', () => {
    it('yields the groups of a JSON document with the lines each spans', async () => {
      assert.deepEqual(spans(await collect(readTrajectoryGroups(fixture('request.json')))), [[0, 4, 33, 2], [1, 34, 34, 1]]);
      assert.deepEqual(spans(await collect(readTrajectoryGroups(fixture('groups.json')))), [[0, 2, 2, 1], [1, 3, 8, 2]]);
      assert.deepEqual(spans(await collect(readTrajectoryGroups(fixture('group.json')))), [[0, 1, 6, 1]]);
    });

    it('yields JSONL groups with their file lines, skipping blank lines', async () => {
      assert.deepEqual(spans(await collect(readTrajectoryGroups(fixture('groups.jsonl')))), [[0, 1, 1, 1], [1, 3, 3, 1], [2, 5, 5, 2]]);
    });

    it("gives each group its exact source text (not a re-serialization) and that text's UTF-8 size", async () => {
      const text = fs.readFileSync(fixture('request.json'), 'utf8');
      const groups = await collect(readTrajectoryGroups(fixture('request.json')));
      const expected = (JSON.parse(text) as { trajectory_groups: unknown[] }).trajectory_groups;
      for (const [i, g] of groups.entries()) {
        assert.ok(text.includes(g.json), `group ${i} is a slice of the file`);
        assert.equal(g.bytes, Buffer.byteLength(g.json));
        assert.deepEqual(JSON.parse(g.json), expected[i]);
      }
      assert.notEqual(groups[0]!.json, JSON.stringify(expected[0]), 'the fixture is pretty-printed, and the text keeps it so');
    });

    it('starts at startGroup, for JSON and JSONL', async () => {
      assert.deepEqual(spans(await collect(readTrajectoryGroups(fixture('groups.jsonl'), { startGroup: 1 }))), [[1, 3, 3, 1], [2, 5, 5, 2]]);
      assert.deepEqual(spans(await collect(readTrajectoryGroups(fixture('request.json'), { startGroup: 1 }))), [[1, 34, 34, 1]]);
      assert.deepEqual(await collect(readTrajectoryGroups(fixture('groups.jsonl'), { startGroup: 3 })), []);
    });

    it('does not parse the JSONL lines it skips', async () => {
      const path = writeTemp(dir(), 'skip.jsonl', `{not json at all\n\n${groupLine(1)}\n`);
      assert.deepEqual(spans(await collect(readTrajectoryGroups(path, { startGroup: 1 }))), [[1, 3, 3, 1]]);
    });

    it('throws a ProblemError naming file, line and column when a group is invalid', async () => {
      await assert.rejects(collect(readTrajectoryGroups(fixture('problems.jsonl'))), (e: unknown) => {
        assert.ok(e instanceof ProblemError);
        assert.equal(e.problem.line, 1);
        assert.equal(e.message, `${fixture('problems.jsonl')}:1:58: trajectories[0].reward: expected number, received string`);
        return true;
      });
      await assert.rejects(collect(readTrajectoryGroups(fixture('invalid-syntax.json'))), /invalid-syntax\.json:3:47: Invalid JSON: trailing comma/);
    });
  });

  describe('problems, each with its exact position', () => {
    it('reports every problem of a JSONL file at once, with line and column', async () => {
      const s = await validateTrajectoryFile(fixture('problems.jsonl'));
      assert.deepEqual(s.problems.map(brief), [
        // 1: {"trajectories": [{"messages_and_choices": [], "reward": "high"}]}
        '1:58-1:64 error trajectories[0].reward: expected number, received string',
        // 3: the trajectory object at column 19 lacks messages_and_choices
        '3:19-3:20 error trajectories[0]: A trajectory cannot contain both exchanges and legacy histories (messages_and_choices, tools, additional_histories)',
        '4:54-4:61 error trajectories[0].messages_and_choices[0].role: expected one of "system", "developer", "user", "assistant", "tool", "function", received "robot"',
        // 5: unknown fields ("rewards", "note") are not problems: the service ignores them
        // 6: ..."reward": 1},]}: the trailing comma at column 60
        '6:60-6:61 error Invalid JSON: trailing comma',
        '7:1-7:2 error line 7 holds a single trajectory, not a group: wrap it as {"trajectories": [ ... ]}',
        // 8: a user message without content, a tool message without tool_call_id (tool_calls on a user message is an unknown field there)
        '8:45-8:46 error trajectories[0].messages_and_choices[0].content: required field is missing: only assistant messages may leave out content (null is allowed)',
        '8:63-8:64 error trajectories[0].messages_and_choices[1].tool_call_id: required field is missing: a tool message names the tool call it answers',
        // 9: a choice needs index and a known finish_reason
        '9:45-9:46 error trajectories[0].messages_and_choices[0].index: required field is missing',
        '9:63-9:69 error trajectories[0].messages_and_choices[0].finish_reason: expected one of "stop", "length", "tool_calls", "content_filter", "function_call", received "done"',
        '10:1-10:2 error expected a group {"trajectories": [...]}, received array',
        '11:62-11:73 error trajectories[0].start_time: expected an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z or 2026-01-31T12:00:00.123456',
        '11:94-11:100 error trajectories[0].metrics.acc: expected number or boolean, received string',
        // 11: "tools": null is an unset optional field, not a problem
      ]);
      assert.deepEqual(s.problems[0]!.path, ['trajectories', 0, 'reward']);
      assert.equal(s.problems[0]!.file, fixture('problems.jsonl'));
      // Line 2 is blank; every other line is a group, valid or not.
      assert.deepEqual([s.groups, s.trajectories, s.truncated], [11, 7, false]);
    });

    it('reports every problem of a JSON document with line and column, paths from the document root', async () => {
      const s = await validateTrajectoryFile(fixture('problems.json'));
      assert.deepEqual(s.problems.map(brief), [
        '2:12-2:14 error split: must not be empty',
        '5:64-5:70 error trajectory_groups[0].trajectories[0].reward: expected number, received string',
        '6:5-6:6 error trajectory_groups[1] holds a single trajectory, not a group: wrap it as {"trajectories": [ ... ]}',
        '10:65-10:67 error trajectory_groups[2].trajectories[0].messages_and_choices[0].content: expected string or array, received number',
        '11:35-11:36 error trajectory_groups[2].trajectories[0].metadata.nested: expected number, string, boolean or null, received object',
        // "model" (top level) and "extra" (a group) are unknown fields: sent along, not problems
      ]);
      assert.deepEqual(s.problems[3]!.path, ['trajectory_groups', 2, 'trajectories', 0, 'messages_and_choices', 0, 'content']);
      assert.equal(s.split, undefined);
      assert.deepEqual([s.groups, s.trajectories], [3, 2]);
    });

    it('counts columns after a byte order mark and keeps \\r out of CRLF lines (JSONL and JSON)', async () => {
      const jsonl = await validateTrajectoryFile(fixture('bom-crlf-problems.jsonl'));
      assert.deepEqual(jsonl.problems.map(brief), [
        '1:58-1:61 error trajectories[0].reward: expected number, received string',
        '2:18-2:24 error trajectories: expected array, received string',
      ]);
      const json = await validateTrajectoryFile(fixture('bom-crlf.json'));
      assert.deepEqual(json.problems.map(brief), ['4:64-4:67 error trajectory_groups[0].trajectories[0].reward: expected number, received string']);
      assert.equal(json.split, 'val');
    });

    it('reports invalid JSON at the position of the error', async () => {
      const s = await validateTrajectoryFile(fixture('invalid-syntax.json'));
      assert.deepEqual(s.problems.map(brief), ['3:47-3:48 error Invalid JSON: trailing comma']);
      const unterminated = writeTemp(dir(), 'unterminated.json', '{\n  "trajectories": [\n');
      assert.deepEqual((await validateTrajectoryFile(unterminated)).problems.map(brief), ['3:1-3:2 error Invalid JSON: close bracket expected']);
      const comment = writeTemp(dir(), 'comment.json', '{\n  // note\n  "trajectories": []\n}');
      assert.deepEqual((await validateTrajectoryFile(comment)).problems.map(brief), ['2:3-2:10 error Invalid JSON: comments are not allowed']);
    });

    it('hints at .jsonl when a .json file holds one group per line', async () => {
      const s = await validateTrajectoryFile(fixture('lines-in-json.json'));
      assert.deepEqual(s.problems.map(brief), [
        '2:1-2:2 error Invalid JSON: more content after the end of the JSON value (one group per line belongs in a .jsonl file)',
      ]);
    });

    it('explains a bare trajectory in a .json file', async () => {
      const s = await validateTrajectoryFile(fixture('bare-trajectory.json'));
      assert.deepEqual(s.problems.map(brief), ['1:1-1:2 error The file holds a single trajectory, not a group: wrap it as {"trajectories": [ ... ]}']);
    });

    it('explains a bare exchange trajectory (current ART), in a .jsonl line, a .json file (read whole or streamed) and a group list', async () => {
      const bare = JSON.stringify({ exchanges: { responses: [exchangeOf('responses')] }, reward: 1 });
      const jsonl = writeTemp(dir(), 'bare.jsonl', `{}\n${bare}\n`);
      assert.deepEqual((await validateTrajectoryFile(jsonl)).problems.map(brief), ['2:1-2:2 error line 2 holds a single trajectory, not a group: wrap it as {"trajectories": [ ... ]}']);
      const json = writeTemp(dir(), 'bare.json', bare);
      for (const streamJsonAbove of [undefined, 0]) {
        assert.deepEqual((await validateTrajectoryFile(json, { streamJsonAbove })).problems.map(brief), ['1:1-1:2 error The file holds a single trajectory, not a group: wrap it as {"trajectories": [ ... ]}']);
      }
      const list = writeTemp(dir(), 'list.json', `[{"exceptions": []}, ${bare}]`);
      assert.deepEqual((await validateTrajectoryFile(list)).problems.map(brief), ['1:22-1:23 error [1] holds a single trajectory, not a group: wrap it as {"trajectories": [ ... ]}']);
    });

    it('takes compact groups: {} and a group with only exceptions, in .jsonl and as a one-group .json file; reading counts 0 trajectories', async () => {
      const jsonl = writeTemp(dir(), 'compact.jsonl', '{}\n{"exceptions": [{"type": "E", "message": "m", "traceback": "t"}]}\n');
      const s = await validateTrajectoryFile(jsonl);
      assert.deepEqual([s.problems, s.groups, s.trajectories], [[], 2, 0]);
      for (const trusted of [false, true]) assert.deepEqual((await collect(readTrajectoryGroups(jsonl, { trusted }))).map((r) => [r.json, r.trajectories]), [['{}', 0], ['{"exceptions": [{"type": "E", "message": "m", "traceback": "t"}]}', 0]]);
      const single = writeTemp(dir(), 'compact.json', '{"exceptions": [], "metrics": {"step": 1}}');
      for (const streamJsonAbove of [undefined, 0]) assert.deepEqual((await validateTrajectoryFile(single, { streamJsonAbove })).problems, []);
    });

    it('refuses a JSON document of another shape', async () => {
      const other = writeTemp(dir(), 'other.json', '{"groups": []}');
      assert.deepEqual((await validateTrajectoryFile(other)).problems.map(brief), [
        '1:1-1:2 error Expected {"trajectory_groups": [...]}, an array of groups or one group {"trajectories": [...]}',
      ]);
      const str = writeTemp(dir(), 'string.json', '  "train"');
      assert.deepEqual((await validateTrajectoryFile(str)).problems.map(brief), [
        '1:3-1:10 error Expected {"trajectory_groups": [...]}, an array of groups or one group {"trajectories": [...]}; the file holds a string',
      ]);
      const split = writeTemp(dir(), 'split.json', '{"split": 3, "trajectory_groups": {}}');
      assert.deepEqual((await validateTrajectoryFile(split)).problems.map(brief), [
        '1:11-1:12 error split: expected string, received number',
        '1:35-1:36 error trajectory_groups: expected array, received object',
      ]);
    });

    it('reports an empty file, and a JSONL file of blank lines, as empty', async () => {
      for (const name of ['empty.json', 'empty.jsonl', 'blank.jsonl']) {
        const s = await validateTrajectoryFile(fixture(name));
        assert.deepEqual(s.problems.map(brief), ['1:1-1:2 error The file is empty'], name);
        assert.equal(s.groups, 0);
      }
    });

    it('warns that a document without groups has nothing to upload', async () => {
      const s = await validateTrajectoryFile(writeTemp(dir(), 'none.json', '{"split": "train", "trajectory_groups": []}'));
      assert.deepEqual(s.problems.map(brief), ['1:41-1:42 warning The file holds no trajectory groups: there is nothing to upload']);
    });

    it('reports an overlong JSONL line and goes on with the next ones', async () => {
      const path = writeTemp(dir(), 'overlong.jsonl', `${groupLine(1)}\n{"trajectories": [${'1,'.repeat(5000)}1]}\n{"trajectories": 1}\n`);
      const s = await validateTrajectoryFile(path, { maxLineBytes: 4096 });
      assert.deepEqual(s.problems.map(brief), [
        '2:1-2:2 error line 2 is longer than 4 KiB: a group must fit on one line within the limit',
        '3:18-3:19 error trajectories: expected array, received number',
      ]);
      assert.equal(s.groups, 3);
      await assert.rejects(collect(readTrajectoryGroups(path, { maxLineBytes: 4096 })), /line 2 is longer than 4 KiB/);
    });

    it('8. refuses bytes that are not UTF-8 at their line and column, and never reads them as U+FFFD', async () => {
      // A legitimate U+FFFD first: the column is the invalid byte's, not the first replacement character's.
      const path = writeTemp(dir(), 'latin1.jsonl', Buffer.concat([Buffer.from('{"trajectories": []}\n{"trajectories": [{"messages_and_choices": [{"role": "user", "content": "\uFFFD caf'), Buffer.from([0xe9]), Buffer.from('"}]}]}\n')]));
      const s = await validateTrajectoryFile(path);
      assert.deepEqual(s.problems.map(brief), [
        '2:79-2:80 error line 2 is not valid UTF-8: it would be sent altered (U+FFFD in place of the invalid bytes), so it is not sent; save the file as UTF-8',
      ]);
      await assert.rejects(collect(readTrajectoryGroups(path)), /line 2 is not valid UTF-8/);
      const json = writeTemp(dir(), 'latin1.json', Buffer.concat([Buffer.from('[{"trajectories": []},\n {"trajectories": [], "logs": ["caf'), Buffer.from([0xe9]), Buffer.from('"]}]')]));
      const j = await validateTrajectoryFile(json);
      assert.deepEqual(j.problems.map(brief), ['2:36-2:37 error The file is not valid UTF-8: it would be sent altered (U+FFFD in place of the invalid bytes), so it is not sent; save the file as UTF-8']);
      await assert.rejects(collect(readTrajectoryGroups(json)), /not valid UTF-8/);
    });

    it('8. refuses bytes that are not UTF-8 in a streamed .json file (over 16 MiB) at their line and column, whatever the chunk size', async () => {
      // A legitimate U+FFFD and multi-byte characters before the bad byte, so chunk boundaries fall inside characters.
      const bytes = Buffer.concat([Buffer.from('\uFEFF[{"trajectories": [], "logs": ["\uFFFD \u2603 \ud83d\ude00"]},\n {"trajectories": [], "logs": ["caf'), Buffer.from([0xe9]), Buffer.from('"]}]')]);
      const json = writeTemp(dir(), 'latin1-streamed.json', bytes);
      const expected = ['2:36-2:37 error The file is not valid UTF-8 here: it would be sent altered (U+FFFD in place of the invalid bytes), so it is not sent; save the file as UTF-8'];
      for (const streamChunkBytes of [1, 2, 3, 5, 7, 64, 1 << 20]) {
        const s = await validateTrajectoryFile(json, { streamJsonAbove: 0, streamChunkBytes });
        assert.deepEqual(s.problems.map(brief), expected, `chunks of ${streamChunkBytes} bytes`);
        const sent: string[] = [];
        await assert.rejects(async () => {
          for await (const g of readTrajectoryGroups(json, { streamJsonAbove: 0, streamChunkBytes })) sent.push(g.json);
        }, /not valid UTF-8 here/);
        assert.equal(sent.length, 1, 'the group before the bad byte is read, the one holding it is not');
      }
      // Valid UTF-8 split at every place, a U+FFFD of the file's own included, is not refused.
      const good = writeTemp(dir(), 'utf8-streamed.json', Buffer.from('[{"trajectories": [], "logs": ["\uFFFD caf\u00e9 \u2603 \ud83d\ude00"]}]'));
      for (const streamChunkBytes of [1, 2, 3, 5]) {
        const s = await validateTrajectoryFile(good, { streamJsonAbove: 0, streamChunkBytes });
        assert.deepEqual(s.problems.map(brief), [], `chunks of ${streamChunkBytes} bytes`);
      }
    });

    it('8. counts the bytes sent (UTF-8 of the text), not the bytes of the file', async () => {
      const text = '{"trajectories": [], "logs": ["caf\u00e9 \u2603 \ud83d\ude00"]}\n';
      const path = writeTemp(dir(), 'utf8.jsonl', `\uFEFF${text}`);
      const groups = await collect(readTrajectoryGroups(path));
      assert.equal(groups[0]!.bytes, Buffer.byteLength(groups[0]!.json));
    });

    it('refuses a group of a streamed .json file over the group limit, naming where it starts', async () => {
      const s = await validateTrajectoryFile(fixture('request.json'), { streamJsonAbove: 0, maxLineBytes: 1024 });
      assert.deepEqual(s.problems.map(brief), ['4:5-4:6 error A group is larger than 1 KiB: split it, or store one group per line in a .jsonl file']);
    });
  });

  describe('maxProblems', () => {
    it('keeps the first maxProblems problems and says more were found, still counting every group', async () => {
      const s = await validateTrajectoryFile(fixture('problems.jsonl'), { maxProblems: 3 });
      assert.equal(s.problems.length, 3);
      assert.equal(s.truncated, true);
      assert.deepEqual(s.problems.map((p) => p.line), [1, 3, 4]);
      assert.deepEqual([s.groups, s.trajectories], [11, 7]);

      const json = await validateTrajectoryFile(fixture('problems.json'), { maxProblems: 2 });
      assert.equal(json.problems.length, 2);
      assert.equal(json.truncated, true);
    });

    it('is not truncated when the problems fit exactly', async () => {
      const s = await validateTrajectoryFile(fixture('problems.jsonl'), { maxProblems: 12 });
      assert.deepEqual([s.problems.length, s.truncated], [12, false]);
    });

    it('defaults to 1000 problems', async () => {
      const lines = Array.from({ length: 1200 }, () => '{"trajectories": "x"}').join('\n');
      const s = await validateTrajectoryFile(writeTemp(dir(), 'many.jsonl', lines));
      assert.deepEqual([s.problems.length, s.truncated, s.groups], [1000, true, 1200]);
    });
  });

  describe('cancellation', () => {
    it('stops validating when the signal is aborted', async () => {
      const path = writeTemp(dir(), 'cancel.jsonl', Array.from({ length: 3000 }, (_, i) => groupLine(i)).join('\n'));
      const reason = new Error('cancelled by the user');
      await assert.rejects(validateTrajectoryFile(path, { signal: AbortSignal.abort(reason) }), (e) => e === reason);
      const ac = new AbortController();
      setImmediate(() => ac.abort(reason));
      await assert.rejects(validateTrajectoryFile(path, { signal: ac.signal }), (e) => e === reason);
    });

    it('stops reading groups when the signal is aborted', async () => {
      const path = writeTemp(dir(), 'cancel-read.jsonl', Array.from({ length: 100 }, (_, i) => groupLine(i)).join('\n'));
      const ac = new AbortController();
      const seen: number[] = [];
      await assert.rejects(
        (async () => {
          for await (const g of readTrajectoryGroups(path, { signal: ac.signal })) {
            seen.push(g.index);
            if (g.index === 4) ac.abort(new Error('stop'));
          }
        })(),
        /stop/,
      );
      assert.deepEqual(seen, [0, 1, 2, 3, 4]);
      const json = readTrajectoryGroups(fixture('request.json'), { signal: AbortSignal.abort(new Error('stop json')) });
      await assert.rejects(collect(json), /stop json/);
    });
  });

  describe('a large JSONL file', () => {
    it('validates and reads ~50 MB while the retained heap stays bounded', async function () {
      this.timeout(180_000);
      const path = join(dir(), 'large.jsonl');
      const out = createWriteStream(path);
      const count = 50_000;
      for (let i = 0; i < count; i++) if (!out.write(`${groupLine(i)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
      await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));

      const base = retainedHeap();
      let peak = 0;
      // Each sample is a full GC, which takes 100-300 ms of a ~150 MiB test-process heap on a busy
      // machine: sampling every 100 ms left the validation almost no time (a 180 s timeout under
      // load). The next sample waits four times as long as the last GC took, at least 100 ms; a
      // leak grows steadily, so later samples still catch it.
      let timer: NodeJS.Timeout | undefined;
      let sampling = true;
      const sample = () => {
        const t0 = performance.now();
        peak = Math.max(peak, retainedHeap() - base);
        if (sampling) timer = setTimeout(sample, Math.max(100, 4 * (performance.now() - t0)));
      };
      timer = setTimeout(sample, 100);
      let summary;
      try {
        summary = await validateTrajectoryFile(path);
      } finally {
        sampling = false;
        clearTimeout(timer);
      }
      assert.deepEqual(summary.problems, []);
      assert.equal(summary.groups, count);
      assert.ok(summary.fileBytes > 48 * MiB, `file is ${summary.fileBytes} bytes`);
      assert.ok(peak < 50 * MiB, `validation retained ${(peak / MiB).toFixed(1)} MiB`);

      let n = 0;
      let bytes = 0;
      for await (const g of readTrajectoryGroups(path, { startGroup: 10 })) {
        if (n === 0) assert.equal(g.index, 10);
        n++;
        bytes += g.bytes;
        if (n % 5000 === 0) peak = Math.max(peak, retainedHeap() - base);
      }
      assert.equal(n, count - 10);
      assert.ok(bytes > 45 * MiB);
      assert.ok(peak < 50 * MiB, `reading retained ${(peak / MiB).toFixed(1)} MiB`);
    });
  });
});
