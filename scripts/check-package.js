#!/usr/bin/env node
// Packages the VSIX (production build) and checks what it holds: only dist/extension.js, media/,
// package.json, package.nls.json, README, CHANGELOG and LICENSE. Prints its size.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const vsce = path.join(root, 'node_modules', '.bin', 'vsce');
const out = path.join(root, 'dist-vsix', 'svc-vscode.vsix');

const allowed = [/^dist\/extension\.js$/, /^dist\/webview\/[\w-]+\.(js|css)$/, /^dist\/trajectories\.schema\.json$/, /^media\/[^/]+$/, /^package\.json$/, /^package\.nls\.json$/, /^README\.md$/, /^CHANGELOG\.md$/, /^LICENSE(\.txt)?$/];

fs.mkdirSync(path.dirname(out), { recursive: true });
const pack = spawnSync(vsce, ['package', '--no-dependencies', '--out', out], { cwd: root, encoding: 'utf8' });
if (pack.status !== 0) {
  console.error(pack.stdout, pack.stderr);
  console.error('check-package: vsce package failed');
  process.exit(1);
}
const ls = spawnSync(vsce, ['ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' });
const files = ls.stdout.split('\n').map((s) => s.trim()).filter(Boolean);
const unexpected = files.filter((f) => !allowed.some((re) => re.test(f)));
if (unexpected.length || !files.includes('dist/extension.js') || !files.includes('dist/webview/viewer.js')) {
  console.error(`check-package: unexpected VSIX content:\n  ${unexpected.join('\n  ') || '(dist/extension.js or dist/webview/viewer.js missing)'}`);
  process.exit(1);
}
const bundle = fs.statSync(path.join(root, 'dist', 'extension.js')).size;
const gz = require('node:zlib').gzipSync(fs.readFileSync(path.join(root, 'dist', 'extension.js'))).length;
const bundleText = fs.readFileSync(path.join(root, 'dist', 'extension.js'), 'utf8');
if (/\beval\(|new Function\(/.test(bundleText)) {
  console.error('check-package: the bundle contains eval or new Function');
  process.exit(1);
}
console.log(`check-package: ${path.relative(root, out)} ${fs.statSync(out).size} bytes; ${files.length} files: ${files.join(', ')}`);
console.log(`check-package: dist/extension.js ${bundle} bytes, ${gz} bytes gzip`);
