// One upload job (src/trajectories/job.ts), whoever calls it: each caller (the command with an
// arguments object, the public API, the agents' tool as VS Code runs it, the MCP server over stdio)
// × each case (a clean file; a file cut to half, a line inserted at the top, and a same-size edit
// with the mtime put back, each during the first request; the same content uploaded twice) must
// come out the same: an error naming the file when the file changed, no group the validation did
// not see ever sent, and counts that are what the service logged, never what was planned.
// The JSONL files are written by Python's json module.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { ConnectionHost } from '../../../src/agents/connectionHost';
import { findTool, prepareTool, runTool } from '../../../src/agents/core/tools';
import { ErrorPresenter } from '../../../src/common/errors';
import { createPublicApi } from '../../../src/publicApi/api';
import { UploadManager } from '../../../src/trajectories/manager';
import type { UploadFinished } from '../../../src/trajectories/report';
import { SentUploads } from '../../../src/trajectories/sent';
import type { TrajectoryLog } from '../../server';
import { compactGroup, writeArtParquet } from '../../fixtures/art/parquet';
import { connect, KEY, type Service } from '../../fakes/service';

const root = path.resolve(__dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-upload-callers-'));

/**
 * `n` groups, one per line, each about 1 KiB, by Python's json: group i carries `"group": i` and
 * `"tag": <tag>` (a different tag per file, so no two files have the same content).
 */
function writeJsonl(name: string, n: number, tag: string): string {
  const file = path.join(dir, name);
  const py = `
import json, sys
n, tag, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
with open(out, 'w') as f:
    for i in range(n):
        t = {"messages_and_choices": [{"role": "user", "content": "q%d %s" % (i, "x" * 900)}, {"role": "assistant", "content": "a%d" % i}], "reward": i % 2, "metadata": {"group": i, "tag": tag}}
        f.write(json.dumps({"trajectories": [t]}) + "\\n")
`;
  execFileSync('python3', ['-c', py, String(n), tag, file]);
  return file;
}

interface Outcome {
  /** An error (a rejection, an error result, or a failed report). */
  failed: boolean;
  /** The error's text, or the summary. */
  text: string;
  /** The groups the caller says were logged. */
  reported: number;
}

const groupsOf = (logs: TrajectoryLog[]) =>
  logs.flatMap((l) => (l.body.trajectory_groups as { trajectories: { metadata: { group: number; tag: string } }[] }[]).map((g) => g.trajectories[0]!.metadata));
const num = (s: string) => Number(s.replace(/,/g, ''));
/** The tools' texts: "…: 12 groups, …" when done, "(12 groups logged in all)" when not. */
const reportedByText = (text: string) => {
  const m = /\(([\d,]+) groups logged in all\)/.exec(text) ?? /^Uploaded to model [^\n]*?: ([\d,]+) groups/.exec(text);
  return m ? num(m[1]!) : -1;
};

type Caller = (files: string[], modelId: string, opts?: { allowRepeat?: boolean }) => Promise<Outcome>;

describe('one upload job through every caller (command, public API, LM tool, MCP server)', function () {
  this.timeout(120_000);
  let svc: Service;
  let uploads: UploadManager;
  let mcp: Client;
  let tools: ConnectionHost;
  const callers: Record<string, Caller> = {};
  /** Run once, at the first log request the service stores. */
  let onFirstLog: (() => void) | undefined;

  before(async () => {
    svc = await connect();
    const context = { globalState: svc.globalState, workspaceState: svc.workspaceState } as unknown as vscode.ExtensionContext;
    const errors = new ErrorPresenter(svc.log, svc.prompts);
    uploads = new UploadManager(svc.connection, errors, svc.prompts, svc.contextKeys, svc.log, context);
    tools = new ConnectionHost(svc.connection, (text) => svc.log.redact(text), new SentUploads(svc.workspaceState));
    const api = createPublicApi({ connection: svc.connection, tools, errors, uploads });
    const logs = svc.server.store.logs;
    const push = logs.push.bind(logs);
    logs.push = (...items: TrajectoryLog[]) => {
      const n = push(...items);
      const hook = onFirstLog;
      onFirstLog = undefined;
      hook?.();
      return n;
    };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--require', require.resolve('tsx/cjs'), path.join(root, 'src/agents/mcp/main.ts')],
      env: { PATH: process.env.PATH ?? '', HOME: dir, NETRC: path.join(dir, 'no-netrc'), SVC_BASE_URL: svc.server.url, SVC_API_KEY: KEY },
      cwd: dir,
      stderr: 'pipe',
    });
    mcp = new Client({ name: 'svc-upload-callers', version: '1.0.0' });
    await mcp.connect(transport);

    callers.command = async (files, modelId, opts = {}) => {
      try {
        const report = await uploads.upload({ interactive: false }, { files, modelId, split: 'train', ...opts });
        const reported = report.files.reduce((n, f) => n + (f.result?.totals.groupsSent ?? 0), 0);
        const last = report.files.at(-1)?.result?.outcome;
        const failed = report.status !== 'done';
        return { failed, text: last?.status === 'failed' ? errors.describe(last.error) : report.status, reported };
      } catch (e) {
        return { failed: true, text: errors.describe(e), reported: 0 };
      }
    };
    callers.publicApi = async (files, modelId, opts = {}) => {
      try {
        const s = await api.uploadTrajectories({ files, modelId, split: 'train', ...opts });
        return { failed: s.status !== 'done', text: s.files.map((f) => f.error ?? f.status).join('; '), reported: s.files.reduce((n, f) => n + f.groupsSent, 0) };
      } catch (e) {
        return { failed: true, text: (e as Error).message, reported: 0 };
      }
    };
    callers.lmTool = async (files, modelId, opts = {}) => {
      const finished: UploadFinished[] = [];
      tools.onUploadFinished = (e) => finished.push(e);
      const r = await runTool(tools, findTool('svc_upload_trajectories')!, { files, modelId, split: 'train', ...opts });
      const reported = r.isError && !/groups logged in all/.test(r.text) ? 0 : reportedByText(r.text);
      // The public API's onDidFinishUpload hears of it too, with the ledger's counts.
      if (reported > 0) assert.equal(finished[0]?.report.files.reduce((n, f) => n + (f.result?.totals.groupsSent ?? 0), 0), reported);
      return { failed: r.isError, text: r.text, reported };
    };
    callers.mcp = async (files, modelId, opts = {}) => {
      const r = (await mcp.callTool({ name: 'svc_upload_trajectories', arguments: { files, modelId, split: 'train', ...opts } })) as { content: { text: string }[]; isError?: boolean };
      const text = r.content.map((c) => c.text).join('');
      return { failed: r.isError === true, text, reported: r.isError && !/groups logged in all/.test(text) ? 0 : reportedByText(text) };
    };
  });
  after(async () => {
    await mcp?.close();
    uploads?.dispose();
    await svc?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => (onFirstLog = undefined));

  const stored = (modelId: string) => groupsOf(svc.server.store.logs.filter((l) => l.modelId === modelId));
  const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

  for (const caller of ['command', 'publicApi', 'lmTool', 'mcp']) {
    describe(caller, () => {
      it('a clean file: done, every group logged once, and the count reported is the count logged', async () => {
        const file = writeJsonl(`${caller}-clean.jsonl`, 50, `${caller}-clean`);
        const r = await callers[caller]!([file], `${caller}-clean`);
        assert.equal(r.failed, false, r.text);
        assert.deepEqual(stored(`${caller}-clean`).map((g) => g.group), upTo(50));
        assert.equal(r.reported, 50, r.text);
      });

      // About 25 MB: four requests of up to 8 MiB. While the first is logged the next is read (one
      // request in flight, one being filled), so some 17 MiB have been read when the cut comes.
      it('a file cut at a line end half-way through, during the first request: an error naming the file; the count reported is what was logged, each group once', async () => {
        const n = 23000;
        const file = writeJsonl(`${caller}-cut.jsonl`, n, `${caller}-cut`);
        // At a line's end: what is left is a valid file of fewer groups.
        onFirstLog = () => {
          const text = fs.readFileSync(file);
          fs.truncateSync(file, text.indexOf(10, Math.floor(text.length / 2)) + 1);
        };
        const r = await callers[caller]!([file], `${caller}-cut`);
        const got = stored(`${caller}-cut`).map((g) => g.group);
        assert.equal(r.failed, true, `${r.text} (logged ${got.length} of ${n})`);
        assert.match(r.text, new RegExp(`${caller}-cut\\.jsonl changed`));
        assert.deepEqual(got, upTo(got.length), 'a prefix of the file, each group once');
        assert.ok(got.length > 0 && got.length < n, `${got.length}`);
        assert.equal(r.reported, got.length, r.text);
      });

      it('a line inserted at the top during the first request: an error naming the file, no group twice, the count logged', async () => {
        const n = 23000;
        const file = writeJsonl(`${caller}-insert.jsonl`, n, `${caller}-insert`);
        onFirstLog = () => {
          const text = fs.readFileSync(file);
          fs.writeFileSync(file, Buffer.concat([Buffer.from(text.subarray(0, text.indexOf(10) + 1).toString().replace('"group": 0', '"group": -1')), text]));
        };
        const r = await callers[caller]!([file], `${caller}-insert`);
        const got = stored(`${caller}-insert`).map((g) => g.group);
        assert.equal(r.failed, true, `${r.text} (logged ${got.length} of ${n})`);
        assert.match(r.text, new RegExp(`${caller}-insert\\.jsonl changed`));
        assert.deepEqual(got, upTo(got.length), 'a prefix of the file as validated, each group once');
        assert.equal(r.reported, got.length, r.text);
      });

      // About 25 MB: four requests; the edit (same length, mtime put back) is in the third, read
      // after the first request was logged.
      it('a same-size edit with the mtime put back, during the first request: no edited group is sent; an error naming the file', async () => {
        const n = 23000;
        const file = writeJsonl(`${caller}-same-size.jsonl`, n, `${caller}-same-size`);
        const tag = `${caller}-same-size`;
        onFirstLog = () => {
          const st = fs.statSync(file);
          const text = fs.readFileSync(file, 'latin1');
          // Groups 19000–19009, about 20 MB in: in the third request.
          let edited = text;
          for (let i = 19000; i < 19010; i++) edited = edited.replace(`"group": ${i}, "tag": "${tag}"`, `"group": ${i}, "tag": "${tag.replace(/./g, 'E')}"`);
          assert.equal(edited.length, text.length);
          fs.writeFileSync(file, edited, 'latin1');
          fs.utimesSync(file, st.atime, st.mtime);
        };
        const r = await callers[caller]!([file], tag);
        const got = stored(tag);
        assert.equal(r.failed, true, `${r.text} (logged ${got.length} of ${n})`);
        assert.match(r.text, new RegExp(`${caller}-same-size\\.jsonl changed`));
        assert.deepEqual(got.filter((g) => g.tag !== tag).map((g) => g.group), [], 'no edited group was sent');
        assert.deepEqual(got.map((g) => g.group), upTo(got.length));
        assert.equal(r.reported, got.length, r.text);
      });

      it('the same content to the same model and split again: refused, saying when it was sent, unless allowRepeat', async () => {
        const file = writeJsonl(`${caller}-twice.jsonl`, 6, `${caller}-twice`);
        const model = `${caller}-twice`;
        assert.equal((await callers[caller]!([file], model)).failed, false);
        const again = await callers[caller]!([file], model);
        assert.equal(again.failed, true, again.text);
        assert.match(again.text, new RegExp(`${caller}-twice\\.jsonl \\(this content\\) was already uploaded to ${model} \\(train\\) on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC: 6 groups`));
        assert.match(again.text, /allowRepeat/);
        assert.equal(stored(model).length, 6, 'nothing more was sent');
        if (caller === 'lmTool') {
          // VS Code's confirmation says it before the user allows the call.
          const { confirmation } = await prepareTool(tools, findTool('svc_upload_trajectories')!, { files: [file], modelId: model, split: 'train' });
          assert.match(confirmation!.message, /lmTool-twice\.jsonl \(this content\) was already uploaded to lmTool-twice \(train\) on .*Nothing will be sent unless allowRepeat is true\./s);
        }
        assert.equal((await callers[caller]!([file], `${model}-other`)).failed, false, 'another model takes it');
        const allowed = await callers[caller]!([file], model, { allowRepeat: true });
        assert.equal(allowed.failed, false, allowed.text);
        assert.equal(stored(model).length, 12);
      });
    });
  }
});

