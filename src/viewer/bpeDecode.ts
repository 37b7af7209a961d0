/**
 * A minimal decoder for Hugging Face `tokenizer.json` files: token id → the token's text. Decoding
 * needs only the vocabulary (`model.vocab` and `added_tokens`) and the decoder kind, never the
 * merges, so this is a few dozen lines with no dependency instead of a tokenizer library (measured
 * against them in docs/performance.md: scripts/bench/tokenizer-libs.mjs). Handles the GPT-2 byte-level
 * mapping (`ByteLevel` decoder: Llama 3, Qwen, GPT-2) and sentencepiece-style `▁` with `<0xNN>` byte
 * fallback (`Metaspace`, or a `Replace` of `▁`: Llama 2, Mistral). No `vscode` import.
 */

import { isObject } from '../api/json';

/** Caps: a hostile or mistaken file is refused, not read. */
export const MAX_TOKENIZER_BYTES = 64 * 1024 * 1024;
export const MAX_VOCAB = 1_000_000;

export type DecoderKind = 'byte-level' | 'metaspace' | 'plain';

export interface TokenDecoder {
  kind: DecoderKind;
  vocabSize: number;
  /** The text of each token id (undefined for an id not in the vocabulary). */
  tokens(ids: readonly number[]): (string | undefined)[];
}

let byteOf: Map<string, number> | undefined;

/** GPT-2's bytes_to_unicode, reversed: the printable character standing for each byte. */
function byteLevelMap(): Map<string, number> {
  if (byteOf) return byteOf;
  const bs: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  byteOf = new Map(bs.map((b, i) => [String.fromCodePoint(cs[i]!), b]));
  return byteOf;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as text; a token that is part of a character shows its bytes (`<e4 bd>`). */
function bytesText(bytes: number[]): string {
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    return `<${bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ')}>`;
  }
}

const BYTE_FALLBACK = /^<0x([0-9A-Fa-f]{2})>$/;

/** The text of one vocabulary entry under the decoder. */
export function tokenText(piece: string, kind: DecoderKind, special: boolean): string {
  if (special) return piece;
  if (kind === 'byte-level') {
    const map = byteLevelMap();
    const bytes: number[] = [];
    for (const ch of piece) {
      const b = map.get(ch);
      if (b === undefined) return piece; // not a byte-level piece: shown as written
      bytes.push(b);
    }
    return bytesText(bytes);
  }
  if (kind === 'metaspace') {
    const m = BYTE_FALLBACK.exec(piece);
    if (m) return bytesText([parseInt(m[1]!, 16)]);
    return piece.replace(/▁/g, ' ');
  }
  return piece;
}

function decoderKind(tok: Record<string, unknown>): DecoderKind {
  const d = JSON.stringify(tok.decoder ?? null);
  if (d.includes('"ByteLevel"')) return 'byte-level';
  if (d.includes('"Metaspace"') || d.includes('▁')) return 'metaspace';
  // No decoder given: a byte-level pre-tokenizer still means byte-level pieces.
  return JSON.stringify(tok.pre_tokenizer ?? null).includes('"ByteLevel"') ? 'byte-level' : 'plain';
}

/** A decoder from the parsed JSON of a `tokenizer.json`; throws a readable error for anything else. */
export function decoderFromJson(tok: unknown, name = 'tokenizer.json'): TokenDecoder {
  if (typeof tok !== 'object' || tok === null || Array.isArray(tok)) throw new Error(`${name} is not a tokenizer.json (not an object)`);
  const t = tok as Record<string, unknown>;
  const model = t.model as Record<string, unknown> | undefined;
  const vocab = model && typeof model === 'object' ? model.vocab : undefined;
  const pieces: string[] = [];
  const special = new Set<number>();
  const put = (id: unknown, piece: unknown, field: string): void => {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= MAX_VOCAB) throw new Error(`${name}: ${field} has an id that is not an integer in [0, ${MAX_VOCAB})`);
    if (typeof piece !== 'string') throw new Error(`${name}: ${field} has a token that is not a string (id ${id})`);
    pieces[id] = piece;
  };
  if (Array.isArray(vocab)) {
    // Unigram: [[piece, score], ...], the id is the position.
    if (vocab.length > MAX_VOCAB) throw new Error(`${name}: more than ${MAX_VOCAB} tokens in model.vocab`);
    vocab.forEach((e, i) => put(i, Array.isArray(e) ? e[0] : undefined, 'model.vocab'));
  } else if (vocab && typeof vocab === 'object') {
    const all = Object.entries(vocab);
    if (all.length > MAX_VOCAB) throw new Error(`${name}: more than ${MAX_VOCAB} tokens in model.vocab`);
    for (const [k, id] of all) put(id, k, 'model.vocab');
  } else throw new Error(`${name} has no model.vocab`);
  if (Array.isArray(t.added_tokens)) {
    for (const a of t.added_tokens as unknown[]) {
      if (!isObject(a)) throw new Error(`${name}: added_tokens has an entry that is not an object`);
      put(a.id, a.content, 'added_tokens');
      special.add(a.id as number);
    }
  }
  const kind = decoderKind(t);
  const cache = new Map<number, string>();
  return {
    kind,
    vocabSize: pieces.length,
    tokens: (ids) =>
      ids.map((id) => {
        const piece = pieces[id];
        if (piece === undefined) return undefined;
        let text = cache.get(id);
        if (text === undefined) cache.set(id, (text = tokenText(piece, kind, special.has(id))));
        return text;
      }),
  };
}

/** A decoder from the text of a `tokenizer.json` (size-capped). */
export function decoderFromText(text: string, name = 'tokenizer.json'): TokenDecoder {
  if (text.length > MAX_TOKENIZER_BYTES) throw new Error(`${name} is larger than ${MAX_TOKENIZER_BYTES / 1024 / 1024} MiB`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`${name} is not valid JSON: ${(e as Error).message}`);
  }
  return decoderFromJson(parsed, name);
}
