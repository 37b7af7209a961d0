#!/usr/bin/env node
// Project rules a type checker cannot see. Exits 1 on any finding.
//  - src/api must not import vscode (it runs in plain Node and could ship as a library);
//  - nothing outside src/api/http.ts imports undici (one HTTP client);
//  - no focused tests (.only) anywhere in test/;
//  - no eval / new Function in src/;
//  - webview code (src/webview, src/dashboard/core) imports neither vscode nor Node; the dashboard's
//    never sets HTML.
const fs = require('node:fs');
const path = require('node:path');

// --root DIR lints another tree (the lint's own test uses it).
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

const apiFiles = walk(path.join(root, 'src', 'api'));
const srcFiles = walk(path.join(root, 'src'));
const testFiles = walk(path.join(root, 'test'));

check(apiFiles, /(from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\))/, 'src/api must not import vscode');
check(
  srcFiles.filter((f) => path.relative(root, f) !== path.join('src', 'api', 'http.ts')),
  /(from\s+['"]undici['"]|require\(\s*['"]undici['"]\s*\))/,
  'only src/api/http.ts talks HTTP (undici)',
);
check(testFiles, /\b(describe|it|suite|test|context)\.only\s*\(/, 'focused test (.only) hides the rest of the suite');
check(srcFiles, /(\beval\s*\(|new\s+Function\s*\()/, 'no eval / new Function');
// Code bundled into webviews runs in a browser: no vscode, no Node modules.
const webviewFiles = [...walk(path.join(root, 'src', 'webview')), ...walk(path.join(root, 'src', 'dashboard', 'core'))];
check(webviewFiles, /(from\s+['"](vscode|node:[\w/]+|fs|path|crypto)['"]|require\()/, 'webview code must not import vscode or Node modules');
// The dashboard shows only data and builds its DOM with textContent: no HTML from strings at all.
const dashboardFiles = [...walk(path.join(root, 'src', 'webview', 'dashboard')), ...walk(path.join(root, 'src', 'dashboard', 'core'))];
check(dashboardFiles, /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML\(|document\.write\(/, 'the dashboard builds its DOM with textContent, never from HTML strings');

if (findings.length) {
  console.error(findings.join('\n'));
  console.error(`lint: ${findings.length} finding(s)`);
  process.exit(1);
}
console.log(`lint: ok (${srcFiles.length} source files, ${testFiles.length} test files)`);
