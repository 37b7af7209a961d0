import assert from 'node:assert/strict';
// Metric names, metadata keys and run ids are data: "__proto__", "constructor" and "toString" are
// names like any other. On a record built on `{}` they wrote onto Object.prototype (a checkpoint
// metric "__proto__" set Object.prototype[0] for every extension in the host), onto Object and
// Function.prototype, or read Object's own members back, and the column was dropped silently.
// Each test checks that the built-ins are untouched and that every such name is a column.
import { CheckpointSeries, columnsFromCheckpoints, columnsFromWire, columnsToWire, concatColumns, rowsFromCheckpoints, rowsFromColumns } from '../../../src/dashboard/shared/series';
import { readHistory } from '../../../src/dashboard/shared/history';
import { parseHistory } from '../../../src/agents/core/history';
import { summarizePoints } from '../../../src/agents/core/run';
import { ColumnsMessage } from '../../../src/dashboard/shared/protocol';
import { FromCompare } from '../../../src/dashboard/shared/compareProtocol';
import { TrajectorySummary } from '../../../src/viewer/protocol';
import { numericMetrics } from '../../../src/files/model';
import { metricDescription, metricNames } from '../../../src/checkpoints/metric';
import { toCsv } from '../../../src/dashboard/shared/csv';
import { harness, type Harness } from '../contract/helpers';

// As `string`: TypeScript reads obj['toString'] as Object's method, not the record's key.
const TO_STRING = 'toString' as string;
const HAS_OWN = 'hasOwnProperty' as string;
const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'val/reward'];
/** A JSON object with those keys (JSON.parse makes "__proto__" an own key, as a response or a file line does). */
const metricsJson = (base: number) => `{${NAMES.map((n, i) => `"${n}": ${base + i}`).join(', ')}}`;
const metricsOf = (base: number) => JSON.parse(metricsJson(base)) as Record<string, unknown>;

/** The built-ins a record on `{}` writes onto: Object.prototype, Object, and Object.prototype's functions. */
const BUILT_INS = [Object.prototype, Object, Function.prototype, Array.prototype, Reflect.get(Object.prototype, TO_STRING), Reflect.get(Object.prototype, HAS_OWN)] as unknown as Record<string, unknown>[];
const builtIns = () => BUILT_INS.map((o) => Reflect.ownKeys(o).map(String).sort().join(','));

/** Runs the test, then checks that no built-in gained a key (and removes any, so later tests are not polluted). */
function clean(fn: () => void | Promise<void>): () => Promise<void> {
  return async () => {
    const before = builtIns();
    try {
      await fn();
    } finally {
      const after = builtIns();
      for (const o of BUILT_INS) for (const k of Object.keys(o)) if (/^\d+$/.test(k)) delete o[k];
      assert.deepEqual(after, before, 'Object.prototype, Object and the built-in functions are untouched');
    }
  };
}

