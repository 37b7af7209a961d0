/**
 * What the streaming JSON scanner (jsonScan.ts) yields, takes and throws. No `vscode` import.
 */
import { InputError } from '../api/errors';

/** What an invalid byte is told (src/files/problems.ts says the same of a line). */
export const INVALID_UTF8_HERE = 'The file is not valid UTF-8 here: it would be sent altered (U+FFFD in place of the invalid bytes), so it is not sent; save the file as UTF-8';

export interface ScannedValue {
  /** The value's source text, exactly as in the file. */
  text: string;
  line: number;
  column: number;
  /** The line the value ends on. */
  endLine: number;
  /** How deeply arrays and objects nest in it (0 for a string or scalar). */
  maxDepth: number;
  /** Byte offsets of its first byte and just past its last (with ScanOptions.byteOffsets only). */
  byteStart?: number;
  byteEnd?: number;
}

export type ScanEvent =
  /** An item of the top-level array, or of the streamed member's array. */
  | { kind: 'item'; index: number; value: ScannedValue }
  /** A member of the top-level object (other than the streamed one, when it is an array). */
  | { kind: 'member'; key: string; value: ScannedValue }
  /** The top-level value is neither an array nor an object. */
  | { kind: 'scalar'; value: ScannedValue }
  /** The top-level array or object opens (at `line`, `column`; `byteStart` with ScanOptions.byteOffsets). */
  | { kind: 'root'; container: 'array' | 'object'; line: number; column: number; byteStart?: number }
  /** The top-level array or object closes (its last byte is at `line`, `column`; `byteEnd` is past it). */
  | { kind: 'end'; line: number; column: number; byteEnd?: number }
  /**
   * With ScanOptions.lenient only: a fault of the outer structure that the scan stepped over (a
   * missing or doubled comma between items, a trailing comma, content after the document).
   */
  | { kind: 'fault'; message: string; line: number; column: number }
  /** The streamed member's array opens; its items follow. */
  | { kind: 'stream'; key: string; line: number; column: number };

export interface ScanOptions {
  signal?: AbortSignal;
  /** Object member whose array value is streamed item by item (e.g. `trajectory_groups`). */
  streamMember: string;
  /** Largest captured value, in UTF-16 code units. */
  maxValueChars: number;
  /** Bytes read at a time (tests use tiny ones to put chunk boundaries everywhere). Default 256 KiB. */
  chunkBytes?: number;
  /** Give captured values, the root's start and its end their byte offsets (the viewer reads groups again by them). */
  byteOffsets?: boolean;
  /**
   * Step over the faults between items that leave every item intact (reported as `fault` events)
   * instead of throwing: the viewer shows the groups past a missing comma, and validation says where.
   */
  lenient?: boolean;
  /** Only these members of the top-level object are captured (the rest are matched, not kept). Default: all. */
  members?: ReadonlySet<string>;
  /** Awaited after each chunk's values are yielded, with the bytes read so far. */
  afterChunk?: (bytesRead: number) => Promise<void> | void;
}

/** The outer structure is not valid JSON, or a value is too large to capture. */
export class JsonScanError extends InputError {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
    /** Set when a value was too large, not malformed. */
    readonly tooLarge = false,
    /** Set when the file ends inside the document (cut short). */
    readonly truncated = false,
  ) {
    super(message, { line, column });
  }
}

/** Bytes that are not UTF-8: refused at their place (decoded, they would be sent as U+FFFD). */
export class InvalidUtf8Error extends JsonScanError {}
