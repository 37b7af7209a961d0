/**
 * The training dashboard page. It holds a copy of the model's checkpoints (sent by the
 * extension, merged like the extension merges them), draws charts and a table, and tells the
 * extension what the user set. Every message in is checked before use; every text goes in as text.
 */
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { formatMetric } from '../../common/format';
import { bestRow, defaultCharts, orderedMetrics, resolveBest } from '../shared/metrics';
import { DEFAULT_UI, ToWebview, type BestChoice, type FromWebview, type SyncStatus, type UiState } from '../shared/protocol';
import { parseMessage } from '../../webview/protocol';
import { CheckpointSeries, columnsFromWire } from '../shared/series';
import { Charts } from './charts';
import { Controls } from './controls';
import { renderDiff } from './diff';
import { h } from '../../webview/dom';
import { nf } from './dom';
import { CheckpointTable } from './table';
import { Distribution } from './distribution';

const vscode = acquireVsCodeApi();
const post = (m: FromWebview) => vscode.postMessage(m);

// Reports errors of this page to the extension's log rather than losing them in the devtools.
window.addEventListener('error', (e) => post({ type: 'error', message: String(e.message).slice(0, 500) }));

const series = new CheckpointSeries();
let modelId = '';
let ui: UiState = DEFAULT_UI;
let best: BestChoice = { direction: 'max' };
let status: SyncStatus | undefined;
/** When the data message that the next draw answers arrived (for the `rendered` timing). */
let since = 0;

const app = document.getElementById('app')!;
const title = h('h1');
const statusText = h('span', { class: 'status', role: 'status', 'aria-live': 'polite' });
const bestText = h('span', { class: 'best-summary' });
const latestText = h('span', { class: 'latest-summary' });
/** A file dashboard: the trajectory step files of the best, latest and selected steps. */
const stepFiles = h('p', { class: 'step-files', hidden: true });
const progress = h('progress', { class: 'progress', 'aria-label': 'Loading checkpoints' });
const refresh = h('button', { type: 'button', class: 'secondary', text: 'Refresh', title: 'Load every checkpoint again' });
const exportCsv = h('button', { type: 'button', class: 'secondary', text: 'Export CSV…' });
refresh.addEventListener('click', () => post({ type: 'refresh' }));
exportCsv.addEventListener('click', () => post({ type: 'exportCsv' }));
const controlsRoot = h('section', { class: 'controls', 'aria-label': 'Chart settings' });
const chartsRoot = h('section', { class: 'charts', 'aria-label': 'Charts' });
const diffRoot = h('section', { class: 'diff', 'aria-label': 'Diff of two checkpoints' });
const tableRoot = h('section', { class: 'table', 'aria-label': 'All checkpoints' }, h('h2', { text: 'Checkpoints' }));
const distributionRoot = h('section', { class: 'distribution', 'aria-label': 'Reward distribution per step' });
app.replaceChildren(
  h('header', { class: 'bar' }, title, statusText, h('span', { class: 'spacer' }), refresh, exportCsv),
  progress,
  controlsRoot,
  h('p', { class: 'best-line' }, bestText, latestText),
  stepFiles,
  chartsRoot,
  distributionRoot,
  diffRoot,
  tableRoot,
);

const charts = new Charts(
  chartsRoot,
  () => {
    since = performance.now();
    draw('all');
  },
  // A click on a chart selects the step under the cursor, as a click on its table row does.
  (row) => {
    const id = series.ids[row];
    if (id === undefined) return;
    const selected = ui.selected.includes(id) ? ui.selected.filter((x) => x !== id) : [...ui.selected, id].slice(-2);
    setUi({ ...ui, selected }, 'marks');
  },
);
const controls = new Controls(controlsRoot, {
  onMetrics: (metrics) => setUi({ ...ui, metrics }),
  onBest: (metric, direction) => {
    best = { metric, direction };
    post({ type: 'best', best });
    draw('marks');
  },
  onSmoothing: (smoothing) => setUi({ ...ui, smoothing }),
  onResetZoom: () => charts.resetZoom(),
});
const distribution = new Distribution(distributionRoot, post);
const table = new CheckpointTable(tableRoot, {
  onSelect: (selected) => setUi({ ...ui, selected }, 'marks'),
  onSort: (sort) => setUi({ ...ui, sort }, 'table'),
  onCopy: (what, checkpointId) => post({ type: 'copy', what, checkpointId }),
});

let saveTimer = 0;
function setUi(next: UiState, what: Draw = 'all'): void {
  ui = next;
  vscode.setState({ modelId, ui });
  clearTimeout(saveTimer);
  saveTimer = window.setTimeout(() => post({ type: 'ui', ui }), 200);
  since = performance.now();
  draw(what);
}