describe('security: metric names that are Object.prototype\'s own ("__proto__", "constructor", "toString")', () => {
  const checkpoints = () => [
    { id: 'a', step: 1, metrics: metricsOf(10) },
    { id: 'b', step: 2, metrics: JSON.parse('{"val/reward": 2}') as Record<string, unknown> },
    { id: 'c', step: 3, metrics: metricsOf(30) },
  ];

  it('series: checkpoints as columns keep every name as a column, null where a checkpoint lacks it', clean(() => {
    const cols = columnsFromCheckpoints(checkpoints());
    assert.deepEqual(Object.keys(cols.metrics).sort(), [...NAMES].sort());
    assert.deepEqual(cols.metrics['__proto__'], [10, null, 30]);
    assert.deepEqual(cols.metrics['constructor'], [11, null, 31]);
    assert.deepEqual(cols.metrics[TO_STRING], [12, null, 32]);
    assert.equal((Object.prototype as unknown as unknown[])[0], undefined);
  }));

  it('series: rows, merges, slices, wire columns and concatenation keep them', clean(() => {
    const rows = rowsFromCheckpoints(checkpoints());
    assert.equal(rows[0]!.metrics['__proto__'], 10);
    assert.equal(rows[1]!.metrics['constructor'], undefined, 'a checkpoint without "constructor" does not have it');
    const s = new CheckpointSeries();
    s.merge(rows);
    assert.deepEqual(s.metricNames().sort(), [...NAMES].sort());
    assert.deepEqual(s.columns.get('__proto__'), [10, null, 30]);
    assert.equal(s.row(1).metrics['constructor'], null);
    // An update of a known row, then an insert before the last row.
    s.merge([{ id: 'b', step: 2, metrics: JSON.parse('{"toString": 22}') }, { id: 'a2', step: 1, metrics: JSON.parse('{"__proto__": 15}') }]);
    assert.deepEqual(s.columns.get('toString'), [12, null, 22, 32]);
    assert.deepEqual(s.columns.get('__proto__'), [10, 15, null, 30]);
    const sliced = s.slice(0, 2);
    assert.deepEqual(sliced.metrics['__proto__'], [10, 15]);
    assert.equal(Object.keys(sliced.metrics).length, NAMES.length);
    const wire = columnsToWire([sliced, columnsFromCheckpoints([{ id: 'z', step: 9, metrics: JSON.parse('{"val/reward": 1}') }])]);
    assert.deepEqual(Object.keys(wire.metrics).sort(), [...NAMES].sort());
    assert.deepEqual([...wire.metrics['constructor']!], [11, NaN, NaN]);
    // The wire message as the webview receives it: JSON-parsed, so "__proto__" is an own key.
    const received = JSON.parse(JSON.stringify({ ids: wire.ids, steps: [...wire.steps], metrics: Object.fromEntries(Object.keys(wire.metrics).map((k) => [k, [...wire.metrics[k]!].map((v) => (Number.isNaN(v) ? null : v))])) }));
    const back = columnsFromWire(received);
    assert.deepEqual(back.metrics['__proto__'], [10, 15, null]);
    const both = concatColumns([columnsFromCheckpoints([{ id: 'x', step: 1, metrics: JSON.parse('{"val/reward": 1}') }]), back]);
    assert.deepEqual(both.metrics['constructor'], [null, 11, null, null], 'a part without "constructor" gives nulls, not Object');
    assert.equal(rowsFromColumns(both)[0]!.metrics[TO_STRING], undefined);
    const m = new CheckpointSeries();
    m.mergeColumns(both);
    assert.deepEqual(m.columns.get('__proto__'), [null, 10, 15, null]);
  }));

  it('history.jsonl: a line\'s "__proto__", "constructor" and "toString" are metrics of its step', clean(() => {
    const h = readHistory([`{"step": 1, ${metricsJson(10).slice(1)}`, '{"step": 2, "val/reward": 2}'].join('\n'));
    assert.equal(h.problems.length, 0);
    assert.deepEqual(Object.keys(h.rows[0]!.metrics).sort(), [...NAMES].sort());
    assert.equal(h.rows[0]!.metrics['__proto__'], 10);
    assert.equal(h.rows[1]!.metrics['constructor'], undefined);
    const series = new CheckpointSeries();
    series.merge(h.rows);
    const csv = toCsv(series);
    assert.match(csv.split('\r\n')[0]!, /__proto__/);
    assert.match(csv.split('\r\n')[0]!, /constructor/);
  }));

  it('svc_summarize_run: the history\'s points keep them, and a metric the last point lacks is not found on Object', clean(() => {
    const h = parseHistory([`{"step": 1, ${metricsJson(10).slice(1)}`, '{"step": 2, "val/reward": 2}', '{"step": 3, "val/reward": 3}', '{"step": 9, "val/reward": 3}'].join('\n'));
    assert.equal(h.points[0]!.metrics['__proto__'], 10);
    assert.equal(h.points[1]!.metrics['constructor'], undefined);
    const text = summarizePoints(h.points, 'run');
    assert.match(text, /5 metrics/);
    assert.match(text, /Metrics that stopped: .*__proto__/);
    assert.match(text, /constructor \(last at step 1/);
  }));

  it('the checkpoint client keeps every metric of a page, and a checkpoint without one does not have it', clean(async () => {
    let h: Harness | undefined;
    try {
      h = await harness();
      const body = JSON.parse(`{"data": [{"id": "a", "step": 1, "metrics": ${metricsJson(10)}}, {"id": "b", "step": 2, "metrics": {}}], "has_more": false}`);
      h.server.faults.add({ path: '/v1/preview/models/m/checkpoints', kind: 'status', status: 200, body });
      const page = await h.client.models.listCheckpoints('m');
      assert.deepEqual(Object.keys(page.data[0]!.metrics).sort(), [...NAMES].sort());
      assert.equal(page.data[0]!.metrics['__proto__'], 10);
      assert.equal(page.data[1]!.metrics['constructor'], undefined);
      assert.equal('toString' in page.data[1]!.metrics, false);
      // The Checkpoints view's metric: a checkpoint without it shows a dash, not Object's function.
      assert.equal(metricDescription('constructor', page.data[1]!.metrics), 'constructor —');
      assert.equal(metricDescription('__proto__', page.data[0]!.metrics), '__proto__ 10');
      assert.deepEqual(metricNames(page.data).sort(), [...NAMES].sort());
    } finally {
      await h?.close();
    }
  }));

  it('the webviews\' messages keep them: dashboard columns, Compare Runs\' report, the viewer\'s trajectory metrics', clean(() => {
    const columns = ColumnsMessage.parse(JSON.parse(`{"ids": ["a"], "steps": [1], "metrics": {"__proto__": [1], "constructor": [2], "toString": [null]}}`));
    assert.deepEqual(Object.keys(columns.metrics).sort(), ['__proto__', 'constructor', 'toString']);
    assert.equal(columns.metrics[HAS_OWN], undefined);
    const report = FromCompare.parse(JSON.parse('{"type": "rendered", "counts": [1], "charts": 2, "lines": {"__proto__": 1, "constructor": 2}, "table": []}'));
    assert.ok(report.type === 'rendered');
    assert.deepEqual(Object.keys(report.lines).sort(), ['__proto__', 'constructor']);
    const summary = TrajectorySummary.parse(JSON.parse('{"index": 0, "reward": 1, "rewardMissing": false, "messages": 1, "choices": 1, "toolCalls": 0, "metrics": {"__proto__": 1, "toString": 2}}'));
    assert.deepEqual(Object.keys(summary.metrics).sort(), ['__proto__', 'toString']);
    assert.equal(summary.metrics['constructor'], undefined);
    const metrics = numericMetrics(JSON.parse('{"metrics": {"__proto__": 1, "constructor": true}, "auto_metrics": {"toString": 3}}'));
    assert.deepEqual(Object.keys(metrics).sort(), ['__proto__', 'constructor', 'toString']);
    assert.equal(metrics[HAS_OWN], undefined);
  }));
});
