// Where requests go on corporate networks: proxies (never for loopback, credentials in the proxy
// URL) and TLS (the system store, NODE_EXTRA_CA_CERTS, and errors that say which check failed).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { createServiceClient, TlsError, type ServiceClientOptions } from '../../../src/api';
import { LOOPBACK_NO_PROXY, proxyFor, resolveProxy } from '../../../src/api/proxy';
import { describeTlsFailure, LINUX_CA_BUNDLES, loadTrustStore } from '../../../src/api/tls';
import { startConnectProxy } from '../../server/connect-proxy';
import { harness, KEY, type Harness } from '../contract/helpers';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('api transport: proxies', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('always keeps localhost, 127.0.0.1 and ::1 in the no-proxy list', () => {
    for (const p of [resolveProxy(undefined, { HTTP_PROXY: 'http://p:1', NO_PROXY: '' }), resolveProxy({ url: 'http://p:1', noProxy: [] }, {})]) {
      for (const host of LOOPBACK_NO_PROXY) assert.ok(p.noProxy.includes(host), host);
      for (const url of ['http://localhost:8787', 'http://127.0.0.1:8787', 'http://[::1]:8787', 'https://127.0.0.5']) {
        assert.equal(proxyFor(new URL(url), p), undefined, url);
      }
      assert.equal(proxyFor(new URL('http://svc.example.com'), p), 'http://p:1');
    }
  });

  it('sends Basic credentials for http://127.0.0.1 straight to the service, never to HTTP_PROXY, even with an empty NO_PROXY', async () => {
    const proxy = await startConnectProxy();
    try {
      h = await harness();
      for (const options of [{ env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '' } }, { env: {}, proxy: { url: proxy.url, noProxy: [] } }]) {
        const client = h.make(options as Partial<ServiceClientOptions>);
        await client.feedback.create({ project_id: 'a/b', svc_ref: 'svc:///a/b/call/1', feedback_type: 't', payload: {} });
      }
      assert.equal(h.server.stats.count('/feedback/create'), 2, 'both requests reached the service');
      assert.deepEqual(proxy.targets(), [], 'the proxy was never asked for a tunnel');
    } finally {
      proxy.close();
    }
  });

  it('sends the credentials of the proxy URL (user:password, percent-encoded, or a user name alone) to the proxy only', async () => {
    for (const [user, password, userinfo] of [
      ['proxy user', 'p@ss:word', 'proxy%20user:p%40ss%3Aword'],
      ['tok3n', '', 'tok3n'],
    ] as const) {
      const proxy = await startConnectProxy({ resolve: () => '127.0.0.1', auth: { username: user, password } });
      try {
        h = await harness();
        h.server.addCheckpoints('m', 1);
        const port = new URL(h.server.url).port;
        const proxyUrl = proxy.url.replace('http://', `http://${userinfo}@`);
        const events: string[] = [];
        for (const options of [{ env: { HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl } }, { env: {}, proxy: { url: proxyUrl } }]) {
          const client = h.make({ ...options, traceBaseUrl: `http://svc.test:${port}`, allowInsecureHttp: true, logger: (e) => events.push(JSON.stringify(e)) });
          assert.equal((await client.models.listCheckpoints('m')).data.length, 1);
        }
        assert.equal(proxy.tunnels(), 2);
        assert.deepEqual(proxy.authorizations(), [basic(user, password), basic(user, password)]);
        // The service sees its own credentials only, never the proxy's.
        assert.equal(h.server.stats.last('/v1/preview/models/m/checkpoints')!.authScheme, 'bearer');
        assert.ok(!events.join('\n').includes(userinfo), 'the proxy credentials are not logged');
      } finally {
        proxy.close();
        await h?.close();
        h = undefined;
      }
    }
  });

  it('says a proxy refused the request when the proxy URL has no credentials and the proxy wants some', async () => {
    const proxy = await startConnectProxy({ resolve: () => '127.0.0.1', auth: { username: 'u', password: 'p' } });
    try {
      h = await harness();
      const client = h.make({ traceBaseUrl: `http://svc.test:${new URL(h.server.url).port}`, allowInsecureHttp: true, env: { HTTP_PROXY: proxy.url } });
      await assert.rejects(client.models.listCheckpoints('m'), /the proxy refused the connection \(407\): it wants credentials; put them in the proxy URL/);
      assert.equal(proxy.targets().length, 1, 'not retried: the proxy answers the same');
      assert.equal(h.server.stats.count(), 0);
    } finally {
      proxy.close();
    }
  });
});

