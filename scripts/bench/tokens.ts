// The token strip (issue 30), for `npm run bench` (also alone: `npx tsx scripts/bench/tokens.ts`):
// - the extension side of a 32k-token turn in plain Node: the trajectory message the viewer posts
//   (trajectoryView + decodeStrips with a 151k-token tokenizer.json + JSON.stringify, which is what
//   the webview message costs to send), against the same turn as plain text (no logprobs, no ids);
// - svc's own decoder (src/viewer/bpeDecode.ts): loading that tokenizer.json and the text of 32,768
//   ids, against JSON.parse of the same file (the floor of any tokenizer.json reader);
// - the files for the host figure (test/host/bench-viewer.ts, SVC_BENCH_TOKENS_FILE): a 32k-token
//   turn and a 1k-token turn of the same shape, as two groups of one file.
// The tokenizer.json and the ids come from scripts/bench/tokenizerData.py (Python's json).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CACHE } from './data';
import type { ViewerRow } from './viewer';

/** Tokens in the long turn: the 32k. */
export const LONG_TOKENS = 32_768;
/** The host figure's baseline turn. */
export const SHORT_TOKENS = 1_024;
const MODEL = 'bench-org/bench-bpe';

/** A 151,643-token byte-level BPE tokenizer.json and 32,768 of its ids (cached). */
export function benchTokenizer(): { file: string; ids: number[]; text: string; vocab: number } {
  fs.mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, 'tokenizer-151k.json');
  if (!fs.existsSync(`${file}.ids.json`)) {
    const r = spawnSync('python3', [path.join(__dirname, 'tokenizerData.py'), file, 'synthetic'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tokenizerData.py failed (exit ${r.status}): ${r.stderr.slice(-1000)}`);
  }
  const { ids, text, vocab } = JSON.parse(fs.readFileSync(`${file}.ids.json`, 'utf8')) as { ids: number[]; text: string; vocab: number };
  return { file, ids, text, vocab };
}

/**
 * A trajectory whose assistant choice has `n` tokens: as ART 2026 writes it (token_ids,
 * compact_logprobs, compact_top_logprobs with one alternative, the request's model), or, `plain`,
 * the same choice with its text only.
 */
export function longTurn(ids: number[], text: string, n: number, plain = false): Record<string, unknown> {
  const tokenIds = ids.slice(0, n);
  const lps = tokenIds.map((_, i) => -((i * 37) % 100) / 20);
  const choice: Record<string, unknown> = {
    finish_reason: 'stop',
    index: 0,
    logprobs: null,
    message: { role: 'assistant', content: n === ids.length ? text : text.slice(0, Math.round((text.length * n) / ids.length)), refusal: null, tool_calls: null },
  };
  if (!plain) {
    Object.assign(choice, {
      prompt_token_ids: [1, 2, 3],
      token_ids: tokenIds,
      compact_logprobs: lps,
      compact_top_logprobs: { token_ids: tokenIds.map((id, i) => [id, ids[(i + 1) % ids.length]!]), logprobs: lps.map((lp) => [lp, lp - 1.5]) },
      logprobs_mode: 'processed_logprobs',
      model: MODEL,
    });
  }
  return { messages_and_choices: [{ role: 'user', content: 'Write a long answer.' }, choice], reward: 1, metrics: {}, metadata: {} };
}

/** The host figure's file: group 1 the 32k-token turn, group 2 the 1k-token one (cached). */
export function tokenStripFile(): { file: string; tokenizer: string } {
  const tok = benchTokenizer();
  const file = path.join(CACHE, 'token-strip-32k.jsonl');
  if (!fs.existsSync(file)) {
    const lines = [LONG_TOKENS, SHORT_TOKENS].map((n) => JSON.stringify({ trajectories: [longTurn(tok.ids, tok.text, n)] }));
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
  }
  return { file, tokenizer: tok.file };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const range = (xs: number[]) => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))} ms`;

/** The plain-Node rows: `runs` alternating runs each. */
export async function tokenBench(runs: number): Promise<ViewerRow[]> {
  const { trajectoryView } = await import('../../src/viewer/views');
  const { decodeStrips } = await import('../../src/viewer/tokenizer');
  const { decoderFromText } = await import('../../src/viewer/bpeDecode');
  const tok = benchTokenizer();
  const strip = longTurn(tok.ids, tok.text, LONG_TOKENS);
  const plain = longTurn(tok.ids, tok.text, LONG_TOKENS, true);
  // The trajectory as the session gets it: parsed from the group's text each time (readGroup).
  const stripText = JSON.stringify(strip);
  const plainText = JSON.stringify(plain);
  let stripBytes = 0;
  let plainBytes = 0;
  let texts = 0;
  const cpu: { strip: number[]; plain: number[] } = { strip: [], plain: [] };
  const message = async (text: string, withStrip: boolean) => {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const view = trajectoryView(JSON.parse(text), 0, 0);
    await decodeStrips(view, tok.file, []);
    const body = JSON.stringify({ type: 'trajectory', version: 1, group: 0, index: 0, view });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    cpu[withStrip ? 'strip' : 'plain'].push((c.user + c.system) / 1000);
    if (withStrip) {
      stripBytes = body.length;
      texts = view.messages[1]?.tokens?.texts?.filter((x) => x !== null).length ?? 0;
    } else plainBytes = body.length;
    return ms;
  };
  const s: number[] = [];
  const p: number[] = [];
  for (let i = 0; i < runs; i++) {
    s.push(await message(stripText, true));
    p.push(await message(plainText, false));
  }
  if (texts !== LONG_TOKENS) throw new Error(`token strip: ${texts} of ${LONG_TOKENS} tokens decoded`);
  const rows: ViewerRow[] = [];
  const warm = s.slice(1);
  rows.push({
    what: `token strip, extension side: the trajectory message of a ${LONG_TOKENS.toLocaleString('en-US')}-token turn (its view, ids decoded with a ${tok.vocab.toLocaleString('en-US')}-token tokenizer.json, serialized)`,
    value: `${fmt(median(warm))} ms, CPU ${fmt(median(cpu.strip.slice(1)))} ms (${fmt(stripBytes / 2 ** 20)} MiB message); the first, loading the tokenizer.json: ${fmt(s[0]!)} ms`,
    baselineName: 'the same turn as plain text (no logprobs, no ids): its view, serialized',
    baseline: `${fmt(median(p))} ms, CPU ${fmt(median(cpu.plain))} ms (${fmt(plainBytes / 1024, 0)} KiB message)`,
    ratio: median(warm) / median(p),
    note: `(medians of ${runs} alternating runs, the strip's without its first, which loads the tokenizer; strip ${range(warm)}, text ${range(p)}; plain Node: jsdom is not installed, so the webview's first chunk is the host figure's)`,
  });
  const tokText = fs.readFileSync(tok.file, 'utf8');
  const load: number[] = [];
  const parse: number[] = [];
  const decode: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    const d = decoderFromText(tokText, tok.file);
    const t1 = performance.now();
    const out = d.tokens(tok.ids);
    decode.push(performance.now() - t1);
    load.push(t1 - t0);
    if (out.length !== LONG_TOKENS || out.some((x) => x === undefined)) throw new Error('decoder: ids not decoded');
    t0 = performance.now();
    JSON.parse(tokText);
    parse.push(performance.now() - t0);
  }
  const total = load.map((l, i) => l + decode[i]!);
  rows.push({
    what: `svc's decoder (bpeDecode.ts): load a ${fmt(tokText.length / 2 ** 20)} MiB tokenizer.json (${tok.vocab.toLocaleString('en-US')} tokens, byte-level BPE) and decode ${LONG_TOKENS.toLocaleString('en-US')} ids to per-token text`,
    value: `${fmt(median(total))} ms (load ${fmt(median(load))} ms, decode ${fmt(median(decode))} ms)`,
    baselineName: 'JSON.parse of the same tokenizer.json',
    baseline: `${fmt(median(parse))} ms`,
    ratio: median(total) / median(parse),
    note: `(medians of ${runs} alternating runs; load ${range(load)}, decode ${range(decode)}, JSON.parse ${range(parse)}; the tokenizer.json written by scripts/bench/tokenizerData.py)`,
  });
  return rows;
}

/**
 * The host figure: in a fresh code-server window (test/host/bench-viewer.ts with
 * SVC_BENCH_TOKENS_FILE), select → the strip's first chunk on screen for the 32k-token turn
 * against the 1k-token one, `runs` alternating; the tests' build must be current.
 */
export function tokenStripHostBench(runs: number): ViewerRow[] {
  const { file, tokenizer } = tokenStripFile();
  const root = path.resolve(__dirname, '..', '..');
  const env = ['--env', `SVC_BENCH_TOKENS_FILE=${file}`, '--env', `SVC_BENCH_TOKENIZER=${tokenizer}`, '--env', `SVC_BENCH_TOKENS_RUNS=${runs}`];
  const host = spawnSync(process.execPath, ['scripts/host/run-tests.js', '--no-build', '--entry', 'out/test/host/bench-viewer.js', ...env], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = /BENCH_TOKENS (\{.*\})/.exec(host.stdout)?.[1];
  if (!line) throw new Error(`token strip bench failed (exit ${host.status}):\n${host.stdout.slice(-3000)}\n${host.stderr.slice(-2000)}`);
  const f = JSON.parse(line) as import('../../test/host/bench-viewer').TokenFigures;
  // The first 32k run also loads the tokenizer.json: the medians leave each series' first run out.
  const long = median(f.long.slice(1));
  const short = median(f.short.slice(1));
  const text = median(f.text.slice(1));
  const ratios = f.long.slice(1).map((l, i) => l / f.short[i + 1]!);
  return [
    {
      what: `host: token strip first paint, a ${f.longTokens.toLocaleString('en-US')}-token turn (ids decoded with a 151k-token tokenizer.json)`,
      value: `${fmt(long, 0)} ms (${f.nodes} token elements at first, DOM ${f.domNodes.toLocaleString('en-US')} nodes)`,
      baselineName: `the same viewer's strip of a ${f.shortTokens.toLocaleString('en-US')}-token turn of the same shape`,
      baseline: `${fmt(short, 0)} ms`,
      ratio: long / short,
      note: `(select to the webview's report of the strip on screen; medians of ${f.long.length - 1} alternating runs after a first, which loaded the tokenizer.json in ${fmt(f.long[0]!, 0)} ms; per pair ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}×; 32k: ${f.long.map((x) => fmt(x, 0)).join(', ')} ms, 1k: ${f.short.map((x) => fmt(x, 0)).join(', ')} ms; the 32k turn as text: ${fmt(text, 0)} ms (${f.text.map((x) => fmt(x, 0)).join(', ')})${f.decoded ? '' : '; NOT decoded'})`,
    },
  ];
}

if (require.main === module) {
  const i = process.argv.indexOf('--runs');
  const runs = i >= 0 ? Number(process.argv[i + 1]) : 5;
  if (process.argv.includes('--host')) {
    spawnSync(process.execPath, ['esbuild.js', '--tests'], { cwd: path.resolve(__dirname, '..', '..'), stdio: 'ignore' });
    for (const r of tokenStripHostBench(runs)) console.log(`  ${r.what}: ${r.value} | baseline (${r.baselineName}): ${r.baseline} | ratio ${r.ratio.toFixed(2)}× ${r.note}\n| ${r.what} | ${r.value} | ${r.baselineName} | ${r.baseline} | ${r.ratio.toFixed(2)}× (lower is better) |  | ${r.note} |`);
  } else tokenBench(runs).then(
    (rows) => {
      for (const r of rows) console.log(`  ${r.what}: ${r.value} | baseline (${r.baselineName}): ${r.baseline} | ratio ${r.ratio.toFixed(2)}× ${r.note}`);
        // The same rows as docs/performance.md's table has them.
        for (const r of rows) console.log(`| ${r.what} | ${r.value} | ${r.baselineName} | ${r.baseline} | ${r.ratio.toFixed(2)}× (lower is better) |  | ${r.note} |`);
    },
    (e: Error) => {
      console.error(e);
      process.exit(1);
    },
  );
}
