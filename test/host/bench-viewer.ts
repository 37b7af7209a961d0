// `npm run bench` only (not a test suite): opens trajectory files in the trajectory viewer inside
// the extension host and measures the time until the webview reports the first group and
// trajectory on screen, the host's RSS while the file is indexed and validated, and the webview's
// JS heap. Prints one `BENCH_VIEWER {json}` line. Files come from SVC_BENCH_VIEWER_FILES
// (comma-separated), each measured in a fresh tab, one after the other; with
// SVC_BENCH_VIEWER_PAINT_ONLY set, a file's validation is not waited for.
import * as vscode from 'vscode';
import type { Exports } from '../../src/boot/main';
import type { SvcExtensionApi } from '../../src/extension';
import type { ViewerSession } from '../../src/viewer/session';

/** What the bench reports per file (scripts/bench/viewer.ts reads it). */
export interface ViewerFigures {
  file: string;
  bytes: number;
  groups: number;
  firstPaintMs: number;
  /** When the webview had loaded and asked for its data. */
  readyMs: number;
  /** The webview document's own time, from its navigation start to the report. */
  documentMs: number;
  scriptStartMs?: number;
  indexedMs: number;
  validatedMs: number;
  startRss: number;
  peakRss: number;
  endRss: number;
  webviewHeap?: number;
  domNodes: number;
  groupRows: number;
}

async function measure(api: SvcExtensionApi, file: string): Promise<ViewerFigures> {
  const uri = vscode.Uri.file(file);
  (globalThis as { gc?: () => void }).gc?.();
  const startRss = process.memoryUsage().rss;
  let peakRss = startRss;
  const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  try {
    const opened = new Promise<ViewerSession>((resolve) => {
      const sub = api.viewer.onDidOpen((s) => {
        if (s.uri.toString() === uri.toString()) {
          sub.dispose();
          resolve(s);
        }
      });
    });
    const t0 = performance.now();
    await vscode.commands.executeCommand('vscode.openWith', uri, 'svc.trajectoryViewer');
    const session = await opened;
    const painted = await new Promise<NonNullable<ViewerSession['lastRendered']>>((resolve) => {
      const done = (r: ViewerSession['lastRendered']) => r && r.trajectory !== undefined && resolve(r);
      done(session.lastRendered);
      session.onDidRender(done);
    });
    await session.whenIndexed();
    const indexedMs = performance.now() - t0;
    // SVC_BENCH_VIEWER_PAINT_ONLY: the first paint and the index only (repeated runs of a big file).
    if (!process.env.SVC_BENCH_VIEWER_PAINT_ONLY) {
      while (session.validating || session.lastRendered === undefined) await new Promise((r) => setTimeout(r, 20));
      // Validation starts once indexing is done: wait until it has run.
      await new Promise((r) => setTimeout(r, 50));
      while (session.validating) await new Promise((r) => setTimeout(r, 20));
    }
    const validatedMs = performance.now() - t0;
    const endRss = process.memoryUsage().rss;
    const bytes = (await vscode.workspace.fs.stat(uri)).size;
    return {
      file,
      bytes,
      groups: session.index!.groups,
      firstPaintMs: painted.at - t0,
      readyMs: (session.readyAt ?? painted.at) - t0,
      documentMs: painted.sinceLoadMs,
      scriptStartMs: painted.scriptStartMs,
      indexedMs,
      validatedMs,
      startRss,
      peakRss,
      endRss,
      webviewHeap: painted.heapBytes,
      domNodes: painted.domNodes,
      groupRows: painted.groupRows,
    };
  } finally {
    clearInterval(timer);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Let the closed webview go before the next one is measured.
    await new Promise((r) => setTimeout(r, 1500));
  }
}

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension<Exports>('svc.svc-vscode')!;
  const api = await (await ext.activate()).getTestApi!().core();
  const files = (process.env.SVC_BENCH_VIEWER_FILES ?? '').split(',').filter(Boolean);
  const out: ViewerFigures[] = [];
  for (const f of files) out.push(await measure(api, f));
  console.log(`BENCH_VIEWER ${JSON.stringify(out)}`);
}
