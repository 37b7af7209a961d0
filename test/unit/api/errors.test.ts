// One error hierarchy: every error a reader, the stream decoder or a command throws for bad input
// or a broken response is an SvcError, and says where the fault is.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError, ProtocolError, SvcError, decodeJsonl, JsonlError } from '../../../src/api';
import { scanJson } from '../../../src/files/jsonScan';
import { JsonScanError } from '../../../src/files/jsonScanEvents';
import { LineTooLongError, readLines } from '../../../src/files/lines';
import { ProblemError } from '../../../src/files/problems';
import { readTrajectoryGroups } from '../../../src/files';

async function* chunks(...texts: string[]): AsyncGenerator<Uint8Array> {
  for (const t of texts) yield new TextEncoder().encode(t);
}

async function caught(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (e) {
    return e;
  }
  assert.fail('expected an error');
}

describe('one error hierarchy', () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'issue-11s-errors-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a broken JSONL stream line is a ProtocolError (an SvcError) with its line', async () => {
    const e = await caught(async () => {
      for await (const _ of decodeJsonl(chunks('{"a":1}\n{oops\n'))) void _;
    });
    assert.ok(e instanceof JsonlError);
    assert.ok(e instanceof ProtocolError && e instanceof SvcError);
    assert.strictEqual(e.line, 2);
    assert.strictEqual(e.kind, 'malformed');
  });

  it('a line too long is an InputError naming the file and line', async () => {
    const file = path.join(dir, 'long.jsonl');
    fs.writeFileSync(file, `{}\n${'x'.repeat(100)}\n`);
    const e = await caught(async () => {
      for await (const _ of readLines(file, { maxLineBytes: 10 })) void _;
    });
    assert.ok(e instanceof LineTooLongError && e instanceof InputError && e instanceof SvcError);
    assert.deepStrictEqual(e.place, { file, line: 2 });
  });

  it('a file that does not hold what its reader expects is a ProblemError (an InputError) with file, line and column', async () => {
    const file = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(file, '{"trajectories": []}\nnot json\n');
    const e = await caught(async () => {
      for await (const _ of readTrajectoryGroups(file)) void _;
    });
    assert.ok(e instanceof ProblemError && e instanceof InputError && e instanceof SvcError, String(e));
    assert.strictEqual(e.place.file, file);
    assert.strictEqual(typeof e.place.line, 'number');
    assert.strictEqual(typeof e.place.column, 'number');
    assert.match(e.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: `));
  });

  it('a JSON document whose structure breaks is a JsonScanError (an InputError) with line and column', async () => {
    const file = path.join(dir, 'broken.json');
    fs.writeFileSync(file, '{"trajectory_groups": [\n  {"a": 1},\n  ]x');
    const e = await caught(async () => {
      for await (const _ of scanJson(file, { streamMember: 'trajectory_groups', maxValueChars: 1000 })) void _;
    });
    assert.ok(e instanceof JsonScanError && e instanceof InputError, String(e));
    assert.strictEqual(e.place.line, e.line);
    assert.strictEqual(e.place.column, e.column);
  });

  it('an InputError names what is at fault and the command that fixes it', () => {
    const input = new InputError('No project is selected.', { field: 'svc.project' }, { fix: { title: 'Select Project', command: 'svc.selectProject' } });
    assert.strictEqual(input.name, 'InputError');
    assert.ok(input instanceof SvcError);
    assert.deepStrictEqual(input.place, { field: 'svc.project' });
    assert.deepStrictEqual(input.fix, { title: 'Select Project', command: 'svc.selectProject' });
  });
});
