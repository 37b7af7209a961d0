// Every reader of a file from disk reads regular files only (issue 28, item 2): a link to a device
// (/dev/zero has no end and `stat` says 0 bytes) or a named pipe (an open waits for a writer) is
// refused by name before a byte is read; none of them hangs or grows the process.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readHistoryFile } from '../../../src/agents/core/history';
import * as vscode from 'vscode';
import { kindOfFile } from '../../../src/calls/fileKind';
import { restrictedWorkspaceSettings } from '../../../src/common/config';
import { validateCallsFile } from '../../../src/calls/reader';
import { FileBytes } from '../../../src/files/bytes';
import { readTrajectoryGroups, validateTrajectoryFile } from '../../../src/files';
import { ParquetIndex } from '../../../src/files/parquetIndex';
import { fingerprint } from '../../../src/trajectories/guard';
import { collect, useTempDir } from './helpers';

describe('readers take regular files only (devices, pipes, links to them)', function () {
  // On the old code a pipe's open waits forever: a test fails by its timeout, not the run.
  this.timeout(5000);
  const dir = useTempDir();
  const pipes: string[] = [];
  /** A link named `name` to /dev/zero. */
  const zero = (name: string) => {
    const p = join(dir(), name);
    symlinkSync('/dev/zero', p);
    return p;
  };
  /** A named pipe named `name` that nobody writes. */
  const pipe = (name: string) => {
    const p = join(dir(), name);
    execFileSync('mkfifo', [p]);
    pipes.push(p);
    return p;
  };
  afterEach(() => {
    // An open that waits for a writer (the old code) gets one, and then the end: nothing stays stuck.
    for (const p of pipes.splice(0)) {
      try {
        closeSync(openSync(p, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader waiting: nothing to release.
      }
    }
  });
  const refused = (kind: RegExp) => (e: Error) => kind.test(e.message) && /not a regular file/.test(e.message);

  it('validation of a .json link to /dev/zero: refused by name, nothing read', async () => {
    const file = zero('zero.trajectories.json');
    await assert.rejects(validateTrajectoryFile(file), refused(/zero\.trajectories\.json is a character device/));
    await assert.rejects(collect(readTrajectoryGroups(file)), refused(/character device/));
  });

  it('validation of a .jsonl, .json and .parquet named pipe: refused at once', async () => {
    for (const name of ['p.jsonl', 'p.json', 'p.parquet']) {
      await assert.rejects(validateTrajectoryFile(pipe(name)), refused(/named pipe/), name);
    }
  });

  it('a .jsonl link to /dev/zero is refused, not read as an empty file', async () => {
    await assert.rejects(validateTrajectoryFile(zero('zero.jsonl')), refused(/character device/));
  });

  it("the viewer's index (JSONL and Parquet) and its byte source refuse them", async () => {
    await assert.rejects(FileBytes.open(zero('v.jsonl')), refused(/character device/));
    await assert.rejects(FileBytes.open(pipe('v2.jsonl')), refused(/named pipe/));
    await assert.rejects(ParquetIndex.open(pipe('v.parquet')), refused(/named pipe/));
    await assert.rejects(ParquetIndex.open(zero('z.parquet')), refused(/character device/));
  });

  it("the upload's fingerprint refuses a device instead of hashing it forever", async () => {
    await assert.rejects(fingerprint(zero('f.jsonl')), refused(/character device/));
    await assert.rejects(fingerprint(pipe('f2.jsonl')), refused(/named pipe/));
  });

  it('the import (calls) reader and its kind sniff do not wait on a pipe', async () => {
    assert.equal(await kindOfFile(pipe('c.jsonl')), 'unknown');
    await assert.rejects(validateCallsFile(pipe('c2.jsonl')), refused(/named pipe/));
  });

  it("svc_summarize_run's history read: a device refused, a file over the limit refused before it is read", async () => {
    await assert.rejects(readHistoryFile(zero('history.jsonl')), refused(/character device/));
    await assert.rejects(readHistoryFile(pipe('h.jsonl')), refused(/named pipe/));
    // A sparse file: 300 MiB by its size, no bytes on disk.
    const big = join(dir(), 'big-history.jsonl');
    writeFileSync(big, '');
    truncateSync(big, 300 * 1024 * 1024);
    await assert.rejects(readHistoryFile(big), /big-history\.jsonl is larger than 256 MiB \(300 MiB\): not read/);
  });

  it("Restricted Mode's look at a cloned folder's .vscode/settings.json skips a link to a device (a synchronous read)", () => {
    const folder = join(dir(), 'cloned');
    mkdirSync(join(folder, '.vscode'), { recursive: true });
    symlinkSync('/dev/zero', join(folder, '.vscode', 'settings.json'));
    // The fake workspace's folders are writable (the real API's are not).
    const ws = vscode.workspace as { workspaceFolders: unknown };
    const before = ws.workspaceFolders;
    ws.workspaceFolders = [{ uri: vscode.Uri.file(folder), name: 'cloned', index: 0 }];
    try {
      assert.deepEqual(restrictedWorkspaceSettings(), []);
    } finally {
      ws.workspaceFolders = before;
    }
  });
});
