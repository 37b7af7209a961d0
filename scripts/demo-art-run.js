// The demo's long run for issue 31 (`.art/demo/models/agent-7b-scenarios/`): 40 train and 10 val step
// files (Parquet by DuckDB, steps 1 and 2 as older ART's JSONL by Python's json), six scenarios
// that recur at every step (metadata.scenario_id; one only by its first user message) whose answers
// change at a known step, and its history.jsonl. Written by test/fixtures/art/run.ts (run with tsx:
// the same writer as the tests). Synchronous, like the rest of the workspace.
//
//   const { writeArtRun } = require('./demo-art-run');
//   writeArtRun(dir) // -> { modelDir: '.art/demo/models/agent-7b-scenarios', history: '…/history.jsonl', steps: { train: 40, val: 10 } }
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** @param {string} dir @returns {{ modelDir: string, history: string, steps: Record<string, number> }} paths relative to `dir` */
function writeArtRun(dir) {
  const tsx = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'tsx.cmd' : 'tsx');
  const r = spawnSync(tsx, [path.join(root, 'test', 'fixtures', 'art', 'run.ts'), dir], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  if (r.status !== 0) throw new Error(`writing the demo's long run failed: ${(r.stderr || r.error?.message || '').trim()}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

module.exports = { writeArtRun };
