// The baselines of the Parquet upload figures. Both read the same four columns of the same file in
// one pass (group_index, trajectory_index, group_json, trajectory_json: what the upload reads),
// each group framed as the client's dump (groupText), POSTed raw in bodies of ≤ 8 MiB:
// - duckDecodeAndPost: DuckDB (native, one thread) decoding the file, each chunk's values
//   materialised as JavaScript strings: the limit a native reader sets;
// - decodeAndPost: our own reader (src/files/parquet.ts) decoding it once: what the upload adds on
//   top of its own reader (validation's parse of every group, the second read, the client).
import { groupText, openArtParquet, readArtGroups } from '../../src/files';

const BODY_LIMIT = 8 * 1024 * 1024;

/** Frames group texts into bodies of ≤ 8 MiB and hands each to `post`; returns the bytes of group JSON. */
function framer(post: (body: string) => Promise<void>) {
  let batch: string[] = [];
  let size = 0;
  let total = 0;
  const flush = async () => {
    await post(`{"split":"train","trajectory_groups":[${batch.join(',')}]}`);
    batch = [];
    size = 0;
  };
  return {
    add: async (text: string) => {
      total += Buffer.byteLength(text);
      if (batch.length && size + text.length > BODY_LIMIT - 64) await flush();
      batch.push(text);
      size += text.length + 1;
    },
    end: async () => {
      if (batch.length) await flush();
      return total;
    },
  };
}

/** Decodes `file` with our reader and hands `post` each request body; returns the bytes of group JSON. */
export async function decodeAndPost(file: string, post: (body: string) => Promise<void>): Promise<number> {
  const { file: pf } = await openArtParquet(file);
  const out = framer(post);
  try {
    for await (const g of readArtGroups(pf)) {
      if ('fault' in g) throw g.fault;
      await out.add(groupText(g));
    }
    return await out.end();
  } finally {
    await pf.close();
  }
}

/**
 * Decodes `file` with DuckDB (one thread, streamed chunk by chunk, the file's row order) and hands
 * `post` each request body; returns the bytes of group JSON. The rows of a group are consecutive in
 * an ART step file; a row with no trajectory_index is a group without trajectories.
 */
export async function duckDecodeAndPost(file: string, post: (body: string) => Promise<void>): Promise<number> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await instance.connect();
  const out = framer(post);
  try {
    const result = await con.stream(`SELECT group_index, trajectory_index, group_json, trajectory_json FROM read_parquet('${file.replace(/'/g, "''")}')`);
    let group: bigint | number | undefined;
    let groupJson = '';
    let trajectories: string[] = [];
    const emit = async () => {
      if (group !== undefined) await out.add(groupText({ groupJson, trajectories }));
    };
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      const [gi, ti, gj, tj] = chunk.getColumns() as [(bigint | null)[], (bigint | null)[], (string | null)[], (string | null)[]];
      for (let r = 0; r < chunk.rowCount; r++) {
        if (gi[r] !== group) {
          await emit();
          group = gi[r] ?? undefined;
          groupJson = gj[r] ?? '{}';
          trajectories = [];
        }
        if (ti[r] !== null && tj[r] !== null) trajectories.push(tj[r]!);
      }
    }
    await emit();
    return await out.end();
  } finally {
    con.closeSync();
    instance.closeSync();
  }
}
