#!/usr/bin/env node
// `npm run package`: packages the VSIX (production build) and checks what it holds: only
// dist/extension.js (activation), dist/core.js (loaded on first use), dist/mcp.js (the MCP server), the webview bundles, media/, the public API's
// types (api/svc.d.ts, for other extensions), package.json, package.nls.json, README,
// CHANGELOG and LICENSE. Prints its size. Creates the output folder (vsce does not).
//   node scripts/check-package.js [--out <file.vsix>]   (default dist-vsix/svc-vscode.vsix)
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const vsce = path.join(root, 'node_modules', '.bin', 'vsce');
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, 'dist-vsix', 'svc-vscode.vsix');
// The manifest's own files must ship: a walkthrough step without its media shows nothing.
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const walkthroughMedia = (manifest.contributes.walkthroughs ?? []).flatMap((w) => w.steps.flatMap((s) => Object.entries(s.media ?? {}).filter(([k]) => k !== 'altText').map(([, v]) => v)));
// So must the chat skills (VS Code 1.139's chatSkills: a SKILL.md in a folder named as the skill).
const chatSkills = (manifest.contributes.chatSkills ?? []).map((s) => path.posix.normalize(s.path));
// Every webview page the extension loads must ship too (a missing one is a blank panel).
const required = ['dist/extension.js', 'dist/core.js', 'dist/mcp.js', 'api/svc.d.ts', ...['viewer', 'dashboard', 'compare', 'threadDetails', 'scenario'].flatMap((w) => [`dist/webview/${w}.js`, `dist/webview/${w}.css`]), manifest.icon, ...walkthroughMedia, ...chatSkills];

const allowed = [/^dist\/(extension|core|mcp)\.js$/, /^api\/svc\.d\.ts$/, /^dist\/webview\/[\w-]+\.(js|css)$/, /^dist\/trajectories\.schema\.json$/, /^media\/[^/]+$/, /^media\/walkthrough\/[\w-]+\.md$/, /^skills\/[a-z0-9-]+\/SKILL\.md$/, /^package\.json$/, /^package\.nls\.json$/, /^README\.md$/, /^CHANGELOG\.md$/, /^LICENSE(\.txt)?$/];

