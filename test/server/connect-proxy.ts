import * as http from 'node:http';
import * as net from 'node:net';

export interface ConnectProxyOptions {
  /** Where a CONNECT target host really is (tests name remote-looking hosts; all live on loopback). */
  resolve?: (host: string) => string;
  /** Require this Proxy-Authorization (Basic user:password); others get 407. */
  auth?: { username: string; password: string };
}

export interface ConnectProxy {
  url: string;
  /** Tunnels opened. */
  tunnels: () => number;
  /** Every CONNECT target asked for (`host:port`), refused ones too. */
  targets: () => string[];
  /** Every Proxy-Authorization header received. */
  authorizations: () => string[];
  close: () => void;
}

/** A loopback HTTP CONNECT proxy for tests: counts the tunnels it opens and what it was asked. */
export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  let tunnels = 0;
  const targets: string[] = [];
  const authorizations: string[] = [];
  const expected = options.auth ? `Basic ${Buffer.from(`${options.auth.username}:${options.auth.password}`).toString('base64')}` : undefined;
  const proxy = http.createServer((_req, res) => {
    // A plain (non-CONNECT) proxy request: not something the client should ever send.
    res.writeHead(405).end();
  });
  proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    targets.push(req.url ?? '');
    const auth = req.headers['proxy-authorization'];
    if (auth) authorizations.push(auth);
    if (expected && auth !== expected) {
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    tunnels++;
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), options.resolve ? options.resolve(host!) : host!, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    tunnels: () => tunnels,
    targets: () => [...targets],
    authorizations: () => [...authorizations],
    close: () => {
      proxy.close();
      proxy.closeAllConnections();
    },
  };
}
