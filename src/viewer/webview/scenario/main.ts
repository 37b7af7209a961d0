/**
 * "Follow Scenario Across Steps": the table of one scenario across the steps of a run (step →
 * rewards and final answers of its rollouts, the first step whose answer changed marked), each
 * step's file a click away, and two rollouts picked as A and B compared side by side. Every message
 * in is checked before use; every text goes in as text.
 */
import './style.css';
import { FromScenario, ToScenario } from '../../scenarioProtocol';
import { parseMessage } from '../../../webview/protocol';
import { h } from '../../../webview/dom';

const vscode = acquireVsCodeApi();
const post = (m: FromScenario) => vscode.postMessage(m);
const app = document.getElementById('app')!;

type History = Extract<ToScenario, { type: 'history' }>;
type Place = { step: number; group: number; trajectory: number };
const picked: { a?: Place; b?: Place } = {};
const fmt = (r: number | null) => (r === null ? '—' : String(Number(r.toFixed(4))));

function render(m: History): void {
  const compare = h('button', { disabled: true, onclick: () => picked.a && picked.b && post({ type: 'compare', left: picked.a, right: picked.b }) }, 'Compare A ↔ B');
  const update = () => {
    compare.disabled = !(picked.a && picked.b);
    compare.title = picked.a && picked.b ? `step ${picked.a.step} ${picked.a.group + 1}.${picked.a.trajectory + 1} ↔ step ${picked.b.step} ${picked.b.group + 1}.${picked.b.trajectory + 1}` : 'Pick a rollout as A and one as B';
  };
  const found = m.steps.filter((s) => s.rollouts.length);
  const summary =
    (found.length ? `Found at ${found.length} of ${m.read} step files of "${m.split}" (key "${m.key}", else the first user message). ` : '') +
    (m.firstChange !== undefined ? `The answer first changed at step ${m.firstChange}.` : found.length ? 'The answer never changed.' : '');
  const rows: HTMLElement[] = [];
  for (const s of m.steps) {
    const open = h('button', { class: 'link', title: `Open ${s.file} in the trajectory viewer`, onclick: () => post({ type: 'open', step: s.step }) }, String(s.step));
    if (s.error) {
      rows.push(h('tr', { class: 'error' }, h('td', {}, open), h('td', { colspan: 4 }, `${s.file} could not be read: ${s.error}`)));
      continue;
    }
    s.rollouts.forEach((r, i) => {
      const place = { step: s.step, group: r.group, trajectory: r.trajectory };
      const radio = (side: 'a' | 'b') =>
        h('label', {}, h('input', { type: 'radio', name: side, 'aria-label': `${side.toUpperCase()}: step ${s.step}, group ${r.group + 1}, trajectory ${r.trajectory + 1}`, onchange: () => ((picked[side] = place), update()) }), side.toUpperCase());
      rows.push(
        h(
          'tr',
          { class: s.changed ? 'changed' : undefined, 'data-step': s.step },
          h('td', {}, i === 0 ? open : '', i === 0 && s.changed ? h('span', { class: 'mark', title: 'The answers differ from the step before' }, ' ◆ changed') : ''),
          h('td', { class: 'num' }, `${r.group + 1}.${r.trajectory + 1}`),
          h('td', { class: 'num' }, fmt(r.reward)),
          h('td', { class: 'answer' }, r.answer + (r.cut ? ' …' : '')),
          h('td', {}, radio('a'), ' ', radio('b')),
        ),
      );
    });
    if (s.more) rows.push(h('tr', {}, h('td', {}), h('td', { colspan: 4 }, `${s.more} more rollouts of this step not listed`)));
  }
  app.replaceChildren(
    h('h1', {}, `Scenario ${m.scenario.replace(/\s+/g, ' ').slice(0, 200)}`),
    h('p', {}, `${m.title} · ${summary}`),
    h('div', { class: 'bar' }, compare),
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'step'), h('th', {}, 'group.trajectory'), h('th', {}, 'reward'), h('th', {}, 'final answer'), h('th', {}, 'compare'))), h('tbody', {}, rows)),
    ...m.notes.map((n) => h('p', {}, n)),
  );
  app.removeAttribute('aria-busy');
  update();
  post({ type: 'rendered', rows: app.querySelectorAll('tbody tr[data-step]').length, changed: m.steps.filter((s) => s.changed).map((s) => s.step), compare: !compare.disabled });
}

window.addEventListener('message', (e: MessageEvent) => {
  const m = parseMessage(ToScenario, e.data);
  if (m.ok && m.value.type === 'history') render(m.value);
});
post({ type: 'ready' });
