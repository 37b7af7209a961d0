/**
 * The certificates the client trusts, and what a TLS failure means for the user.
 *
 * Node trusts its own bundled roots, plus NODE_EXTRA_CA_CERTS when that was set before the process
 * started. A company that inspects TLS installs its root certificate in the operating system's store,
 * which VS Code's own networking reads (`http.systemCertificates`) but a bundled undici does not. So
 * the client builds its trust list itself: Node's roots, the system store where Node can read it,
 * and NODE_EXTRA_CA_CERTS read again (an explicit `ca` replaces Node's defaults, extras included).
 */
import * as fs from 'node:fs';
import * as tls from 'node:tls';

export interface TrustOptions {
  /** Add the operating system's certificates (VS Code's `http.systemCertificates`). Default true. */
  systemCertificates?: boolean;
  /** Where the system CA bundle may be; the first readable one is used. Default: LINUX_CA_BUNDLES. */
  systemBundles?: readonly string[];
}

/** The CA bundle of each Linux family, in the order OpenSSL-based tools look for them. */
export const LINUX_CA_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt', // Debian, Ubuntu, Arch, Gentoo
  '/etc/pki/tls/certs/ca-bundle.crt', // Fedora, RHEL
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', // RHEL, CentOS
  '/etc/ssl/ca-bundle.pem', // openSUSE
  '/etc/ssl/cert.pem', // Alpine
] as const;

export interface TrustStore {
  /** PEM certificates for the `ca` option: Node's roots first. */
  ca: string[];
  /** One TLS context for every connection (parsing a few hundred certificates per connection is slow). */
  secureContext: tls.SecureContext;
  /** Where the certificates beyond Node's roots came from, for the log. */
  sources: string[];
  /** Files that were named but could not be read, for the log. */
  problems: string[];
}

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function pemsIn(text: string): string[] {
  return text.match(PEM) ?? [];
}

/** Node 22.15+ reads the system store itself (macOS keychain, Windows store, OpenSSL's files). */
function nodeSystemCertificates(): string[] | undefined {
  const get = (tls as unknown as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  if (typeof get !== 'function') return undefined;
  try {
    return get('system');
  } catch {
    return undefined;
  }
}

/** Stores already built, by what they were built from (files by path and modification time). */
const built = new Map<string, TrustStore | undefined>();

function stamp(file: string): string {
  try {
    const s = fs.statSync(file);
    return `${file}@${s.mtimeMs}:${s.size}`;
  } catch {
    return `${file}@none`;
  }
}

/**
 * The trust list, or undefined when Node's defaults are all there is (nothing to add). Reads small
 * files synchronously: it runs when the client is built, not per request. Clients built from the
 * same files share one store.
 */
export function loadTrustStore(options: TrustOptions = {}, env: NodeJS.ProcessEnv = process.env): TrustStore | undefined {
  const system = options.systemCertificates ?? true;
  const files = [...(system ? (options.systemBundles ?? LINUX_CA_BUNDLES) : []), ...(env.NODE_EXTRA_CA_CERTS ? [env.NODE_EXTRA_CA_CERTS] : [])];
  const key = JSON.stringify([system, !!options.systemBundles, files.map(stamp)]);
  if (!built.has(key)) {
    if (built.size > 16) built.clear();
    built.set(key, buildTrustStore(options, env));
  }
  return built.get(key);
}

function buildTrustStore(options: TrustOptions, env: NodeJS.ProcessEnv): TrustStore | undefined {
  const extra: string[] = [];
  const sources: string[] = [];
  const problems: string[] = [];
  if (options.systemCertificates ?? true) {
    const fromNode = options.systemBundles ? undefined : nodeSystemCertificates();
    if (fromNode?.length) {
      extra.push(...fromNode);
      sources.push(`the system store (${fromNode.length} certificates)`);
    } else if (options.systemBundles || process.platform === 'linux') {
      for (const file of options.systemBundles ?? LINUX_CA_BUNDLES) {
        let text: string;
        try {
          text = fs.readFileSync(file, 'utf8');
        } catch {
          continue;
        }
        const pems = pemsIn(text);
        if (!pems.length) continue;
        extra.push(...pems);
        sources.push(`${file} (${pems.length} certificates)`);
        break;
      }
    }
  }
  const extraFile = env.NODE_EXTRA_CA_CERTS;
  if (extraFile) {
    try {
      const pems = pemsIn(fs.readFileSync(extraFile, 'utf8'));
      if (pems.length) {
        extra.push(...pems);
        sources.push(`NODE_EXTRA_CA_CERTS ${extraFile} (${pems.length} certificates)`);
      } else {
        problems.push(`NODE_EXTRA_CA_CERTS ${extraFile} holds no PEM certificate`);
      }
    } catch (e) {
      problems.push(`NODE_EXTRA_CA_CERTS ${extraFile} could not be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  }
  if (!extra.length && !problems.length) return undefined;
  const ca = [...new Set([...tls.rootCertificates, ...extra])];
  return { ca, secureContext: tls.createSecureContext({ ca }), sources, problems };
}

const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
]);
const EXPIRED = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

const TRUST_FIX =
  'If your network inspects TLS, trust its root certificate: install it in the system store and keep http.systemCertificates on, ' +
  'or point NODE_EXTRA_CA_CERTS at its PEM file and restart VS Code.';

/** Whether a Node/undici error code is a certificate check that failed. */
export function isTlsCertificateCode(code: string | undefined): boolean {
  return !!code && (UNTRUSTED.has(code) || EXPIRED.has(code) || code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'CERT_REVOKED');
}

/** Which certificate check failed for `host`, and what to set, in one sentence each. */
export function describeTlsFailure(code: string, host: string): string {
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN') {
    return `TLS: the certificate of ${host} is signed by a certificate nobody trusts here (self-signed, ${code}). ${TRUST_FIX}`;
  }
  if (UNTRUSTED.has(code)) {
    return `TLS: the certificate of ${host} is not issued by a trusted authority (${code}). ${TRUST_FIX}`;
  }
  if (EXPIRED.has(code)) {
    return `TLS: the certificate of ${host} is outside its validity dates (${code}). Check this computer's clock; otherwise the service's certificate must be renewed.`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `TLS: the certificate of ${host} is for another host name (${code}). Check the host in svc.baseUrl / svc.trainingBaseUrl.`;
  }
  if (code === 'CERT_REVOKED') return `TLS: the certificate of ${host} was revoked (${code}).`;
  return `TLS: the connection to ${host} failed its certificate check (${code}). ${TRUST_FIX}`;
}
