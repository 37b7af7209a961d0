// The run metrics of the demo workspace's training run, as the official training client (OpenPipe
// ART, Model._log_metrics) writes them to `.art/<project>/models/<model>/history.jsonl`: one line
// per `log` call, json.dumps of the qualified metrics without NaN values, then `training_step`,
// `step` and `recorded_at` (datetime.now().isoformat(): local time, no zone, microseconds left out
// when 0). Each step has a train line and a loss line; every fifth step a val line too.
// Deterministic: the same bytes every time.
//
//   const { writeArtHistory } = require('./demo-art-history');
//   writeArtHistory(dir) // -> '.art/demo/models/agent-7b/history.jsonl'
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const HISTORY = '.art/demo/models/agent-7b/history.jsonl';
const STEPS = 50;

const { mulberry32: prng } = require('./demo-prng');

/** A float as Python's json.dumps writes it (1.0, not 1). */
function pyFloat(x) {
  const s = x !== 0 && Math.abs(x) < 1e-4 ? x.toExponential() : String(x);
  return /[.eE]/.test(s) ? s.replace(/e([+-])(\d)$/, 'e$10$2') : `${s}.0`;
}

/** json.dumps of a flat dict of floats, with the int steps and the time as the client adds them. */
function pyLine(metrics, step, recordedAt) {
  const parts = Object.entries(metrics)
    .filter(([, v]) => !Number.isNaN(v))
    .map(([k, v]) => `${JSON.stringify(k)}: ${pyFloat(v)}`);
  parts.push(`"training_step": ${step}`, `"step": ${step}`, `"recorded_at": ${JSON.stringify(recordedAt)}`);
  return `{${parts.join(', ')}}`;
}

/** datetime.isoformat() of a naive local time: microseconds only when not 0. */
function isoformat(ms, micros) {
  const d = new Date(ms);
  const p = (n, w = 2) => String(n).padStart(w, '0');
  const base = `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}T${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
  return micros ? `${base}.${p(micros, 6)}` : base;
}

const round = (x, digits = 6) => Number(x.toFixed(digits));

/** The lines of a 50-step run: train reward climbs with noise, loss falls, val every 5 steps. */
function historyLines() {
  const rnd = prng(7_000_007);
  const noise = (scale) => (rnd() - 0.5) * 2 * scale;
  // The wall clock of the run (rendered without a zone, as the client writes it).
  let t = Date.UTC(2026, 10, 19, 9, 30, 0);
  let costs = 0;
  const lines = [];
  for (let step = 1; step <= STEPS; step++) {
    const progress = step / STEPS;
    const wall = 38 + noise(6);
    t += Math.round(wall * 1000);
    const gpu = (wall * 2.49) / 3600;
    costs += gpu;
    const reward = Math.min(0.97, 0.22 + 0.62 * (1 - Math.exp(-3 * progress)) + noise(0.05));
    lines.push(
      pyLine(
        {
          'train/reward': round(reward),
          'train/reward_std_dev': round(0.28 - 0.14 * progress + noise(0.03)),
          'train/exception_rate': step === 17 ? 0.125 : 0,
          'data/step_num_trajectories': 64,
          'data/step_num_groups': 8,
          'discarded/step/zero_variance_groups': step > 40 ? Math.floor(rnd() * 3) : 0,
          'time/step_wall_s': round(wall, 3),
          'time/step_collect_batch_s': round(wall * 0.62, 3),
          'costs/gpu': round(gpu),
          'costs/cum/all': round(costs),
          'throughput/train_packed_tok_per_s': round(5200 + noise(400), 1),
        },
        step,
        isoformat(t, step === 1 ? 0 : Math.floor(rnd() * 1e6)),
      ),
    );
    t += 9000 + Math.round(rnd() * 2000);
    lines.push(
      pyLine(
        {
          'loss/train': round(0.92 * Math.exp(-1.6 * progress) + 0.08 + noise(0.02)),
          // The KL divergence is NaN on the first step (no reference yet): the client leaves it out.
          'loss/kl_div': step === 1 ? NaN : round(0.004 + 0.02 * progress + noise(0.002)),
          'loss/entropy': round(1.9 - 0.7 * progress + noise(0.04)),
          'loss/grad_norm': round(0.6 + noise(0.25)),
          'loss/learning_rate': 5e-6,
          'time/step_backend_train_s': round(wall * 0.35, 3),
        },
        step,
        isoformat(t, Math.floor(rnd() * 1e6)),
      ),
    );
    if (step % 5 === 0) {
      t += 14000;
      // Validation peaks at step 40, then slips a little: the best step is not the latest.
      const val = Math.min(0.95, 0.2 + 0.6 * (1 - Math.exp(-3 * progress)) + noise(0.01) + (step === 40 ? 0.04 : step > 40 ? -0.03 : 0));
      const judge = 0.0031 + noise(0.0004);
      lines.push(
        pyLine(
          {
            'val/reward': round(val),
            'val/reward_std_dev': round(0.22 - 0.1 * progress + noise(0.02)),
            'val/exception_rate': 0,
            'costs/eval/judge': round(judge),
          },
          step,
          isoformat(t, Math.floor(rnd() * 1e6)),
        ),
      );
    }
  }
  return lines;
}

/** Writes the run's history.jsonl under `dir`; returns its path relative to `dir`. */
function writeArtHistory(dir) {
  const file = path.join(dir, HISTORY);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, historyLines().join('\n') + '\n');
  return HISTORY;
}

module.exports = { writeArtHistory, historyLines, ART_HISTORY: HISTORY, pyLine };