// Drawing: at once when the data is complete; while pages still arrive, the first rows within
// FIRST_DRAW_MS, then at most once a second.
const FIRST_DRAW_MS = 250;
type Draw = 'all' | 'table' | 'marks';
let pending: Draw | undefined;
/** Something was drawn from data: the charts exist, and a page while loading waits for the throttle. */
let chartsBuilt = false;
let frame = 0;
let throttle = 0;
function draw(what: Draw, urgent = true): void {
  pending = pending === 'all' || what === 'all' ? 'all' : pending === 'table' || what === 'table' ? 'table' : 'marks';
  if (!urgent) {
    // The first draw of a load waits a moment only: a load that ends meanwhile is built once.
    if (!throttle && !frame) throttle = window.setTimeout(() => ((throttle = 0), schedule()), chartsBuilt ? 1000 : FIRST_DRAW_MS);
    return;
  }
  clearTimeout(throttle);
  throttle = 0;
  schedule();
}
function schedule(): void {
  if (!frame) frame = requestAnimationFrame(paint);
}

function paint(): void {
  frame = 0;
  const what = pending ?? 'all';
  pending = undefined;
  const names = orderedMetrics(series.metricNames());
  const shown = (ui.metrics ?? defaultCharts(names)).filter((m) => names.includes(m));
  const choice = resolveBest(best, names);
  const row = choice.metric ? bestRow(series, choice.metric, choice.direction) : undefined;
  const bestId = row === undefined ? undefined : series.ids[row];
  const selectedRows = ui.selected.map((id) => series.indexOf(id)).filter((i) => i >= 0);
  const latest = series.length ? series.length - 1 : undefined;
  const latestId = latest === undefined ? undefined : series.ids[latest];
  const marks = { best: row === undefined ? undefined : { metric: choice.metric!, row }, selected: selectedRows, latest };
  if (what === 'all') charts.render(series, shown, ui.smoothing, marks);
  if (series.length) chartsBuilt = true;
  else charts.mark(marks);
  table.update(series, names, ui.sort, ui.selected, bestId, latestId);
  renderDiff(diffRoot, series, ui.selected, names);
  controls.update(names, shown, choice, ui.smoothing);
  bestText.textContent =
    row === undefined
      ? choice.metric
        ? series.length
          ? `No checkpoint has ${choice.metric} yet.`
          : ''
        : 'Pick a metric for the best checkpoint.'
      : `★ Best by ${choice.metric} (${choice.direction === 'max' ? 'highest' : 'lowest'}): step ${series.steps[row]}, ${formatMetric(series.value(choice.metric!, row))}`;
  latestText.textContent = latest === undefined ? '' : ` · ● Latest: step ${series.steps[latest]}${choice.metric && series.value(choice.metric, latest) !== null ? `, ${formatMetric(series.value(choice.metric, latest))}` : ''}`;
  showStepFiles(row, latest, selectedRows);
  app.setAttribute('aria-busy', String(!!status?.loading));
  // What this paint drew, read now: data arriving before the next frame must not mix into the report
  // (a count from after a reset next to the latest step from before it).
  const links = stepFiles.hidden ? undefined : [...stepFiles.querySelectorAll<HTMLElement>('button[data-step]')].map((b) => `${b.dataset.step}/${b.dataset.split}`);
  const drawn = { count: series.length, charts: charts.count, best: bestId, latest: latestId, selected: [...ui.selected], ...(links ? { stepFiles: stepFiles.textContent ?? '', stepLinks: links } : {}) };
  const started = since;
  // The frame after this one starts once this one is painted.
  requestAnimationFrame(() => post({ type: 'rendered', ...drawn, ms: performance.now() - started, yRanges: charts.yRanges() }));
}

/** Links to the step files of the best, latest and selected steps, one per split (a file dashboard). */
function showStepFiles(best: number | undefined, latest: number | undefined, selected: number[]): void {
  const splits = status?.file?.splits ?? [];
  stepFiles.hidden = splits.length === 0 || series.length === 0;
  if (stepFiles.hidden) return;
  const rows: [string, number][] = [];
  const add = (label: string, row: number | undefined) => {
    if (row === undefined) return;
    const step = series.steps[row]!;
    const same = rows.find(([, s]) => s === step);
    if (same) same[0] += ` · ${label}`;
    else rows.push([label, step]);
  };
  add('★ best', best);
  add('● latest', latest);
  for (const r of selected) add('selected', r);
  const parts = rows.map(([label, step]) =>
    h(
      'span',
      { class: 'step-link' },
      h('span', { text: `${label} step ${step}: ` }),
      ...splits.map((split) => {
        // Only a step that has a file is a link; another says so in place (no error to dismiss).
        const have = status?.file?.steps?.[split];
        if (have && !have.includes(step)) return h('span', { class: 'no-step-file', text: `${split}: no file`, title: `trajectories/${split}/ has no file for step ${step}` });
        const b = h('button', { type: 'button', class: 'link', text: split, title: `Open the ${split} trajectories of step ${step}`, 'data-step': step, 'data-split': split });
        b.addEventListener('click', () => post({ type: 'openStep', step, split }));
        return b;
      }),
    ),
  );
  stepFiles.replaceChildren(h('span', { class: 'step-files-label', text: 'Trajectories:' }), ...parts);
}

