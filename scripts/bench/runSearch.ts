// One run search in a fresh process, for the bench's run search rows (scripts/bench/run.ts): the
// search of src/search/runSearch.ts over every step file of a run, then the same search again in
// the same process (memory and disk caches); or `again`, the same search in a fresh process over
// the disk cache the first one wrote (a restart: only the disk cache); or the baseline, which
// decodes the same columns of each step file with the same reader (src/files/artParquet.ts's
// readArtGroups, group_json + trajectory_json) and runs the same regular expression over each
// group's text. Prints one JSON line: times (wall and CPU), hits, RSS at idle and peak.
//   tsx scripts/bench/runSearch.ts <run folder> <search|again|baseline> <regex> [disk cache folder]
// The disk cache has the extension's default budget (diskCache.ts); without a folder, none.
import { openArtParquet, readArtGroups, groupText } from '../../src/files';
import { runStepFiles, searchRun } from '../../src/search/runSearch';
import { defaultSearchCache } from '../../src/search/searchCache';

async function main(): Promise<void> {
  const [dir, mode, pattern, cacheDir] = process.argv.slice(2) as [string, string, string, string | undefined];
  const files = await runStepFiles(dir);
  const startRss = process.memoryUsage().rss;
  const t0 = performance.now();
  let first: number | undefined;
  let hits = 0;
  if (mode === 'baseline') {
    const cpuStart = process.cpuUsage();
    const re = new RegExp(pattern, 'giu');
    for (const f of files) {
      const { file } = await openArtParquet(f.file);
      try {
        for await (const g of readArtGroups(file)) {
          if ('fault' in g) throw g.fault;
          const text = groupText(g);
          re.lastIndex = 0;
          if (re.test(text)) {
            first ??= performance.now() - t0;
            re.lastIndex = 0;
            hits += text.match(re)?.length ?? 0;
          }
        }
      } finally {
        await file.close();
      }
    }
    const totalMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpuStart);
    console.log(JSON.stringify({ files: files.length, firstMs: first, totalMs, cpuMs: (cpu.user + cpu.system) / 1000, hits, startRss, peakRss: process.resourceUsage().maxRSS * 1024 }));
    return;
  }
  defaultSearchCache.useDisk(cacheDir);
  const cpu0 = process.cpuUsage();
  const s = await searchRun(files, { query: pattern, regex: true }, { onHit: () => void (hits++, (first ??= performance.now() - t0)) });
  const totalMs = performance.now() - t0;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const cpu1 = process.cpuUsage();
  if (mode === 'again') {
    console.log(JSON.stringify({ files: files.length, firstMs: first, totalMs, cpuMs: (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000, hits, fromDisk: s.fromDisk, startRss, peakRss }));
    return;
  }
  const t1 = performance.now();
  let again = 0;
  let secondFirst: number | undefined;
  const s2 = await searchRun(files, { query: pattern, regex: true }, { onHit: () => void (again++, (secondFirst ??= performance.now() - t1)) });
  const secondMs = performance.now() - t1;
  const cpu2 = process.cpuUsage();
  // CPU time too: on a shared machine the wall time of either search moves with the others' load.
  const cpuMs = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user - a.user + b.system - a.system) / 1000;
  console.log(JSON.stringify({ files: files.length, firstMs: first, totalMs, hits, groups: s.groups, startRss, peakRss, firstCpuMs: cpuMs(cpu0, cpu1), secondMs, secondCpuMs: cpuMs(cpu1, cpu2), secondFirstMs: secondFirst, secondHits: again, cached: s2.cached, fromDisk: s2.fromDisk, cacheBytes: (await defaultSearchCache.disk?.usage())?.bytes, peakRssAfterSecond: process.resourceUsage().maxRSS * 1024 }));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
