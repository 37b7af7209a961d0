// The baseline of the Parquet upload figures: the same reader (src/files/parquet.ts) decoding the
// same file in one pass, each group framed as the client's dump, POSTed raw in bodies of ≤ 8 MiB.
// What the upload adds on top of it (validation's parse of every group, the second read, the
// client) is the ratio the bench prints.
import { groupText, openArtParquet, readArtGroups } from '../../src/files';

const BODY_LIMIT = 8 * 1024 * 1024;

/** Decodes `file` and hands `post` each request body; returns the bytes of group JSON. */
export async function decodeAndPost(file: string, post: (body: string) => Promise<void>): Promise<number> {
  const { file: pf } = await openArtParquet(file);
  let batch: string[] = [];
  let size = 0;
  let total = 0;
  const flush = async () => {
    await post(`{"split":"train","trajectory_groups":[${batch.join(',')}]}`);
    batch = [];
    size = 0;
  };
  try {
    for await (const g of readArtGroups(pf)) {
      if ('fault' in g) throw g.fault;
      const text = groupText(g);
      total += Buffer.byteLength(text);
      if (batch.length && size + text.length > BODY_LIMIT - 64) await flush();
      batch.push(text);
      size += text.length + 1;
    }
    if (batch.length) await flush();
  } finally {
    await pf.close();
  }
  return total;
}