/** A throwaway CA and certificates made with openssl, valid for two days. */
function makeCertificates(dir: string): { ca: string; server: { key: string; cert: string }; wrongName: { key: string; cert: string }; selfSigned: { key: string; cert: string } } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=svc test root');
  const leaf = (name: string, san: string) => {
    fs.writeFileSync(path.join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    run('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
    return { key: fs.readFileSync(path.join(dir, `${name}.key`), 'utf8'), cert: fs.readFileSync(path.join(dir, `${name}.pem`), 'utf8') };
  };
  const server = leaf('server', 'DNS:localhost,IP:127.0.0.1');
  const wrongName = leaf('elsewhere', 'DNS:elsewhere.example');
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1');
  const selfSigned = { key: fs.readFileSync(path.join(dir, 'self.key'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'self.pem'), 'utf8') };
  return { ca: path.join(dir, 'ca.pem'), server, wrongName, selfSigned };
}

describe('api transport: TLS', function () {
  this.timeout(30_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-tls-'));
  let certs: ReturnType<typeof makeCertificates>;
  const servers: https.Server[] = [];
  /** TCP connections the https servers accepted. */
  let handshakeFailures = 0;

  /** An https server that answers every request with an empty checkpoint page. */
  async function serve(identity: { key: string; cert: string }): Promise<string> {
    const server = https.createServer(identity, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [], first_id: '', last_id: '', has_more: false }));
    });
    server.on('connection', () => handshakeFailures++);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const client = (url: string, options: Partial<ServiceClientOptions> = {}) =>
    createServiceClient({
      traceBaseUrl: url,
      credentials: async () => ({ username: 'api', password: KEY, accessToken: KEY }),
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      env: {},
      tls: { systemBundles: [] },
      ...options,
    });

  before(() => {
    certs = makeCertificates(dir);
  });
  after(() => {
    for (const s of servers) s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says which certificate check failed and what to set, and does not retry it', async () => {
    const url = await serve(certs.server);
    handshakeFailures = 0;
    await assert.rejects(client(url).models.listCheckpoints('m'), (e: Error) => {
      assert.ok(e instanceof TlsError, e.constructor.name);
      assert.match(e.message, /TLS: the certificate of 127\.0\.0\.1:\d+ is not issued by a trusted authority \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
      assert.match(e.message, /http\.systemCertificates/);
      assert.match(e.message, /NODE_EXTRA_CA_CERTS/);
      return true;
    });
    assert.equal(handshakeFailures, 1, 'one connection: the same certificate fails the same way, so it is not retried');
  });

  it('names a self-signed certificate, a wrong host name and an expired certificate as such', async () => {
    assert.match(describeTlsFailure('CERT_HAS_EXPIRED', 'svc.example.com'), /svc\.example\.com is outside its validity dates \(CERT_HAS_EXPIRED\)\. Check this computer's clock/);
    await assert.rejects(client(await serve(certs.selfSigned)).models.listCheckpoints('m'), /self-signed, DEPTH_ZERO_SELF_SIGNED_CERT/);
    const extra = path.join(dir, 'ca-only.pem');
    fs.copyFileSync(certs.ca, extra);
    await assert.rejects(
      client(await serve(certs.wrongName), { env: { NODE_EXTRA_CA_CERTS: extra } }).models.listCheckpoints('m'),
      /is for another host name \(ERR_TLS_CERT_ALTNAME_INVALID\)\. Check the host in svc\.baseUrl/,
    );
  });

  it('trusts the certificates in NODE_EXTRA_CA_CERTS', async () => {
    const url = await serve(certs.server);
    const page = await client(url, { env: { NODE_EXTRA_CA_CERTS: certs.ca } }).models.listCheckpoints('m');
    assert.deepEqual(page.data, []);
  });

  it('trusts the system CA bundle with http.systemCertificates on, and not with it off', async () => {
    const url = await serve(certs.server);
    const bundle = path.join(dir, 'system-bundle.crt');
    fs.writeFileSync(bundle, fs.readFileSync(certs.ca, 'utf8'));
    const page = await client(url, { tls: { systemCertificates: true, systemBundles: ['/nonexistent/bundle.crt', bundle] } }).models.listCheckpoints('m');
    assert.deepEqual(page.data, []);
    await assert.rejects(client(url, { tls: { systemCertificates: false, systemBundles: [bundle] } }).models.listCheckpoints('m'), TlsError);
  });

  it('reads the Linux CA bundle by default, and says when NODE_EXTRA_CA_CERTS cannot be read', () => {
    const store = loadTrustStore({}, { NODE_EXTRA_CA_CERTS: path.join(dir, 'missing.pem') });
    const bundle = LINUX_CA_BUNDLES.find((f) => fs.existsSync(f));
    assert.ok(bundle, 'this Linux machine has a CA bundle (Debian: ca-certificates)');
    assert.ok(store, 'a trust store was built');
    // Node 22.15+ reads the system store itself; Node 20 (VS Code 1.100) does not, so the bundle is read.
    const nodeReadsSystem = typeof (tls as { getCACertificates?: unknown }).getCACertificates === 'function';
    assert.ok(store.sources.some((s) => (nodeReadsSystem ? s.startsWith('the system store') : s.startsWith(bundle))), store.sources.join('; '));
    assert.match(store.problems.join('\n'), /NODE_EXTRA_CA_CERTS .*missing\.pem could not be read \(ENOENT\)/);
  });
});
