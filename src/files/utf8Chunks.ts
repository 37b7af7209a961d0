/**
 * A file's bytes, chunk by chunk, as text for a scanner (jsonScan.ts): a character split between
 * chunks is held back until it is whole, a byte order mark is dropped, the text stops before the
 * first byte that is not UTF-8 (decoded, it would be U+FFFD), and each text knows the byte offset of
 * its first character. No `vscode` import.
 */
import { StringDecoder } from 'node:string_decoder';
import { firstInvalidUtf8, incompleteTail } from './lines';

export class Utf8Chunks {
  private readonly decoder = new StringDecoder('utf8');
  /** The bytes of a character the last chunk began and did not finish (the decoder holds them too). */
  private tail: Uint8Array = new Uint8Array(0);
  private first = true;
  /** Bytes written so far. */
  bytesRead = 0;
  /** The byte offset of the last text's first character. */
  textByte = 0;
  /** Where the last text was cut, before a byte that is not UTF-8; -1 when it was not. */
  invalidAt = -1;

  /** The text of the characters that `raw` finishes. */
  write(raw: Uint8Array): string {
    this.textByte = this.bytesRead - this.tail.length;
    this.bytesRead += raw.length;
    let text = this.decoder.write(raw);
    let bomSkipped = false;
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) {
        text = text.slice(1);
        bomSkipped = true;
        this.textByte += 3;
      }
    }
    // U+FFFD in the text: from the file's own (valid) bytes, or in place of invalid ones. Only
    // then are the bytes checked.
    this.invalidAt = -1;
    const tail = this.tail;
    if (text.includes('\uFFFD')) {
      const whole = tail.length ? Buffer.concat([tail, raw]) : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      const body = whole.subarray(0, whole.length - incompleteTail(whole));
      const at = firstInvalidUtf8(body);
      if (at >= 0) {
        this.invalidAt = body.toString('utf8', 0, at).length - (bomSkipped && at >= 3 ? 1 : 0);
        text = text.slice(0, this.invalidAt);
      }
    }
    // A character is at most 4 bytes: with 3 or more new bytes, any unfinished one begins in them.
    const joined = raw.length >= 3 || !tail.length ? raw : Buffer.concat([tail, raw]);
    const cut = incompleteTail(joined);
    this.tail = cut ? new Uint8Array(joined.subarray(joined.length - cut)) : new Uint8Array(0);
    return text;
  }

  /** What the decoder still holds at the end of the file: an unfinished character, or ''. */
  end(): string {
    return this.decoder.end();
  }
}
