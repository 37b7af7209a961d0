// Tests entry for the in-host mocha suites, in the shape @vscode/test-electron expects: the host
// loads this file (extensionTestsPath) and awaits run(); resolve = pass, reject = fail.
// The same bundle (out/test/host/index.js, built by `node esbuild.js --tests`) runs under
// code-server (scripts/host/run-tests.js) and under desktop VS Code (scripts/host/run-desktop.js).
//
// Environment read here (set by the runners, inherited by the extension host):
//   SVC_HOST_GREP     only run tests whose full title matches this regular expression (--grep)
//   SVC_HOST_TIMEOUT  per-test timeout in ms (default 20000)
//   SVC_HOST_TRUST    "restricted": the Restricted Mode host (only restricted.test.ts runs)

// `mocha` stays external to the bundle (esbuild.js) and is loaded from node_modules at run time.
// mocha 12's package entry is an ES module; the extension host's loader is CommonJS, so load the
// CommonJS build it ships next to it rather than rely on require(esm).
import { format } from 'util';

const Mocha: typeof import('mocha') = require('mocha/lib/mocha.cjs');

// Mocha's reporters print with printf-style calls (console.log('%s %d', a, b)). The web
// workbench relays the host's console arguments without applying the format, so the runner would
// print '%s%s' verbatim. Format here; this is a no-op difference under desktop VS Code.
Mocha.reporters.Base.consoleLog = (...args: unknown[]) => console.log(format(...args));

/**
 * Loads the suite modules. `require` (not `import`) on purpose: imports are hoisted and would
 * evaluate the suites before mocha's globals (describe/it/before...) exist. esbuild bundles these
 * require calls and evaluates each module exactly here, in this order.
 *
 * ADD NEW SUITES HERE (one line per file in test/host/suites/):
 */
/* eslint-disable @typescript-eslint/no-require-imports -- the suites must load after mocha's pre-require has installed describe/it, and in this order */
function loadSuites(): void {
  // The Restricted Mode host (run-tests.js --restricted) runs its own suite, and only that one.
  if (process.env.SVC_HOST_TRUST === 'restricted') {
    require('./suites/restricted.test');
    return;
  }
  // activation must stay first: it proves activate() makes no request, before anyone activates.
  require('./suites/activation.test');
  require('./suites/smoke.test');
  require('./suites/auth.test');
  require('./suites/threads.test');
  require('./suites/checkpoints.test');
  require('./suites/checkpointRows.test');
  require('./suites/dashboard.test');
  require('./suites/historyDashboard.test');
  require('./suites/compareRuns.test');
  require('./suites/runs.test');
  require('./suites/connection.test');
  require('./suites/errors.test');
  require('./suites/presenter.test');
  require('./suites/connectionChange.test');
  require('./suites/upload.test');
  require('./suites/uploadParquet.test');
  require('./suites/import.test');
  require('./suites/feedback.test');
  require('./suites/webUi.test');
  require('./suites/interactive.test');
  require('./suites/trust.test');
  require('./suites/viewer.test');
  require('./suites/promises.test');
  require('./suites/agents.test');
  require('./suites/chat.test');
  require('./suites/mcp.test');
  require('./suites/links.test');
  require('./suites/publicApi.test');
  require('./suites/viewerParquet.test');
  require('./suites/viewerInspect.test');
  require('./suites/viewerTrainability.test');
  require('./suites/viewerTokens.test');
  require('./suites/viewerHarbor.test');
  require('./suites/viewerLogprobs.test');
  require('./suites/scenario.test');
  require('./suites/runSearch.test');
  require('./suites/runPick.test');
  require('./suites/scripted.test');
  // security must stay last: it scans what the whole run wrote.
  require('./suites/security.test');
}
/* eslint-enable @typescript-eslint/no-require-imports */

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    // 'spec' with colours off reads well in a plain console and in CI logs: the runner relays
    // each console line from the extension host to its own stdout.
    reporter: 'spec',
    color: false,
    timeout: Number(process.env.SVC_HOST_TIMEOUT) || 20_000,
  });
  const grep = process.env.SVC_HOST_GREP;
  if (grep) {
    mocha.grep(new RegExp(grep));
    console.log(`[host-tests] grep: ${grep}`);
  }

  // Installs describe/it/before/... on the global object, exactly as `mocha` does before it
  // requires each spec file; then the suites register their tests into mocha.suite.
  mocha.suite.emit('pre-require', globalThis, 'test/host/index.ts', mocha);
  try {
    loadSuites();
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }

  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        if (failures > 0) reject(new Error(`${failures} test(s) failed.`));
        // A grep that matches nothing must not look like a green run.
        else if (runner.total === 0) reject(new Error('No tests ran (check SVC_HOST_GREP / --grep).'));
        else resolve();
      });
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}
