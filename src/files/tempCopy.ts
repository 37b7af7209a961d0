import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/**
 * Runs `check` on a private temporary copy of unsaved text, then removes the copy. The copy keeps
 * the document's file name, so it is read as the same format and its problems' lines and columns
 * are the editor's. The one way the editor side validates text that is not on disk (the viewer and
 * the live Problems entries).
 */
export async function withTempCopy<T>(name: string, content: string | Uint8Array, check: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-check-'));
  try {
    const file = path.join(dir, path.basename(name));
    await writeFile(file, content);
    return await check(file);
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
