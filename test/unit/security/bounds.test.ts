// Issue 19, item 10: a misbehaving server cannot exhaust memory (threads stream, dashboard pages).
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceClient } from '../../../src/api';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_PAGE_LIMITS, PageGuard } from '../../../src/dashboard/shared/pages';
import { TOO_DEEP } from '../../../src/files/problems';
import { validateTrajectoryFile } from '../../../src/files';
import { MemoryBytes, TrajectoryIndex } from '../../../src/files/groupIndex';
import { groupDetail, trajectoryView } from '../../../src/viewer/views';

describe('issue 19: promises under attack', () => {
  describe('hostile input', () => {
    it('10. a threads stream that answers "limit 2" with 200,000 rows yields 2 and is closed', async () => {
      let written = 0;
      let closedEarly = false;
      const row = (i: number) => `${JSON.stringify({ thread_id: `t${i}`, turn_count: 1, start_time: '2024-01-01T00:00:00Z', last_updated: '2024-01-01T00:00:00Z' })}\n`;
      const server = http.createServer((req, res) => {
        req.resume();
        const send = async () => {
          res.writeHead(200, { 'content-type': 'application/jsonl' });
          res.on('close', () => (closedEarly = written < 200_000));
          for (let i = 0; i < 200_000 && !res.destroyed; i += 1000) {
            let chunk = '';
            for (let j = i; j < i + 1000; j++) chunk += row(j);
            written = i + 1000;
            if (!res.write(chunk)) {
              await new Promise<void>((r) => {
                const done = () => (res.off('drain', done), res.off('close', done), r());
                res.on('drain', done).on('close', done);
              });
            }
          }
          res.end();
        };
        req.on('end', () => {
          send().catch(() => undefined);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const client = createServiceClient({ traceBaseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: async () => ({ username: 'api', password: 'k' }), env: {} });
      try {
        const rows = [];
        for await (const r of client.threads.query({ project_id: 'a/b', limit: 2 })) rows.push(r);
        assert.deepEqual(rows.map((r) => r.thread_id), ['t0', 't1']);
        await new Promise((r) => setTimeout(r, 100));
        console.log(`      [figure] rows kept: ${rows.length}; rows the server wrote before the stream closed: ${written}`);
        assert.ok(closedEarly, 'the client closed the stream before the server finished');
      } finally {
        await client.close();
        server.closeAllConnections();
        server.close();
      }
    });

    it('10. the dashboard stops with a clear message: a page over its size, a repeated cursor, too many pages or rows', () => {
      const g = new PageGuard('m', { pageSize: 100, maxPages: 3, maxRows: 250 });
      assert.match(g.checkPage(101)!, /sent 101 checkpoints of "m" for a page of 100/);
      const cycle = new PageGuard('m');
      assert.equal(cycle.checkNext('a', 100), undefined);
      assert.equal(cycle.checkNext('b', 200), undefined);
      assert.match(cycle.checkNext('a', 300)!, /repeat the cursor "a"/);
      const endless = new PageGuard('m', { pageSize: 100, maxPages: 3, maxRows: 10_000 });
      let stop: string | undefined;
      let pages = 0;
      while (!stop) {
        endless.checkPage(100);
        pages++;
        stop = endless.checkNext(`c${pages}`, pages * 100);
      }
      assert.equal(pages, 3);
      assert.match(stop, /still say has_more after 3 pages/);
      const rows = new PageGuard('m', { pageSize: 100, maxPages: 100, maxRows: 250 });
      rows.checkPage(100);
      assert.match(rows.checkNext('x', 250)!, /holds 250 checkpoints, its limit/);
      assert.ok(DEFAULT_PAGE_LIMITS.maxPages * DEFAULT_PAGE_LIMITS.pageSize <= DEFAULT_PAGE_LIMITS.maxRows);
    });
      it('11. deeply nested JSON in the viewer shows the validation message, not "Maximum call stack size exceeded"', async () => {
      const deep = '['.repeat(50_000) + ']'.repeat(50_000);
      const text = `${JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'hi' }], reward: 1, metadata: { x: 'X' } }] }).replace('"X"', deep)}\n`;
      const value = JSON.parse(text) as { trajectories: unknown[] };
      const detail = groupDetail(value, { line: 1 } as never, [{ line: 1, column: 1, message: `x ${TOO_DEEP}`, severity: 'error' }] as never);
      const view = trajectoryView(value.trajectories[0], 0, 0);
      assert.match(JSON.stringify([detail, view]), /not shown: this value is nested deeper than 512 levels/);
      // Reveal: the position of an item inside the group does not recurse either.
      const index = new TrajectoryIndex(MemoryBytes.fromText(text), 'jsonl');
      await index.build();
      assert.deepEqual(await index.positionOf(0, ['trajectories', 0, 'metadata']), { line: 1, column: 1 });
      // And the validation names the place.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-deep-'));
      try {
        fs.writeFileSync(path.join(dir, 'deep.jsonl'), text);
        const summary = await validateTrajectoryFile(path.join(dir, 'deep.jsonl'));
        assert.match(summary.problems.map((p) => `${p.line}: ${p.message}`).join('\n'), /^1: .*is nested deeper than 512 levels/m);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
