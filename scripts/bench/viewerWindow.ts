// The viewer's host rows (viewerParquet.ts, viewerInspect.ts): one file opened in a fresh
// code-server window by test/host/bench-viewer.ts, and the formatting those rows share.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { ViewerFigures } from '../../test/host/bench-viewer';

const root = path.resolve(__dirname, '..', '..');

/** One file in a fresh code-server window; `paintOnly`: stop once the first paint and the index are done. */
export function viewerRunOnce(file: string, paintOnly: boolean): ViewerFigures {
  const env = ['--env', `SVC_BENCH_VIEWER_FILES=${file}`, ...(paintOnly ? ['--env', 'SVC_BENCH_VIEWER_PAINT_ONLY=1'] : [])];
  const host = spawnSync(process.execPath, ['scripts/host/run-tests.js', '--no-build', '--entry', 'out/test/host/bench-viewer.js', ...env], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = /BENCH_VIEWER (\[.*\])/.exec(host.stdout)?.[1];
  if (!line) throw new Error(`viewer bench failed (exit ${host.status}):\n${host.stdout.slice(-3000)}\n${host.stderr.slice(-2000)}`);
  return (JSON.parse(line) as ViewerFigures[])[0]!;
}

export const mib = (b: number) => (b / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
export const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
