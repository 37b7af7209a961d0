import * as http from 'node:http';
import * as net from 'node:net';

/** A loopback HTTP CONNECT proxy for tests: counts the tunnels it opens. */
export async function startConnectProxy(): Promise<{ url: string; tunnels: () => number; close: () => void }> {
  let tunnels = 0;
  const proxy = http.createServer();
  proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    tunnels++;
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host!, () => {
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
    close: () => {
      proxy.close();
      proxy.closeAllConnections();
    },
  };
}
