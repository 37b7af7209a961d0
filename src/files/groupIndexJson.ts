/**
 * The JSON pass of the viewer's group index (groupIndex.ts): one streaming bracket matcher over the
 * bytes that finds each group's byte range and lines, kept lenient so groups past a syntax error
 * still show (validation reports the error). No `vscode` import.
 */
import { asGroup } from '../viewer/model';
import type { ByteSource } from './bytes';

const LF = 0x0a;
const CR = 0x0d;

/** What the pass fills: the index (TrajectoryIndex). */
export interface JsonIndexTarget {
  readonly source: ByteSource;
  indexedBytes: number;
  shapeError: string | undefined;
  split: string | undefined;
  addGroup(s: number, e: number, line: number, endLine: number, lineStart: number, text: string, parsed?: unknown, lineStartOverride?: number): void;
  addGroupFromSource(s: number, e: number, line: number, endLine: number, lineStart: number): Promise<void>;
  lineStartOf(offset: number): Promise<number>;
}

/** Indexes the JSON document of `ix.source` from byte `from` (after a byte order mark). */
export async function buildJsonIndex(ix: JsonIndexTarget, from: number, chunkBytes: number, signal: AbortSignal | undefined, progress: () => Promise<void>): Promise<void> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let lineNo = 1;
  let lineStart = from;
  let top: 'object' | 'array' | 'other' | undefined;
  let topStart = -1;
  let topStartLine = 1;
  let topEnd = -1;
  // Keys and values of the top-level object.
  let expectKey = false;
  let keyBytes: number[] | undefined;
  let key: string | undefined;
  let splitBytes: number[] | undefined;
  let sawGroups = false;
  // Depth of the containers that hold groups as their items.
  let groupsDepth = -1;
  let groupStart = -1;
  let groupLine = 0;
  let groupLineStart = 0;
  const pending: { s: number; e: number; line: number; endLine: number; lineStart: number }[] = [];
  let offset = from;
  while (offset < ix.source.size) {
    signal?.throwIfAborted();
    const buf = await ix.source.read(offset, offset + chunkBytes);
    if (buf.length === 0) break;
    for (let i = 0; i < buf.length; i++) {
      const c = buf[i]!;
      const at = offset + i;
      if (inString) {
        if (keyBytes && !escaped && c !== 0x22 && keyBytes.length < 64) keyBytes.push(c);
        if (splitBytes && !(c === 0x22 && !escaped) && splitBytes.length < 4096) splitBytes.push(c);
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) {
          inString = false;
          if (keyBytes) {
            key = Buffer.from(keyBytes).toString('utf8');
            keyBytes = undefined;
          }
          if (splitBytes) {
            try {
              const v: unknown = JSON.parse(`"${Buffer.from(splitBytes).toString('utf8')}"`);
              if (typeof v === 'string') ix.split = v;
            } catch {
              // Not a string the viewer can show; validation reports it.
            }
            splitBytes = undefined;
          }
        }
        continue;
      }
      if (c === LF) {
        lineNo++;
        lineStart = at + 1;
        continue;
      }
      if (c === 0x20 || c === 0x09 || c === CR) continue;
      if (top === undefined) {
        top = c === 0x7b ? 'object' : c === 0x5b ? 'array' : 'other';
        topStart = at;
        topStartLine = lineNo;
        if (top === 'array') groupsDepth = 1;
        if (top === 'other') break;
      }
      if (c === 0x22) {
        inString = true;
        if (top === 'object' && depth === 1 && expectKey) keyBytes = [];
        else if (top === 'object' && depth === 1 && key === 'split') splitBytes = [];
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (depth === groupsDepth && c === 0x7b) {
          groupStart = at;
          groupLine = lineNo;
          groupLineStart = lineStart;
        }
        if (top === 'object' && depth === 1 && key === 'trajectory_groups' && c === 0x5b) {
          groupsDepth = 2;
          sawGroups = true;
        }
        depth++;
        if (depth === 1 && top === 'object') expectKey = true;
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === groupsDepth && c === 0x7d && groupStart >= 0) {
          pending.push({ s: groupStart, e: at + 1, line: groupLine, endLine: lineNo, lineStart: groupLineStart });
          groupStart = -1;
        }
        if (top === 'object' && depth === 1 && groupsDepth === 2 && c === 0x5d) groupsDepth = -1;
        if (depth === 0) topEnd = at + 1;
        continue;
      }
      if (top === 'object' && depth === 1) {
        if (c === 0x2c) {
          expectKey = true;
          key = undefined;
        } else if (c === 0x3a) expectKey = false;
      }
    }
    offset += buf.length;
    ix.indexedBytes = offset;
    // Groups are parsed once their bytes are known, in order.
    for (const g of pending.splice(0)) await ix.addGroupFromSource(g.s, g.e, g.line, g.endLine, g.lineStart);
    await progress();
    if (top === 'other') break;
  }
  if (top === undefined) ix.shapeError = 'The file is empty';
  else if (top === 'other') ix.shapeError = 'Not a trajectory file: expected {"trajectory_groups": [...]}, an array of groups or one group {"trajectories": [...]}';
  else if (topEnd < 0) ix.shapeError = 'The JSON document is incomplete (it ends before its last bracket)';
  else if (top === 'object' && !sawGroups) {
    // One group (or one bare trajectory): the whole document.
    const text = (await ix.source.read(topStart, topEnd)).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Reported below as not a group.
    }
    if (asGroup(value)) ix.addGroup(topStart, topEnd, topStartLine, lineNo, topStart - 0, text, value, await ix.lineStartOf(topStart));
    else ix.shapeError = 'Not a trajectory file: expected {"trajectory_groups": [...]}, an array of groups or one group {"trajectories": [...]}';
  }
}