/** A time of today as its time, another as its day and time (short: the status shares one line). */
function when(ms: number): string {
  const d = new Date(ms);
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return d.toDateString() === new Date().toDateString() ? time : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`;
}

function showStatus(): void {
  const s = status;
  if (!s) return;
  if (s.file) {
    const f = s.file;
    progress.hidden = !s.loading;
    const parts = [`${nf.format(s.count)} step${s.count === 1 ? '' : 's'} from ${f.name}`];
    if (s.error) parts.push(`cannot read it: ${s.error}`);
    else parts.push(f.watching ? 'watching' : 'not watched while hidden');
    if (f.recordedAt) parts.push(`last line ${when(f.recordedAt)}`);
    else if (s.updatedAt) parts.push(`read ${new Date(s.updatedAt).toLocaleTimeString()}`);
    if (f.problems) parts.push(`${nf.format(f.problems)} line${f.problems === 1 ? '' : 's'} skipped (${f.problem ?? 'unreadable'}${f.problems > 1 ? ', …: see the svc log' : ''})`);
    statusText.textContent = parts.join(' · ');
    statusText.classList.toggle('error', !!s.error || f.problems > 0);
    refresh.title = 'Read the file again';
    return;
  }
  progress.hidden = !s.loading;
  const count = `${nf.format(s.count)} checkpoint${s.count === 1 ? '' : 's'}`;
  const parts = [s.loading ? `Loading… ${count}` : count];
  if (s.updatedAt && !s.loading) parts.push(`updated ${new Date(s.updatedAt).toLocaleTimeString()}`);
  if (s.error) parts.push(`could not load: ${s.error}${s.nextPollAt ? `; retrying at ${new Date(s.nextPollAt).toLocaleTimeString()}` : ''}`);
  else if (!s.loading) parts.push(s.pollSeconds > 0 ? `checking every ${s.pollSeconds} s while visible` : 'live updates off');
  statusText.textContent = parts.join(' · ');
  statusText.classList.toggle('error', !!s.error);
}

window.addEventListener('message', (event: MessageEvent) => {
  const received = performance.now();
  const parsed = parseMessage(ToWebview, event.data);
  if (!parsed.ok) {
    post({ type: 'error', message: parsed.error });
    return;
  }
  const msg = parsed.value;
  switch (msg.type) {
    case 'init':
      modelId = msg.modelId;
      ui = msg.ui;
      best = msg.best;
      title.textContent = msg.title ?? modelId;
      document.title = `Training: ${msg.title ?? modelId}`;
      if (msg.focus) ui = { ...ui, selected: [msg.focus] };
      vscode.setState({ modelId, ui });
      if (msg.focus) post({ type: 'ui', ui });
      pendingFocus = msg.focus;
      return;
    case 'data': {
      series.mergeColumns(columnsFromWire(msg.columns));
      since = received;
      // While more is coming, the first rows draw within FIRST_DRAW_MS (the charts are built
      // then; later pages only give them new data), and then at most once a second.
      draw('all', msg.done);
      if (msg.done && pendingFocus) {
        const id = pendingFocus;
        pendingFocus = undefined;
        requestAnimationFrame(() => table.reveal(id));
      }
      return;
    }
    case 'status': {
      const splitsBefore = status?.file?.splits.join('\n');
      status = msg.status;
      showStatus();
      if (status.file && status.file.splits.join('\n') !== splitsBefore) draw('marks');
      return;
    }
    case 'focus':
      since = received;
      setUi({ ...ui, selected: [msg.checkpointId] }, 'marks');
      requestAnimationFrame(() => table.reveal(msg.checkpointId));
      return;
    case 'distribution':
      distribution.add(msg.split, msg.steps, msg.done);
      return;
    case 'reset':
      series.clear();
      chartsBuilt = false;
      since = received;
      draw('all');
      return;
  }
});
let pendingFocus: string | undefined;

post({ type: 'ready' });