fs.mkdirSync(path.dirname(out), { recursive: true });
// The README the VSIX carries is vsce's rewrite of README.md: each relative image path becomes an
// https URL of the repository's file (https://github.com/svc/svc-vscode/raw/HEAD/<path>), each other
// relative link a link to the repository. VS Code 1.103 and later show no data: image on the page.
const { readmeImageProblems } = require('./readme-images');
const pack = spawnSync(vsce, ['package', '--no-dependencies', '--out', out], { cwd: root, encoding: 'utf8' });
if (pack.status !== 0) {
  console.error(pack.stdout, pack.stderr);
  console.error('check-package: vsce package failed');
  process.exit(1);
}
const ls = spawnSync(vsce, ['ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' });
const files = ls.stdout.split('\n').map((s) => s.trim()).filter(Boolean);
const unexpected = files.filter((f) => !allowed.some((re) => re.test(f)));
const missing = required.filter((f) => !files.includes(f));
if (unexpected.length || missing.length) {
  console.error(`check-package: unexpected VSIX content:\n  ${[...unexpected, ...missing.map((f) => `(${f} missing)`)].join('\n  ')}`);
  process.exit(1);
}
// Every image the packaged README names is an https URL of a file in the repository's git, with an
// alt text that says what it shows (offline, the page shows only that): the Extensions view and the
// Marketplace show this README.
const packaged = spawnSync('unzip', ['-p', out, 'extension/readme.md'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
if (packaged.status !== 0 || !packaged.stdout) {
  console.error(`check-package: could not read extension/readme.md from ${out} with unzip: ${packaged.error?.message ?? packaged.stderr}`);
  process.exit(1);
}
const gitFiles = spawnSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
if (gitFiles.status !== 0) {
  console.error(`check-package: git ls-files failed (the README's images must be files of the repository): ${gitFiles.error?.message ?? gitFiles.stderr}`);
  process.exit(1);
}
const tracked = new Set(gitFiles.stdout.split('\0').filter(Boolean));
const imageProblems = readmeImageProblems(packaged.stdout, manifest.repository?.url, (file) => tracked.has(file));
if (imageProblems.length) {
  console.error(`check-package: images of the packaged README that the Extensions view cannot show:\n  ${imageProblems.join('\n  ')}`);
  process.exit(1);
}
const webviews = files.filter((f) => f.startsWith('dist/webview/')).map((f) => f.slice('dist/webview/'.length));
const bundles = ['extension.js', 'core.js', 'mcp.js'].map((f) => ({ name: `dist/${f}`, text: fs.readFileSync(path.join(root, 'dist', f), 'utf8') }));
// What VS Code loads at activation must stay free of the HTTP stack and the schemas (src/boot/main.ts).
if (/llhttp|\$ZodType|ZodObject/.test(bundles[0].text)) {
  console.error('check-package: dist/extension.js (loaded at activation) contains undici or zod; they belong in dist/core.js');
  process.exit(1);
}
for (const [name, text] of [...bundles.map((b) => [b.name, b.text]), ...webviews.filter((f) => f.endsWith('.js')).map((f) => [`dist/webview/${f}`, fs.readFileSync(path.join(root, 'dist', 'webview', f), 'utf8')])]) {
  if (/\beval\(|new Function\(/.test(text)) {
    console.error(`check-package: ${name} contains eval or new Function`);
    process.exit(1);
  }
}
// What is really there, at run time: load the service client's bundle with the Function
// constructor watched, parse a request and a response of every endpoint, and count the code it
// generated (zod aliases the constructor, so a text search of the bundle cannot see it).
const generated = spawnSync(
  process.execPath,
  [
    '-e',
    `const Real = Function; let n = 0;
     globalThis.Function = new Proxy(Real, { construct(t, a) { n++; return Reflect.construct(t, a); }, apply(t, th, a) { n++; return Reflect.apply(t, th, a); } });
     const api = require(${JSON.stringify(path.join(root, 'out', 'api', 'index.js'))});
     const t = { messages_and_choices: [{ role: 'user', content: 'x' }, { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'y' } }], reward: 1 };
     api.TrajectoryLogRequest.safeParse({ split: 's', trajectory_groups: [{ trajectories: [t] }] });
     api.TrajectoryLogRequest.safeParse({ split: 's', trajectory_groups: [{ trajectories: [{ reward: 'x' }] }] });
     api.ThreadsQueryRequest.safeParse({ project_id: 'a/b', sort_by: [{ field: 'turn_count', direction: 'asc' }] });
     api.ThreadRow.safeParse({ thread_id: 't', turn_count: 1, start_time: 'x', last_updated: 'y' });
     api.CheckpointList.safeParse({ data: [{ id: 'i', step: 1, metrics: {} }], has_more: false });
     api.CallBatchItem.safeParse({ mode: 'start', req: { start: { project_id: 'a/b', op_name: 'o', started_at: '2026-01-01T00:00:00Z', attributes: {}, inputs: {} } } });
     api.FeedbackCreateRequest?.safeParse({ project_id: 'a/b', svc_ref: 'x', feedback_type: 't', payload: {} });
     console.log(n);`,
  ],
  { encoding: 'utf8' },
);
if (generated.status !== 0 || generated.stdout.trim() !== '0') {
  console.error(`check-package: the service client generates code at run time (Function constructed ${generated.stdout.trim() || '?'} times)${generated.stderr ? `:\n${generated.stderr}` : ''}`);
  process.exit(1);
}
// The MCP server runs from a plain terminal with Node alone: its bundle must start and answer.
const mcp = spawnSync(process.execPath, [path.join(root, 'dist', 'mcp.js'), '--version'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
if (mcp.status !== 0 || mcp.stdout.trim() !== manifest.version) {
  console.error(`check-package: node dist/mcp.js --version answered ${JSON.stringify(mcp.stdout.trim())} (exit ${mcp.status}), expected ${manifest.version}${mcp.stderr ? `:\n${mcp.stderr}` : ''}`);
  process.exit(1);
}
console.log(`check-package: ${path.relative(root, out)} ${fs.statSync(out).size} bytes; ${files.length} files: ${files.join(', ')}`);
for (const { name, text } of bundles) console.log(`check-package: ${name} ${Buffer.byteLength(text)} bytes, ${require('node:zlib').gzipSync(text).length} bytes gzip`);
for (const f of webviews) {
  const bytes = fs.readFileSync(path.join(root, 'dist', 'webview', f));
  console.log(`check-package: dist/webview/${f} ${bytes.length} bytes, ${require('node:zlib').gzipSync(bytes).length} bytes gzip`);
}
