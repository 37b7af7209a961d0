import type { IncomingMessage } from 'node:http';
import { familyError, HttpError, unprocessable, type Family } from './errors';

/** 413: the body was over the limit; the connection is closed after the answer. */
export class BodyTooLarge extends HttpError {
  constructor(family: Family) {
    super(413, family === 'trace' ? { reason: 'Request too large' } : { detail: 'Request too large' }, {
      connection: 'close',
    });
  }
}

/**
 * Reads the request body, refusing more than `maxBytes`. Past the limit it stops buffering and
 * discards the rest while the 413 goes out, so the client is not reset mid-upload before it can
 * read the answer (the socket is closed once the answer is sent).
 */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  family: Family,
  onBytes: (n: number) => void,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.reject(new BodyTooLarge(family));
  }
  if (req.destroyed) return Promise.reject(new Error('request aborted by the client'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      onBytes(received);
      if (tooLarge) return;
      if (received > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
        reject(new BodyTooLarge(family));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!tooLarge) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
    // A client that disconnects mid-upload may end the request without 'end' or 'error'.
    req.on('close', () => {
      if (!req.complete) reject(new Error('request aborted by the client'));
    });
  });
}

/** Reads and discards a body (faults that answer without processing still consume the upload). */
export function drainBody(req: IncomingMessage, onBytes: (n: number) => void): Promise<void> {
  if (req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      onBytes(received);
    });
    req.on('end', resolve);
    req.on('error', () => resolve());
    req.on('close', resolve);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks the media type and parses the body as JSON. Trace endpoints answer 400 `{reason}`,
 * the log endpoint 422 in FastAPI's shape.
 */
export function parseJsonBody(req: IncomingMessage, body: Buffer, family: Family): unknown {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    if (family === 'trace') throw familyError('trace', 400, 'Content-Type must be application/json');
    throw unprocessable([
      { path: [], type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' },
    ]);
  }
  if (body.length === 0) {
    if (family === 'trace') throw familyError('trace', 400, 'Request body is required');
    throw unprocessable([{ path: [], type: 'missing', msg: 'Field required' }]);
  }
  try {
    return JSON.parse(utf8.decode(body));
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    if (family === 'trace') throw familyError('trace', 400, `Request body is not valid JSON: ${why}`);
    throw unprocessable([{ path: [], type: 'json_invalid', msg: `JSON decode error: ${why}` }]);
  }
}
