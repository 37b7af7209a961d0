#!/usr/bin/env node
// `npm run lint` (and `npm test`): ESLint with typescript-eslint's typed rules (eslint.config.mjs:
// floating promises, src/api never imports vscode, only src/api/undici.ts loads undici, no eval),
// then the project rules that are not about TypeScript. Exits 1 on any finding.
//  - no focused tests (.only) anywhere in test/;
//  - every eslint-disable comment says why (`-- reason`);
//  - webview code (src/webview, src/*/webview, src/dashboard/shared) imports neither vscode nor Node;
//    the dashboard's never sets HTML;
//  - no import cycle: the plain-JS scripts' requires, and src/**/*.ts's static imports (a cycle
//    hands one module a half-built other);
//  - the folder order (FOLDER_ORDER below, argued in ARCHITECTURE.md): a folder of src/ imports only
//    itself and folders of lower tiers (static imports, `import type` included).
// --root DIR runs only these text checks on another tree (the lint's own test uses it).
const fs = require('node:fs');
const path = require('node:path');

// --root DIR lints another tree (the lint's own test uses it).
const { spawnSync } = require('node:child_process');

const rootArg = process.argv.indexOf('--root');
const root = rootArg > 0 ? path.resolve(process.argv[rootArg + 1]) : path.resolve(__dirname, '..');
const findings = [];

function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (/\.(ts|js|mjs|cjs)$/.test(entry.name)) out.push(full);
  }
  return out;
}

function check(files, regex, message) {
  for (const file of files) {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (regex.test(line)) findings.push(`${path.relative(root, file)}:${i + 1}: ${message}`);
    });
  }
}

