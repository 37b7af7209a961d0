import assert from 'node:assert/strict';
import { isLoopbackHost, proxyFor, resolveProxy } from '../../../src/api/proxy';

describe('api/proxy', () => {
  it('prefers explicit settings over the environment', () => {
    const p = resolveProxy({ url: 'http://explicit:3128', noProxy: 'internal.corp' }, { HTTPS_PROXY: 'http://env:1' });
    assert.equal(proxyFor(new URL('https://api.example.com'), p), 'http://explicit:3128');
    assert.equal(proxyFor(new URL('https://svc.internal.corp'), p), undefined);
  });

  it('reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY from the environment', () => {
    const p = resolveProxy(undefined, { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://h:1', NO_PROXY: 'localhost,.example.org' });
    assert.equal(proxyFor(new URL('https://api.example.com'), p), 'http://s:1');
    assert.equal(proxyFor(new URL('http://api.example.com'), p), 'http://h:1');
    assert.equal(proxyFor(new URL('https://x.example.org'), p), undefined);
    assert.equal(proxyFor(new URL('http://localhost:8787'), p), undefined);
  });

  it('falls back to HTTP_PROXY for https and honours * and host:port entries', () => {
    const p = resolveProxy(undefined, { http_proxy: 'http://h:1', no_proxy: 'a.com:8443' });
    assert.equal(proxyFor(new URL('https://a.com'), p), 'http://h:1');
    assert.equal(proxyFor(new URL('https://a.com:8443'), p), undefined);
    assert.equal(proxyFor(new URL('https://a.com'), resolveProxy(undefined, { HTTP_PROXY: 'http://h:1', NO_PROXY: '*' })), undefined);
  });

  it('uses no proxy when none is configured', () => {
    assert.equal(proxyFor(new URL('https://a.com'), resolveProxy(undefined, {})), undefined);
  });

  it('recognises loopback hosts only', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1']) assert.ok(isLoopbackHost(h), h);
    for (const h of ['10.0.0.1', 'example.com', '128.0.0.1', 'localhost.example.com']) assert.ok(!isLoopbackHost(h), h);
  });
});
