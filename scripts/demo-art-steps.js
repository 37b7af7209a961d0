// The demo run's trajectory step files (`.art/demo/models/agent-7b/trajectories/{train,val}/NNNN.parquet`),
// written by DuckDB in ART's version 2 layout by test/fixtures/art/demoSteps.ts (run with tsx: the
// writer and the groups are shared with the tests). Synchronous, like the rest of the workspace.
//
//   const { writeArtSteps } = require('./demo-art-steps');
//   writeArtSteps(dir) // -> ['.art/demo/models/agent-7b/trajectories/train/0001.parquet', …]
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** @param {string} dir @returns {string[]} the files written, relative to `dir` */
function writeArtSteps(dir) {
  const tsx = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'tsx.cmd' : 'tsx');
  const r = spawnSync(tsx, [path.join(root, 'test', 'fixtures', 'art', 'demoSteps.ts'), dir], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  if (r.status !== 0) throw new Error(`writing the demo's Parquet step files failed: ${(r.stderr || r.error?.message || '').trim()}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

module.exports = { writeArtSteps };