if (rootArg < 0) {
  const t0 = Date.now();
  const eslint = spawnSync(process.execPath, [path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--max-warnings', '0', '.'], { cwd: root, stdio: 'inherit' });
  if (eslint.status !== 0) {
    console.error('lint: ESLint found problems (above)');
    process.exit(1);
  }
  console.log(`lint: ESLint ok in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

const srcFiles = walk(path.join(root, 'src'));
const testFiles = walk(path.join(root, 'test'));
const scriptFiles = walk(path.join(root, 'scripts'));

check(testFiles, /\b(describe|it|suite|test|context)\.only\s*\(/, 'focused test (.only) hides the rest of the suite');
// A rule switched off needs its reason next to it: `// eslint-disable-next-line rule -- why`.
check([...srcFiles, ...testFiles, ...scriptFiles], /(\/\/|\/\*)\s*eslint-disable(?!.*\s--\s+\S)/, 'an eslint-disable comment needs its reason after " -- "');
// Code bundled into webviews runs in a browser: no vscode, no Node modules.
/** Every feature's browser code: src/<feature>/webview/ (and the shared kit, src/webview/). */
const featureWebviews = fs.existsSync(path.join(root, 'src'))
  ? fs.readdirSync(path.join(root, 'src')).flatMap((d) => walk(path.join(root, 'src', d, 'webview')))
  : [];
const webviewFiles = [...walk(path.join(root, 'src', 'webview')), ...featureWebviews, ...walk(path.join(root, 'src', 'dashboard', 'shared'))];
check(webviewFiles, /(from\s+['"](vscode|node:[\w/]+|fs|path|crypto)['"]|require\()/, 'webview code must not import vscode or Node modules');
// The dashboard shows only data and builds its DOM with textContent: no HTML from strings at all.
const dashboardFiles = [...walk(path.join(root, 'src', 'dashboard', 'webview')), ...walk(path.join(root, 'src', 'dashboard', 'shared'))];
check(dashboardFiles, /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML\(|document\.write\(/, 'the dashboard builds its DOM with textContent, never from HTML strings');

// Import cycles: among the scripts' relative requires (scripts/**/*.js and test/host/ui/*.js), and
// among src/**/*.ts's static imports (`import type` and `export type` are erased, dynamic `import()`
// loads later: neither counts). A cycle hands one module a half-built other.
const jsFiles = [...scriptFiles, ...testFiles].filter((f) => f.endsWith('.js'));
const withoutComments = (code) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
const jsDeps = new Map(
  jsFiles.map((file) => {
    const deps = [...withoutComments(fs.readFileSync(file, 'utf8')).matchAll(/require\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)]
      .map((m) => path.resolve(path.dirname(file), m[1]))
      .map((p) => (p.endsWith('.js') ? p : `${p}.js`))
      .filter((p) => jsFiles.includes(p));
    return [file, deps];
  }),
);
const tsFiles = new Set(srcFiles.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')));
/** The src files a TypeScript file imports at run time (relative specifiers only). */
function tsImports(file) {
  const code = withoutComments(fs.readFileSync(file, 'utf8'));
  const deps = [];
  // import x from '…'; import { a, type B } from '…'; import * as n from '…'; export { a } from '…'; export * from '…'; import '…'
  for (const m of code.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";()=]*?)\s*(?:from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const [, , typeOnly, clause, spec] = m;
    if (typeOnly) continue;
    const braces = /^\{([\s\S]*)\}$/.exec(clause.trim());
    // `import { type A, type B } from` is erased too (every name type-only).
    if (braces && braces[1].split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '))) continue;
    const base = path.resolve(path.dirname(file), spec.replace(/\.js$/, ''));
    const target = [`${base}.ts`, path.join(base, 'index.ts')].find((p) => tsFiles.has(p));
    if (target) deps.push(target);
  }
  return deps;
}
const tsDeps = new Map([...tsFiles].map((f) => [f, tsImports(f)]));

// The folder order (ARCHITECTURE.md, "The folder order"): tiers from low to high. A file of src/
// imports files of its own folder and of folders in lower tiers only; folders of one tier do not
// import each other. Every import counts (`import type` too: a type is a dependency of the design);
// a dynamic `import()` does not. `.` is the files directly in src/ (extension.ts, the composition root).
const FOLDER_ORDER = [
  ['api'],
  ['common'],
  ['files'],
  ['webview'],
  ['ui'],
  ['auth'],
  ['service'],
  ['links', 'status', 'webUi'],
  ['calls', 'checkpoints', 'dashboard', 'feedback', 'harnesses'],
  ['threads', 'trajectories'],
  ['viewer'],
  ['runs', 'search'],
  ['agents'],
  ['publicApi'],
  ['.'],
  ['boot'],
];
const tierOf = new Map(FOLDER_ORDER.flatMap((tier, i) => tier.map((folder) => [folder, i])));
/** src/<folder>/… (or the folder itself, `from '../api'`) → folder; src/x.ts → '.'. */
const folderOf = (file) => {
  const parts = path.relative(path.join(root, 'src'), file).split(path.sep);
  return parts.length > 1 || fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() ? parts[0] : '.';
};
const unplaced = new Set();
for (const file of srcFiles.filter((f) => f.endsWith('.ts'))) {
  const from = folderOf(file);
  if (!tierOf.has(from)) {
    if (!unplaced.has(from)) findings.push(`${path.relative(root, file)}: folder order: src/${from}/ has no place in FOLDER_ORDER (scripts/lint.js); add it to a tier`);
    unplaced.add(from);
    continue;
  }
  const code = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/^(\s*)\/\/.*$/gm, '$1');
  for (const m of code.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";()=]*?\s*from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const spec = m[1];
    const target = path.resolve(path.dirname(file), spec);
    if (path.relative(path.join(root, 'src'), target).startsWith('..')) continue;
    const to = folderOf(target);
    if (to === from || !tierOf.has(to) || tierOf.get(to) < tierOf.get(from)) continue;
    const line = code.slice(0, m.index + m[0].length).split('\n').length;
    const why = tierOf.get(to) === tierOf.get(from) ? `${from} and ${to} share a tier` : `${to} is above ${from}`;
    findings.push(`${path.relative(root, file)}:${line}: folder order: ${from} may not import ${to} ('${spec}'): ${why} (FOLDER_ORDER in scripts/lint.js; ARCHITECTURE.md)`);
  }
}

/** One cycle per strongly connected component of the graph (Tarjan), each as a path back to its start. */
function cycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const found = [];
  function strong(v) {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) !== idx.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      component.push(w);
    } while (w !== v);
    const members = new Set(component);
    if (component.length === 1 && !(graph.get(v) ?? []).includes(v)) return;
    // The shortest way from the component's first file (by name) back to itself.
    const start = [...members].sort()[0];
    const prev = new Map();
    const queue = [start];
    while (queue.length) {
      const x = queue.shift();
      for (const y of graph.get(x) ?? []) {
        if (!members.has(y) || prev.has(y)) continue;
        prev.set(y, x);
        queue.push(y);
      }
      if (prev.has(start)) break;
    }
    const loop = [start];
    for (let x = prev.get(start); x !== start; x = prev.get(x)) loop.unshift(x);
    loop.unshift(start);
    found.push({ loop, size: members.size });
  }
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return found;
}
for (const [graph, kind] of [[jsDeps, 'require cycle'], [tsDeps, 'import cycle']]) {
  for (const { loop, size } of cycles(graph)) {
    const names = loop.map((f) => path.relative(root, f));
    findings.push(`${names[0]}: ${kind}: ${names.join(' -> ')}${size > loop.length - 1 ? ` (${size} files import each other in a circle)` : ''}`);
  }
}

if (findings.length) {
  console.error(findings.join('\n'));
  console.error(`lint: ${findings.length} finding(s)`);
  process.exit(1);
}
console.log(`lint: ok (${srcFiles.length} source files, ${testFiles.length} test files)`);
