/**
 * The JSON pass of the viewer's group index (groupIndex.ts): the upload's streaming scanner
 * (jsonScan.ts) over the same ByteSource, with byte offsets, so each group is indexed from the text
 * the scan cut out and read again later by its byte range. Lenient: groups past a missing comma
 * still show (validation reports the fault). No `vscode` import.
 */
import { asGroup } from './model';
import type { ByteSource } from './bytes';
import { scanJson } from './jsonScan';
import { JsonScanError } from './jsonScanEvents';

/** What the pass fills: the index (TrajectoryIndex). */
export interface JsonIndexTarget {
  readonly source: ByteSource;
  indexedBytes: number;
  shapeError: string | undefined;
  split: string | undefined;
  /** A group at bytes `s`..`e`, lines `line`..`endLine`, starting at UTF-16 `column` of its line. */
  addGroup(s: number, e: number, line: number, endLine: number, column: number, text: string, parsed?: unknown): void;
}

const NOT_TRAJECTORIES = 'Not a trajectory file: expected {"trajectory_groups": [...]}, an array of groups or one group {"trajectories": [...]}';
/** The longest string V8 makes: a group longer than this cannot be shown. */
const MAX_GROUP_CHARS = 0x1fffffe8;
/** Of the top-level object, only `split` is kept; `trajectory_groups` is streamed. */
const MEMBERS: ReadonlySet<string> = new Set(['split']);

/** Indexes the JSON document of `ix.source`. */
export async function buildJsonIndex(ix: JsonIndexTarget, chunkBytes: number, signal: AbortSignal | undefined, progress: () => Promise<void>): Promise<void> {
  let root: { container: 'array' | 'object'; line: number; column: number; byteStart?: number } | undefined;
  let end: { line: number; byteEnd?: number } | undefined;
  let streamed = false;
  let scalar = false;
  try {
    const events = scanJson(ix.source, {
      signal,
      streamMember: 'trajectory_groups',
      maxValueChars: MAX_GROUP_CHARS,
      chunkBytes,
      byteOffsets: true,
      lenient: true,
      members: MEMBERS,
      afterChunk: async (bytes) => {
        ix.indexedBytes = bytes;
        await progress();
      },
    });
    for await (const ev of events) {
      if (ev.kind === 'root') root = ev;
      else if (ev.kind === 'stream') streamed = true;
      else if (ev.kind === 'end') end = ev;
      else if (ev.kind === 'scalar') scalar = true;
      else if (ev.kind === 'member' && ev.key === 'split') {
        try {
          const v: unknown = JSON.parse(ev.value.text);
          if (typeof v === 'string') ix.split = v;
        } catch {
          // Not a string the viewer can show; validation reports it.
        }
      } else if (ev.kind === 'item' && ev.value.text.charCodeAt(0) === 0x7b) {
        // Groups are objects; anything else in the list is validation's to report.
        const v = ev.value;
        ix.addGroup(v.byteStart!, v.byteEnd!, v.line, v.endLine, v.column, v.text);
      }
    }
  } catch (e) {
    if (!(e instanceof JsonScanError)) throw e;
    if (!root && !scalar) ix.shapeError = 'The file is empty';
    else if (e.truncated) ix.shapeError = 'The JSON document is incomplete (it ends before its last bracket)';
    else if (e.tooLarge) ix.shapeError = `A group at line ${e.line} is too large to show`;
    else ix.shapeError = `${e.message} (line ${e.line}, column ${e.column}): the groups after it are not shown`;
    return;
  }
  if (scalar) ix.shapeError = NOT_TRAJECTORIES;
  else if (root?.container === 'object' && !streamed && end) {
    // One group (or one bare trajectory): the whole document.
    const text = (await ix.source.read(root.byteStart!, end.byteEnd!)).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Reported below as not a group.
    }
    if (asGroup(value)) ix.addGroup(root.byteStart!, end.byteEnd!, root.line, end.line, root.column, text, value);
    else ix.shapeError = NOT_TRAJECTORIES;
  }
}
