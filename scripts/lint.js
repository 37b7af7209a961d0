#!/usr/bin/env node
// `npm run lint` (and `npm test`): ESLint with typescript-eslint's typed rules (eslint.config.mjs:
// floating promises, src/api never imports vscode, only src/api/http.ts imports undici, no eval),
// then the project rules that are not about TypeScript. Exits 1 on any finding.
//  - no focused tests (.only) anywhere in test/;
//  - every eslint-disable comment says why (`-- reason`);
//  - webview code (src/webview, src/dashboard/core) imports neither vscode nor Node; the dashboard's
//    never sets HTML;
//  - the plain-JS scripts require each other without a cycle (a cycle hands one of them a
//    half-built module).
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
const webviewFiles = [...walk(path.join(root, 'src', 'webview')), ...walk(path.join(root, 'src', 'dashboard', 'core'))];
check(webviewFiles, /(from\s+['"](vscode|node:[\w/]+|fs|path|crypto)['"]|require\()/, 'webview code must not import vscode or Node modules');
// The dashboard shows only data and builds its DOM with textContent: no HTML from strings at all.
const dashboardFiles = [...walk(path.join(root, 'src', 'webview', 'dashboard')), ...walk(path.join(root, 'src', 'dashboard', 'core'))];
check(dashboardFiles, /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML\(|document\.write\(/, 'the dashboard builds its DOM with textContent, never from HTML strings');

// Cycles among the scripts' relative requires (scripts/**/*.js and test/host/ui/*.js).
const jsFiles = [...scriptFiles, ...testFiles].filter((f) => f.endsWith('.js'));
const requires = new Map(
  jsFiles.map((file) => {
    const code = fs.readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '');
    const deps = [...code.matchAll(/require\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)]
      .map((m) => path.resolve(path.dirname(file), m[1]))
      .map((p) => (p.endsWith('.js') ? p : `${p}.js`))
      .filter((p) => jsFiles.includes(p));
    return [file, deps];
  }),
);
const reported = new Set();
function visit(file, stack) {
  const at = stack.indexOf(file);
  if (at >= 0) {
    const cycle = stack.slice(at).map((f) => path.relative(root, f));
    const key = [...cycle].sort().join(' ');
    if (!reported.has(key)) {
      reported.add(key);
      findings.push(`${cycle[0]}: require cycle: ${[...cycle, cycle[0]].join(' -> ')}`);
    }
    return;
  }
  if (stack.length > 50) return;
  for (const dep of requires.get(file) ?? []) visit(dep, [...stack, file]);
}
for (const file of jsFiles) visit(file, []);

if (findings.length) {
  console.error(findings.join('\n'));
  console.error(`lint: ${findings.length} finding(s)`);
  process.exit(1);
}
console.log(`lint: ok (${srcFiles.length} source files, ${testFiles.length} test files)`);
