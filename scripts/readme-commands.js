#!/usr/bin/env node
// `.ci/run`: runs every command the docs show, exactly as they show them, on a fresh clone.
//
// The commands are read from README.md, CONTRIBUTING.md, ARCHITECTURE.md and docs/*.md: the lines
// of every ```bash block and the commands in the first column of every table headed "| command | what it does |".
// Each needs an entry in PLAN saying how CI runs it, so the two cannot drift: a command a page shows
// that PLAN does not know fails the run, and so does a PLAN entry no page shows any more. PLAN's order is the order of a new user's first hour, with one rule:
// `npm run package` comes before anything that could create dist-vsix/ (its output folder), so it
// runs on a clone that has none.
//
// Kinds of entries:
//   run      runs to the end; exit 0 passes
//   serve    starts; waits for `ready`; runs `while` (commands, or a check function); then
//            Ctrl-C (SIGINT to its process group) and expects it to stop within 60 s
//   covered  run as part of another command (checked: `npm test` is `npm run test:unit && npm run test:host`)
//   skip     not run in CI, with the reason (printed)
//
//   node scripts/readme-commands.js [--list] [--only <text>]   (--only: entries whose command contains text)
//   (--list also names the pages that show each command)
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { httpStatus } = require('./http-status');

const root = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;

