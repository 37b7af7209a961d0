import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceClient, ProtocolError, ServerError, type ServiceClient } from '../../../src/api';

/** A server that answers every request with `handler`, to play a hostile or broken service. */
async function hostile(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return {
    url,
    close: () => {
      srv.closeAllConnections();
      return new Promise<void>((r) => srv.close(() => r()));
    },
  };
}

/** Streams `total` bytes of `byte` without end of line, stopping when the client goes away. */
function flood(res: http.ServerResponse, byte: string, total: number, prefix = ''): { sent: () => number } {
  let sent = 0;
  const block = Buffer.alloc(64 * 1024, byte);
  res.write(prefix);
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += block.length;
      if (!res.write(block)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => (sent = Math.min(sent, total)));
  pump();
  return { sent: () => sent };
}

function clientFor(url: string, extra: Partial<Parameters<typeof createServiceClient>[0]> = {}): ServiceClient {
  return createServiceClient({
    traceBaseUrl: url,
    credentials: async () => ({ username: 'api', password: 'k', accessToken: 'k' }),
    retry: { maxAttempts: 1 },
    env: {},
    ...extra,
  });
}

describe('security: a hostile service cannot exhaust memory', () => {
  it('refuses a JSON response larger than maxResponseBytes, after reading only that much', async () => {
    let f: { sent: () => number } | undefined;
    const s = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      f = flood(res, ' ', 512 * 1024 * 1024, '{"data":[');
    });
    const c = clientFor(s.url, { maxResponseBytes: 1024 * 1024 });
    try {
      const before = process.memoryUsage().heapUsed;
      await assert.rejects(c.models.listCheckpoints('m'), (e: unknown) => {
        assert.ok(e instanceof ProtocolError);
        assert.match(e.message, /larger than 1048576 bytes/);
        return true;
      });
      assert.ok(process.memoryUsage().heapUsed - before < 64 * 1024 * 1024, 'the heap did not take the flood');
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(f!.sent() < 64 * 1024 * 1024, `the client stopped reading (server wrote ${f!.sent()} bytes of 512 MiB)`);
    } finally {
      await c.close();
      await s.close();
    }
  });

  it('refuses an endless JSONL line at the line cap', async () => {
    let f: { sent: () => number } | undefined;
    const s = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      f = flood(res, 'x', 512 * 1024 * 1024, '{"thread_id":"');
    });
    const c = clientFor(s.url);
    try {
      await assert.rejects(
        (async () => {
          for await (const _ of c.threads.query({ project_id: 'a/b' })) void _;
        })(),
        (e: unknown) => e instanceof ProtocolError && /longer than the limit of 1048576 bytes/.test(e.message),
      );
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(f!.sent() < 64 * 1024 * 1024, `stopped early (server wrote ${f!.sent()} bytes)`);
    } finally {
      await c.close();
      await s.close();
    }
  });

  it('reads at most 256 KiB of an error body and still reports the status', async () => {
    const s = await hostile((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      flood(res, 'e', 256 * 1024 * 1024, '{"reason":"');
    });
    const c = clientFor(s.url);
    try {
      await assert.rejects(c.models.listCheckpoints('m'), (e: unknown) => e instanceof ServerError && e.status === 500);
    } finally {
      await c.close();
      await s.close();
    }
  });

  it('does not follow redirects to other hosts with the credentials', async () => {
    let sawAuth = false;
    const other = await hostile((req, res) => {
      sawAuth = !!req.headers.authorization;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[],"has_more":false}');
    });
    const s = await hostile((_req, res) => {
      res.writeHead(302, { location: `${other.url}/steal` });
      res.end();
    });
    const c = clientFor(s.url);
    try {
      await assert.rejects(c.models.listCheckpoints('m'), /Unexpected status 302/);
      assert.equal(sawAuth, false);
    } finally {
      await c.close();
      await s.close();
      await other.close();
    }
  });
});
