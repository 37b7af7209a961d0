import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Problem } from '../../../src/files/problems';

export const TRAJECTORY_FIXTURES = resolve(__dirname, '../../fixtures/trajectories');
export const CALL_FIXTURES = resolve(__dirname, '../../fixtures/calls');

/** `line:column-endLine:endColumn severity message`: one string per problem, easy to compare whole. */
export function brief(p: Problem): string {
  return `${p.line}:${p.column}-${p.endLine}:${p.endColumn} ${p.severity} ${p.message}`;
}

/** A temporary directory removed after the suite. */
export function useTempDir(): () => string {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-reader-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

export function writeTemp(dir: string, name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

export { collect } from '../fuzz/helpers';

let gcFn: (() => void) | undefined;
/** A full garbage collection, so heapUsed measures what is retained. */
export function gc(): void {
  if (!gcFn) {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  }
  gcFn();
}

/** Heap retained after a full collection, bytes. */
export function retainedHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

export const MiB = 1024 * 1024;
