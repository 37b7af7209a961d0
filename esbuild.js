// One esbuild context for the extension bundle (see vscode-extension-samples/esbuild-sample).
// --production: minified, no sourcesContent. --watch: rebuild on change. --tests: also bundle the
// in-host test entry (test/host/index.ts) to out/test/host/index.js. Always: src/api alone as a
// Node library at out/api/index.js (not shipped in the VSIX), and each webview's script (with its
// imported CSS) as a browser bundle at dist/webview/<name>.js / .css.
const esbuild = require('esbuild');

/** Browser-platform entries, one per webview: dist/webview/<name>.js (+ .css). One line each. */
const webviewEntries = {
  viewer: 'src/webview/viewer/main.ts',
  dashboard: 'src/webview/dashboard/main.ts',
  threadDetails: 'src/webview/threadDetails/main.ts',
};

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');

/** Prints errors in the form VS Code's `$esbuild-watch` problem matcher understands. */
const problemMatcherPlugin = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

async function main() {
  // A production build starts from an empty dist/, so no stale source map reaches the VSIX.
  if (production) require('node:fs').rmSync('dist', { recursive: true, force: true });
  const entryPoints = { extension: 'src/extension.ts' };
  const ctx = await esbuild.context({
    entryPoints,
    bundle: true,
    // jsonc-parser's default (UMD) build loads its parts with runtime require() calls esbuild
    // cannot follow; its ESM build bundles cleanly.
    mainFields: ['module', 'main'],
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outdir: 'dist',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    sourcesContent: !production,
    logLevel: 'silent',
    plugins: [problemMatcherPlugin],
  });
  const contexts = [ctx];
  // The webviews: browser platform, IIFE (a plain <script> under the CSP's nonce), no Node.
  contexts.push(
    await esbuild.context({
      entryPoints: webviewEntries,
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'chrome120',
      outdir: 'dist/webview',
      minify: production,
      sourcemap: !production,
      sourcesContent: !production,
      logLevel: 'silent',
      plugins: [problemMatcherPlugin],
    }),
  );
  // src/api as a plain Node library (no vscode): out/api/index.js, used by scripts/api-example.js.
  contexts.push(
    await esbuild.context({
      entryPoints: { 'api/index': 'src/api/index.ts' },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      outdir: 'out',
      external: ['vscode'],
      sourcemap: true,
      logLevel: 'silent',
      plugins: [problemMatcherPlugin],
    }),
  );
  if (tests) {
    contexts.push(
      await esbuild.context({
        entryPoints: { 'test/host/index': 'test/host/index.ts', 'test/host/bench': 'test/host/bench.ts', 'test/host/bench-viewer': 'test/host/bench-viewer.ts' },
        bundle: true,
        mainFields: ['module', 'main'],
        format: 'cjs',
        platform: 'node',
        target: 'node20',
        outdir: 'out',
        external: ['vscode', 'mocha'],
        sourcemap: true,
        logLevel: 'silent',
        plugins: [problemMatcherPlugin],
      }),
    );
  }
  if (watch) {
    await Promise.all(contexts.map((c) => c.watch()));
    return;
  }
  let failed = !(await writeTrajectorySchema());
  for (const c of contexts) {
    const result = await c.rebuild().catch(() => ({ errors: [1] }));
    if (result.errors.length) failed = true;
    await c.dispose();
  }
  if (failed) process.exit(1);
}

/**
 * Generates dist/trajectories.schema.json from the zod schemas (src/trajectories/schema.ts): the
 * generator is bundled to a temporary file, loaded, and its output written next to the bundle.
 */
async function writeTrajectorySchema() {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-schema-'));
  try {
    const outfile = path.join(tmp, 'schema.js');
    await esbuild.build({ entryPoints: ['src/trajectories/schema.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, logLevel: 'error' });
    const schema = require(outfile).trajectoryFileJsonSchema();
    fs.mkdirSync('dist', { recursive: true });
    fs.writeFileSync(path.join('dist', 'trajectories.schema.json'), JSON.stringify(schema, null, production ? 0 : 2));
    return true;
  } catch (e) {
    console.error(`✘ [ERROR] trajectory JSON schema: ${e.message}`);
    return false;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
