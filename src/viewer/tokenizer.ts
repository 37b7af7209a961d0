/**
 * Text for token ids the file gives without it: the model's `tokenizer.json`, from the setting
 * `svc.tokenizerPath` (a file, or a folder holding one), else the Hugging Face cache
 * (`$HF_HUB_CACHE`, `$HF_HOME/hub`, `~/.cache/huggingface/hub`) under `models--<org>--<name>/snapshots/*`
 * for the turn's model. Decoded by bpeDecode.ts; loaded decoders are kept per path and mtime.
 * No `vscode` import.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { decoderFromText, MAX_TOKENIZER_BYTES, type TokenDecoder } from './bpeDecode';
import type { MessageView, TokenStrip, TrajectoryView } from './protocol';

async function isFile(p: string): Promise<number | undefined> {
  try {
    const st = await fs.stat(p);
    return st.isFile() ? st.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}

/** The Hugging Face hub caches to look in, in the order huggingface_hub uses. */
export function hubCaches(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  if (env.HF_HUB_CACHE) out.push(env.HF_HUB_CACHE);
  if (env.HF_HOME) out.push(path.join(env.HF_HOME, 'hub'));
  out.push(path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'huggingface', 'hub'));
  return [...new Set(out)];
}

/**
 * The tokenizer.json for a model: the setting's (a file, or `tokenizer.json` in the folder it
 * names) wins; else the newest snapshot in a hub cache holding one. A model name is `org/name`;
 * anything that could leave the cache folder is not looked up.
 */
export async function findTokenizer(setting: string | undefined, model: string | undefined, caches = hubCaches()): Promise<string | undefined> {
  if (setting) {
    const p = path.resolve(setting.replace(/^~(?=$|[\\/])/, os.homedir()));
    if (await isFile(p)) return p;
    const inside = path.join(p, 'tokenizer.json');
    if (await isFile(inside)) return inside;
  }
  const parts = model?.split('/');
  if (!parts || parts.length !== 2 || parts.some((x) => !/^[\w.-]+$/.test(x) || x === '.' || x === '..')) return undefined;
  for (const cache of caches) {
    const snaps = path.join(cache, `models--${parts[0]}--${parts[1]}`, 'snapshots');
    let names: string[];
    try {
      names = await fs.readdir(snaps);
    } catch {
      continue;
    }
    let best: { p: string; t: number } | undefined;
    for (const n of names) {
      const p = path.join(snaps, n, 'tokenizer.json');
      const t = await isFile(p);
      if (t !== undefined && (!best || t > best.t)) best = { p, t };
    }
    if (best) return best.p;
  }
  return undefined;
}

const loaded = new Map<string, { mtime: number; decoder: Promise<TokenDecoder> }>();

/** The decoder of a tokenizer.json (cached by path and mtime); rejects with a readable error. */
export async function loadDecoder(file: string): Promise<TokenDecoder> {
  const st = await fs.stat(file);
  if (st.size > MAX_TOKENIZER_BYTES) throw new Error(`${file} is larger than ${MAX_TOKENIZER_BYTES / 1024 / 1024} MiB`);
  const hit = loaded.get(file);
  if (hit && hit.mtime === st.mtimeMs) return hit.decoder;
  const decoder = fs.readFile(file, 'utf8').then((text) => decoderFromText(text, file));
  loaded.set(file, { mtime: st.mtimeMs, decoder });
  decoder.catch(() => loaded.delete(file));
  return decoder;
}

const HOW = 'set svc.tokenizerPath to the model\'s tokenizer.json (or its folder), or put it in the Hugging Face cache (`huggingface-cli download <org>/<name> tokenizer.json`)';

/** Fills in the text of one strip from a decoder. */
export function decodeStrip(strip: TokenStrip, decoder: TokenDecoder, file: string): void {
  if (strip.ids && !strip.texts) {
    strip.texts = decoder.tokens(strip.ids).map((t) => t ?? null);
    strip.decodedWith = file;
    const unknown = strip.texts.filter((t) => t === null).length;
    if (unknown) strip.note = `${unknown} token ids are not in ${file}: is it this model's tokenizer?`;
  }
  if (strip.top) {
    for (const alts of strip.top) {
      for (const a of alts) {
        const m = /^#(\d+)$/.exec(a[0]);
        const t = m ? decoder.tokens([Number(m[1])])[0] : undefined;
        if (t !== undefined) a[0] = t;
      }
    }
  }
}

function strips(v: TrajectoryView): TokenStrip[] {
  const all: MessageView[] = [...v.messages, ...v.histories.flatMap((h) => h.messages)];
  return all.flatMap((m) => (m.tokens ? [m.tokens] : []));
}

/** Gives every strip of a trajectory that has ids but no text its text, or a note saying how to get it. */
export async function decodeStrips(v: TrajectoryView, setting: string | undefined, caches?: string[]): Promise<void> {
  // Looked up once per model, however many turns it has.
  const found = new Map<string | undefined, Promise<string | undefined>>();
  for (const s of strips(v)) {
    const needs = (s.ids && !s.texts) || s.top?.some((alts) => alts.some((a) => a[0].startsWith('#')));
    if (!needs) continue;
    if (!found.has(s.model)) found.set(s.model, findTokenizer(setting, s.model, caches));
    const file = await found.get(s.model);
    if (!file) {
      if (!s.texts) s.note = `The file gives token ids without text, and no tokenizer.json was found${s.model ? ` for ${s.model}` : ''}: ${HOW}.`;
      continue;
    }
    try {
      decodeStrip(s, await loadDecoder(file), file);
    } catch (e) {
      if (!s.texts) s.note = `Cannot read ${file}: ${(e as Error).message}. Showing positions and logprobs.`;
    }
  }
}