/** The pages whose commands CI runs: the front page, the contributor pages and the reference in docs/. */
function docPages() {
  const docs = fs.existsSync(path.join(root, 'docs')) ? fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`) : [];
  return ['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', ...docs].filter((f) => fs.existsSync(path.join(root, f)));
}

/**
 * The commands a page shows: every line of a ```bash block (a trailing `# comment` dropped), and
 * every `code` in the first column of a table headed `| command | what it does |` (docs/commands.md's
 * `| command | arguments |` table lists VS Code commands, not shell ones).
 */
function pageCommands(text) {
  const commands = [];
  for (const block of text.matchAll(/^```bash\n([\s\S]*?)^```/gm)) {
    for (const line of block[1].split('\n')) {
      const cmd = line.replace(/\s+#.*$/, '').trim();
      if (cmd) commands.push(cmd);
    }
  }
  for (const table of text.matchAll(/^\| *command *\| *what it does *\|\n\|[-| :]+\|\n((?:\|.*\n?)+)/gm)) {
    for (const row of table[1].split('\n')) {
      const first = row.split('|')[1] ?? '';
      for (const m of first.matchAll(/`([^`]+)`/g)) commands.push(m[1].trim());
    }
  }
  return commands;
}

/** Every command the pages show, each once, with the pages that show it. README.md must show the fresh-clone pair. */
function docCommands() {
  const shown = new Map();
  for (const page of docPages()) {
    for (const cmd of pageCommands(fs.readFileSync(path.join(root, page), 'utf8'))) shown.set(cmd, [...(shown.get(cmd) ?? []), page]);
  }
  const readme = pageCommands(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
  for (const cmd of ['npm ci && npm run demo', 'npm ci && npm test']) {
    if (!readme.includes(cmd)) throw new Error(`README.md: no \`${cmd}\` in a \`\`\`bash block (the two commands for a fresh clone)`);
  }
  return shown;
}

const get = (url) => httpStatus(url, 5000);

const PLAN = [
  {
    cmd: 'npm ci && npm run demo',
    kind: 'serve',
    ready: /demo: to start them again later/,
    timeoutMs: 600_000,
    async while(out) {
      const vscodeUrl = /demo: VS Code\s+(http\S+)/.exec(out)?.[1];
      const serviceUrl = /demo: reference service\s+(http\S+)/.exec(out)?.[1];
      if (!vscodeUrl || !serviceUrl) throw new Error('the demo printed no VS Code or service URL');
      for (const name of ['rollouts.jsonl', 'support-agent.trajectories.jsonl', 'rollouts-with-mistakes.jsonl', 'calls.jsonl', 'notes.md']) {
        if (!out.includes(name)) throw new Error(`the demo did not name its sample file ${name}`);
      }
      const [workbench, service] = await Promise.all([get(vscodeUrl), get(`${serviceUrl}/v1/preview/models/demo-model-7b/checkpoints`)]);
      if (workbench !== 200 || service !== 401) throw new Error(`VS Code answered ${workbench}, the service ${service} (expected 200, and 401 without a key)`);
    },
    stopped: /start them again with `npm run demo`/,
  },
  {
    cmd: 'npm run package',
    kind: 'run',
    before() {
      if (fs.existsSync(path.join(root, 'dist-vsix'))) throw new Error('dist-vsix/ exists already: `npm run package` must create it on a fresh clone');
    },
    after() {
      if (!fs.existsSync(path.join(root, 'dist-vsix', 'svc-vscode.vsix'))) throw new Error('no dist-vsix/svc-vscode.vsix');
    },
  },
  { cmd: 'npm run build', kind: 'run' },
  { cmd: 'node dist/mcp.js --help', kind: 'run' },
  { cmd: 'npm run watch', kind: 'serve', ready: /\[watch\] build finished/, timeoutMs: 120_000 },
  { cmd: 'npm run typecheck', kind: 'run' },
  { cmd: 'npm run lint', kind: 'run' },
  {
    cmd: 'npm run serve -- --port 8787 --data test/fixtures/demo.json',
    kind: 'serve',
    ready: /listening on/,
    timeoutMs: 120_000,
    while: ['node scripts/api-example.js --url http://127.0.0.1:8787 --key demo-key'],
  },
  { cmd: 'node scripts/api-example.js --url http://127.0.0.1:8787 --key demo-key', kind: 'covered', by: 'npm run serve -- --port 8787 --data test/fixtures/demo.json' },
  { cmd: 'npm run bench -- --quick', kind: 'run', timeoutMs: 900_000 },
  { cmd: 'npm run bench', kind: 'skip', why: 'the same benchmarks as `npm run bench -- --quick` at 10 times the sizes (1 GiB files): minutes of measuring that asserts nothing' },
  {
    cmd: 'npm run test:desktop',
    kind: process.env.VSCODE_EXECUTABLE_PATH ? 'run' : 'skip',
    why: 'needs a desktop VS Code (internet or VSCODE_EXECUTABLE_PATH), as CONTRIBUTING.md says; the same suites run in code-server under `npm test`',
    timeoutMs: 900_000,
  },
  { cmd: 'npm run test:unit', kind: 'covered', by: 'npm ci && npm test' },
  { cmd: 'npm run test:host', kind: 'covered', by: 'npm ci && npm test' },
  { cmd: 'npm ci && npm test', kind: 'run', timeoutMs: 3_000_000 }, // two hosts: about 25 min on a quiet 2-core machine; room for a loaded one inside CI's 90
];

/** Output of a child, echoed with a prefix and kept for matching. */
function start(cmd) {
  const child = spawn('bash', ['-c', cmd], { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
  const state = { child, out: '', exit: undefined };
  const echo = (stream, d) => {
    const text = d.toString();
    state.out += text;
    stream.write(text.replace(/^(?=.)/gm, '  | '));
  };
  child.stdout.on('data', (d) => echo(process.stdout, d));
  child.stderr.on('data', (d) => echo(process.stderr, d));
  // 'close', not 'exit': done when every process holding the output has gone (npm exits before
  // the demo it ran has finished saying what it stopped).
  state.exited = new Promise((resolve) => child.on('close', (code, signal) => resolve((state.exit = { code, signal }))));
  return state;
}

function waitFor(state, re, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const tick = () => {
      if (re.test(state.out)) return resolve();
      if (state.exit) return reject(new Error(`exited (${state.exit.signal ?? state.exit.code}) before ${what}`));
      if (Date.now() - t0 > timeoutMs) return reject(new Error(`no ${what} after ${timeoutMs / 1000} s`));
      setTimeout(tick, 100);
    };
    tick();
  });
}

async function runToEnd(cmd, timeoutMs = 600_000) {
  const s = start(cmd);
  const timer = setTimeout(() => process.kill(-s.child.pid, 'SIGKILL'), timeoutMs);
  const exit = await s.exited;
  clearTimeout(timer);
  if (exit.code !== 0) throw new Error(`exit ${exit.signal ?? exit.code}`);
}

async function serve(entry) {
  const s = start(entry.cmd);
  try {
    await waitFor(s, entry.ready, entry.timeoutMs ?? 120_000, `its ready line ${entry.ready}`);
    if (typeof entry.while === 'function') await entry.while(s.out);
    else for (const cmd of entry.while ?? []) {
      console.log(`--- while it runs: ${cmd}`);
      await runToEnd(cmd);
    }
  } finally {
    // Ctrl-C, as a user stops it: SIGINT to the whole process group.
    if (!s.exit) process.kill(-s.child.pid, 'SIGINT');
    const timer = setTimeout(() => !s.exit && process.kill(-s.child.pid, 'SIGKILL'), 60_000);
    await s.exited;
    clearTimeout(timer);
  }
  if (s.exit.signal === 'SIGKILL') throw new Error('did not stop within 60 s of Ctrl-C');
  if (entry.stopped && !entry.stopped.test(s.out)) throw new Error(`said nothing matching ${entry.stopped} when stopped`);
}

async function main() {
  const byCommand = docCommands();
  const shown = [...byCommand.keys()];
  const planned = PLAN.map((e) => e.cmd);
  const unknown = shown.filter((c) => !planned.includes(c));
  const stale = planned.filter((c) => !shown.includes(c));
  if (unknown.length || stale.length) {
    if (unknown.length) console.error(`the docs show commands CI does not run: ${unknown.map((c) => `"${c}" (${byCommand.get(c).join(', ')})`).join(', ')}; add them to PLAN in scripts/readme-commands.js`);
    if (stale.length) console.error(`scripts/readme-commands.js runs commands no page shows (${docPages().join(', ')}): ${stale.map((c) => `"${c}"`).join(', ')}`);
    process.exit(1);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (pkg.scripts.test !== 'npm run test:unit && npm run test:host') {
    console.error('package.json: "test" must be "npm run test:unit && npm run test:host" (CI counts on it to run those two)');
    process.exit(1);
  }
  if (argv.includes('--list')) {
    for (const e of PLAN) console.log(`${e.kind.padEnd(8)} ${e.cmd}${e.by ? `  (by ${e.by})` : ''}${e.why && e.kind === 'skip' ? `  (${e.why})` : ''}  [${byCommand.get(e.cmd).join(', ')}]`);
    return;
  }
  const t0 = Date.now();
  const times = [];
  for (const entry of PLAN) {
    if (only && !entry.cmd.includes(only)) continue;
    if (entry.kind === 'covered') {
      console.log(`\n=== ${entry.cmd}: runs as part of \`${entry.by}\``);
      continue;
    }
    if (entry.kind === 'skip') {
      console.log(`\n=== ${entry.cmd}: not run in CI: ${entry.why}`);
      continue;
    }
    console.log(`\n=== ${entry.cmd}`);
    const t = Date.now();
    try {
      entry.before?.();
      if (entry.kind === 'serve') await serve(entry);
      else await runToEnd(entry.cmd, entry.timeoutMs);
      entry.after?.();
    } catch (e) {
      console.error(`=== ${entry.cmd}: FAILED: ${e.message}`);
      process.exit(1);
    }
    const secs = (Date.now() - t) / 1000;
    times.push([entry.cmd, secs]);
    console.log(`=== ${entry.cmd}: ok in ${secs.toFixed(1)} s`);
  }
  console.log('\nREADME commands:');
  for (const [cmd, secs] of times) console.log(`  ${secs.toFixed(1).padStart(7)} s  ${cmd}`);
  console.log(`all README commands worked in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

module.exports = { pageCommands, docPages };

if (require.main === module) main().catch((e) => {
  console.error(e);
  process.exit(1);
});
