// Child process of the bench: uploads one trajectory file and prints one JSON line with the
// process's RSS before and at its peak. Two modes, each in a fresh process started the same way:
//   tsx scripts/bench/rss-upload.ts <url> <file>         the extension's own code (the upload job: validate and
//                                                        hash, the repeat check, guard, send, the ledger)
//   tsx scripts/bench/rss-upload.ts <url> <file> --raw   the baseline: the same file streamed and POSTed
//                                                        raw with undici in bodies of up to 8 MiB
//   tsx scripts/bench/rss-upload.ts <url> <file> --decode  a baseline for a Parquet file: our own
//                                                        reader decoding it, the bodies POSTed raw
//   tsx scripts/bench/rss-upload.ts <url> <file> --duckdb  the baseline for a Parquet file: DuckDB
//                                                        decoding the same columns, the bodies POSTed raw
// Peak RSS comes from the OS (getrusage maxrss), which also sees synchronous stretches a timer misses.
import * as fs from 'node:fs';
import { Agent, request } from 'undici';
import { createServiceClient } from '../../src/api';
import { uploadFiles } from '../../src/trajectories/job';
import { MemoryStore, SentUploads } from '../../src/trajectories/sent';
import { BENCH_KEY } from './keys';
import { decodeAndPost, duckDecodeAndPost } from './parquet';

const BODY_LIMIT = 8 * 1024 * 1024;

/**
 * The floor: the same file read as a stream and POSTed in bodies of up to 8 MiB, as it is (the sink
 * reads and discards log bodies), so the process holds one body and undici, and nothing else.
 */
async function raw(url: string, file: string): Promise<{ status: string; bytes: number }> {
  const agent = new Agent();
  let parts: Buffer[] = [];
  let size = 0;
  const post = async () => {
    const r = await request(`${url}/v1/preview/models/bench/log`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
      body: Buffer.concat(parts),
    });
    await r.body.dump();
    if (r.statusCode !== 200) throw new Error(`raw POST ${r.statusCode}`);
    parts = [];
    size = 0;
  };
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    parts.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= BODY_LIMIT) await post();
  }
  if (size) await post();
  await agent.close();
  return { status: 'done', bytes: fs.statSync(file).size };
}

async function main() {
  const [url, file] = process.argv.slice(2) as [string, string];
  const rawMode = process.argv.includes('--raw');
  const decodeMode = process.argv.includes('--decode') ? decodeAndPost : process.argv.includes('--duckdb') ? duckDecodeAndPost : undefined;
  const startRss = process.memoryUsage().rss;
  let peak = startRss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  let out: Record<string, unknown>;
  if (rawMode) {
    out = await raw(url, file);
  } else if (decodeMode) {
    const agent = new Agent();
    await decodeMode(file, async (body) => {
      // A connection per body: a page of a DuckDB file decodes for seconds, and the sink closes idle sockets.
      const r = await request(`${url}/v1/preview/models/bench/log`, { method: 'POST', dispatcher: agent, reset: true, headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' }, body });
      await r.body.dump();
      if (r.statusCode !== 200) throw new Error(`raw POST ${r.statusCode}`);
    });
    await agent.close();
    out = { status: 'done', bytes: fs.statSync(file).size };
  } else {
    const client = createServiceClient({ traceBaseUrl: url, credentials: async () => ({ username: 'api', password: BENCH_KEY, accessToken: BENCH_KEY }), env: {} });
    // The upload job, as every caller runs it (src/trajectories/job.ts).
    const { files, report } = await uploadFiles([file], { modelId: 'bench', split: 'train', client: () => client, sent: new SentUploads(new MemoryStore()) });
    await client.close();
    const summary = files[0]!.summary;
    out = { bytes: summary.fileBytes, groups: summary.groups, problems: summary.problems.length, status: report.status };
  }
  const t1 = performance.now();
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  console.log(JSON.stringify({ file, mode: rawMode ? 'raw' : process.argv.includes('--duckdb') ? 'duckdb' : decodeMode ? 'decode' : 'client', ...out, totalMs: t1 - t0, startRss, peakRss: peak }));
}
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
