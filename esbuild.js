// One esbuild context for the extension bundle (see vscode-extension-samples/esbuild-sample).
// --production: minified, no sourcesContent. --watch: rebuild on change. --tests: also bundle the
// in-host test entry (test/host/index.ts) to out/test/host/index.js. Always: src/api alone as a
// Node library at out/api/index.js (not shipped in the VSIX), and each webview's script (with its
// imported CSS) as a browser bundle at dist/webview/<name>.js / .css.
const esbuild = require('esbuild');

/** Browser-platform entries, one per webview: dist/webview/<name>.js (+ .css). One line each. */
const webviewEntries = {
  viewer: 'src/viewer/webview/main.ts',
  dashboard: 'src/dashboard/webview/main.ts',
  compare: 'src/dashboard/webview/compare.ts',
  threadDetails: 'src/threads/webview/main.ts',
  scenario: 'src/viewer/webview/scenario/main.ts',
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

/**
 * zod's classic API re-exports every locale (`z.locales`): about 250 KiB of messages in 40 languages,
 * minified. The extension speaks English and never calls `z.config(z.locales.xx())`, so Node bundles
 * get a locale index with English only. (zod registers English itself, from classic/schemas.js.)
 */
const englishOnlyZodPlugin = {
  name: 'zod-english-only',
  setup(build) {
    // The CommonJS build (.cjs) is what the MCP SDK's CommonJS files require.
    build.onResolve({ filter: /^\.\.\/locales\/index\.c?js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](classic|mini|core)$/.test(args.resolveDir)) return undefined;
      const en = args.path.endsWith('.cjs') ? 'en.cjs' : 'en.js';
      return { path: require('node:path').join(args.resolveDir, '..', 'locales', en), namespace: 'zod-locales' };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      loader: 'js',
      resolveDir: require('node:path').dirname(args.path),
    }));
  },
};

/**
 * The MCP SDK's Server builds an Ajv JSON Schema validator, used only to check the answers to
 * `elicitInput`, which the svc server never sends. Ajv compiles schemas with `new Function`, which
 * no shipped bundle may contain (scripts/check-package.js): the MCP bundle gets a validator that
 * refuses instead, and leaves Ajv out (about 1 MB minified).
 */
const noAjvPlugin = {
  name: 'mcp-without-ajv',
  setup(build) {
    build.onResolve({ filter: /[\\/]ajv-provider\.js$/ }, (args) =>
      /@modelcontextprotocol[\\/]sdk[\\/]/.test(args.importer) ? { path: 'ajv-provider', namespace: 'mcp-no-ajv' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'mcp-no-ajv' }, () => ({
      contents: `export class AjvJsonSchemaValidator { getValidator() { throw new Error('svc-mcp: JSON Schema validation (elicitation) is not used by this server'); } }`,
      loader: 'js',
    }));
  },
};

/**
 * The activation bundle (dist/extension.js, from src/boot/main.ts) loads the rest of the extension
 * (dist/core.js, from src/extension.ts) with a plain require on first use: that import stays as it is.
 */
const coreIsSeparatePlugin = {
  name: 'core-is-separate',
  setup(build) {
    build.onResolve({ filter: /^\.\/core\.js$/ }, (args) =>
      /[\\/]src[\\/]boot[\\/]main\.ts$/.test(args.importer) ? { path: './core.js', external: true } : undefined,
    );
  },
};

/**
 * What the extension's, the MCP server's and the host tests' bundles share: one CommonJS file per
 * entry for Node 20, packages taken as their ES modules where they have them (jsonc-parser's
 * default UMD build loads its parts with runtime require() calls esbuild cannot follow; its ESM
 * build bundles cleanly).
 */
const NODE_BUNDLE = { bundle: true, mainFields: ['module', 'main'], format: 'cjs', platform: 'node', target: 'node20' };

async function main() {
  // A production build starts from an empty dist/, so no stale source map reaches the VSIX.
  if (production) require('node:fs').rmSync('dist', { recursive: true, force: true });
  // extension: what VS Code loads at activation (stand-ins only, no HTTP stack, no schemas);
  // core: the composition root and everything it builds, required on first use.
  const entryPoints = { extension: 'src/boot/main.ts', core: 'src/extension.ts' };
  const ctx = await esbuild.context({
    entryPoints,
    ...NODE_BUNDLE,
    outdir: 'dist',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    sourcesContent: !production,
    logLevel: 'silent',
    plugins: [problemMatcherPlugin, englishOnlyZodPlugin, coreIsSeparatePlugin],
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
      plugins: [problemMatcherPlugin, englishOnlyZodPlugin],
    }),
  );
  // The MCP server (`node dist/mcp.js`): plain Node, shipped in the VSIX. No `vscode` external, so
  // a vscode import anywhere it reaches fails the build.
  contexts.push(
    await esbuild.context({
      entryPoints: { mcp: 'src/agents/mcp/main.ts' },
      ...NODE_BUNDLE,
      outdir: 'dist',
      define: { SVC_VERSION: JSON.stringify(require('./package.json').version) },
      // tsconfig.json maps the SDK's subpaths to its CommonJS build for the type checker only; the
      // bundle takes its ES modules, which share one copy of zod with ours.
      tsconfigRaw: { compilerOptions: {} },
      minify: production,
      sourcemap: !production,
      sourcesContent: !production,
      logLevel: 'silent',
      plugins: [problemMatcherPlugin, englishOnlyZodPlugin, noAjvPlugin],
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
      plugins: [problemMatcherPlugin, englishOnlyZodPlugin],
    }),
  );
  if (tests) {
    contexts.push(
      await esbuild.context({
        entryPoints: { 'test/host/index': 'test/host/index.ts', 'test/host/bench': 'test/host/bench.ts', 'test/host/bench-viewer': 'test/host/bench-viewer.ts', 'test/host/bench-upload': 'test/host/bench-upload.ts', 'test/host/bench-distribution': 'test/host/bench-distribution.ts' },
        ...NODE_BUNDLE,
        outdir: 'out',
        external: ['vscode', 'mocha', '@duckdb/node-api'],
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

/** The Node bundles' build options, for the bench's size breakdown (scripts/bench/run.ts). */
module.exports = { nodeBundlePlugins: [englishOnlyZodPlugin, coreIsSeparatePlugin] };

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
