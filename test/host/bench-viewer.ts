// `npm run bench` only (not a test suite): opens trajectory files in the trajectory viewer inside
// the extension host and measures the time until the webview reports the first group and
// trajectory on screen, the host's RSS while the file is indexed and validated, and the webview's
// JS heap. Prints one `BENCH_VIEWER {json}` line. Files come from SVC_BENCH_VIEWER_FILES
// (comma-separated), each measured in a fresh tab, one after the other; with
// SVC_BENCH_VIEWER_PAINT_ONLY set, a file's validation is not waited for.
// With SVC_BENCH_TOKENS_FILE instead (scripts/bench/tokens.ts): the token strip's first paint of a
// 32k-token turn (group 1) against a 1k-token one (group 2), and the 32k turn shown as text, each
// from `select` to the webview's report of it on screen, alternating; prints `BENCH_TOKENS {json}`.
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

/** What the token strip figure reports (scripts/bench/tokens.ts reads it). */
export interface TokenFigures {
  /** select → the strip's first chunk on screen, per run; the first run also loads the tokenizer.json. */
  long: number[];
  short: number[];
  /** The 32k turn shown as text (select with tokens: false). */
  text: number[];
  longTokens: number;
  shortTokens: number;
  /** Token elements in the DOM at the 32k strip's first paint, and the DOM's size then. */
  nodes: number;
  domNodes: number;
  /** The strip's text, decoded with the tokenizer.json (its first characters). */
  decoded: string;
}

type Report = NonNullable<ViewerSession['lastRendered']>;

/** select(), then the first report after it that `done` accepts; its time since the select. */
async function selectAndWait(session: ViewerSession, group: number, tokens: boolean, done: (r: Report) => boolean): Promise<{ ms: number; r: Report }> {
  let sub: vscode.Disposable | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const t0 = performance.now();
    const seen = new Promise<Report>((resolve, reject) => {
      sub = session.onDidRender((r) => r.at > t0 && r.group === group && done(r) && resolve(r));
      timer = setTimeout(() => reject(new Error(`no render of group ${group + 1} (tokens ${tokens}) within 60 s`)), 60_000);
    });
    session.select(group, 0, 1, tokens);
    const r = await seen;
    return { ms: r.at - t0, r };
  } finally {
    sub?.dispose();
    clearTimeout(timer);
  }
}

async function tokenStrip(api: SvcExtensionApi, file: string): Promise<TokenFigures> {
  const runs = Number(process.env.SVC_BENCH_TOKENS_RUNS) || 5;
  await vscode.workspace.getConfiguration('svc').update('tokenizerPath', process.env.SVC_BENCH_TOKENIZER, vscode.ConfigurationTarget.Global);
  const uri = vscode.Uri.file(file);
  const opened = new Promise<ViewerSession>((resolve) => {
    const sub = api.viewer.onDidOpen((s) => s.uri.toString() === uri.toString() && (sub.dispose(), resolve(s)));
  });
  await vscode.commands.executeCommand('vscode.openWith', uri, 'svc.trajectoryViewer');
  const session = await opened;
  while (session.lastRendered?.trajectory === undefined) await new Promise((r) => setTimeout(r, 20));
  await session.whenIndexed();
  const strip = (n: number) => (r: Report) => r.strips?.some((s) => s.tokens === n && s.nodes > 0) ?? false;
  const out: TokenFigures = { long: [], short: [], text: [], longTokens: 0, shortTokens: 0, nodes: 0, domNodes: 0, decoded: '' };
  const sizes = (await Promise.all([0, 1].map(async (g) => ((await session.index!.readGroup(g)).value as { trajectories: { messages_and_choices: { token_ids?: unknown[] }[] }[] }).trajectories[0]!.messages_and_choices[1]!.token_ids!.length)));
  [out.longTokens, out.shortTokens] = sizes as [number, number];
  for (let i = 0; i < runs; i++) {
    out.short.push((await selectAndWait(session, 1, true, strip(out.shortTokens))).ms);
    const long = await selectAndWait(session, 0, true, strip(out.longTokens));
    out.long.push(long.ms);
    const s = long.r.strips!.find((x) => x.tokens === out.longTokens)!;
    out.nodes = s.nodes;
    out.domNodes = long.r.domNodes;
    out.decoded = s.text.slice(0, 80);
    // The same 32k turn as text: from the other group, so the trajectory is fetched again.
    await selectAndWait(session, 1, true, strip(out.shortTokens));
    out.text.push((await selectAndWait(session, 0, false, (r) => r.trajectory === 0 && r.bubbles.length > 1 && !(r.strips ?? []).some((x) => x.nodes > 0))).ms);
  }
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await vscode.workspace.getConfiguration('svc').update('tokenizerPath', undefined, vscode.ConfigurationTarget.Global);
  return out;
}

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension<Exports>('svc.svc-vscode')!;
  const api = await (await ext.activate()).getTestApi!().core();
  if (process.env.SVC_BENCH_TOKENS_FILE) {
    console.log(`BENCH_TOKENS ${JSON.stringify(await tokenStrip(api, process.env.SVC_BENCH_TOKENS_FILE))}`);
    return;
  }
  const files = (process.env.SVC_BENCH_VIEWER_FILES ?? '').split(',').filter(Boolean);
  const out: ViewerFigures[] = [];
  for (const f of files) out.push(await measure(api, f));
  console.log(`BENCH_VIEWER ${JSON.stringify(out)}`);
}