// A Parquet file's reader opens the path itself, a row group at a time: the send reads a private
// copy whose hash is checked against the validation's first, so an edit during the upload (same
// size, mtime put back) is never sent. Written by DuckDB, uncompressed so its bytes can be edited.
describe('a Parquet step file edited during its upload (same size, mtime put back)', function () {
  this.timeout(60_000);
  let svc: Service;
  let uploads: UploadManager;
  const pdir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-upload-parquet-'));
  before(async () => {
    svc = await connect();
    const context = { globalState: svc.globalState, workspaceState: svc.workspaceState } as unknown as vscode.ExtensionContext;
    uploads = new UploadManager(svc.connection, new ErrorPresenter(svc.log, svc.prompts), svc.prompts, svc.contextKeys, svc.log, context);
  });
  after(async () => {
    uploads.dispose();
    await svc.close();
    fs.rmSync(pdir, { recursive: true, force: true });
  });

  it('sends no edited group: the upload fails naming the file, and what was logged is the validated content', async () => {
    const file = path.join(pdir, '0001.parquet');
    // 3,000 groups of 2 trajectories: three row groups of 2,048 rows; the edit is in the third.
    const groups = Array.from({ length: 3000 }, (_, i) => {
      const g = compactGroup(i);
      (g.trajectories as { metadata?: unknown }[])[0]!.metadata = { mark: `ORIG-${String(i).padStart(4, '0')}` };
      return g;
    });
    await writeArtParquet(file, groups, { compression: 'uncompressed', rowGroupSize: 2048 });
    const logs = svc.server.store.logs;
    const push = logs.push.bind(logs);
    let edited = false;
    logs.push = (...items: TrajectoryLog[]) => {
      const n = push(...items);
      if (!edited) {
        edited = true;
        const st = fs.statSync(file);
        const bytes = fs.readFileSync(file);
        // Every copy of it: the analytics columns hold the metadata too.
        let found = 0;
        for (let at = bytes.indexOf('ORIG-2500'); at >= 0; at = bytes.indexOf('ORIG-2500', at + 1), found++) bytes.write('EDIT-2500', at, 'latin1');
        assert.ok(found > 0);
        fs.writeFileSync(file, bytes);
        fs.utimesSync(file, st.atime, st.mtime);
      }
      return n;
    };
    const report = await uploads.upload({ interactive: false }, { files: [file], modelId: 'pq', split: 'train', maxRequestBytes: 64 * 1024 });
    const marks = groupsOf(logs as TrajectoryLog[]).map((g) => (g as unknown as { mark: string }).mark);
    assert.ok(edited, 'the file was edited during the upload');
    assert.equal(report.status, 'failed', `${report.status}: ${marks.length} groups`);
    assert.match(String((report.files[0]!.result!.outcome as { error: Error }).error.message), /^0001\.parquet changed during the upload/);
    assert.deepEqual(marks.filter((m) => !m.startsWith('ORIG-')), [], 'no edited group was sent');
    assert.deepEqual(marks, marks.map((_, i) => `ORIG-${String(i).padStart(4, '0')}`), 'a prefix of the validated file, each group once');
    assert.equal(report.files[0]!.result!.totals.groupsSent, marks.length);
  });
});
