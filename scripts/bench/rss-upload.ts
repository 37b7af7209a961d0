// Child process of the bench: validates and uploads one trajectory file with the extension's own
// code (reader + uploader + client), sampling this process's RSS; prints one JSON line.
import { createServiceClient } from '../../src/api';
import { readTrajectoryGroups, validateTrajectoryFile } from '../../src/trajectories/reader';
// Peak RSS comes from the OS (getrusage maxrss), which also sees synchronous stretches a timer misses.
import { uploadGroups } from '../../src/trajectories/upload';
import { BENCH_KEY } from './keys';

async function main() {
  const [url, file] = process.argv.slice(2) as [string, string];
  const startRss = process.memoryUsage().rss;
  let peak = startRss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const client = createServiceClient({ traceBaseUrl: url, credentials: async () => ({ username: 'api', password: BENCH_KEY, accessToken: BENCH_KEY }), env: {} });
  const t0 = performance.now();
  const summary = await validateTrajectoryFile(file);
  const tv = performance.now();
  const res = await uploadGroups(client, readTrajectoryGroups(file, { trusted: true, groupTrajectories: summary.groupTrajectories }), { modelId: 'bench', split: 'train', members: summary.members });
  const t1 = performance.now();
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  await client.close();
  console.log(JSON.stringify({ file, bytes: summary.fileBytes, groups: summary.groups, problems: summary.problems.length, validateMs: tv - t0, uploadMs: t1 - tv, totalMs: t1 - t0, status: res.outcome.status, startRss, peakRss: peak }));
}
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
