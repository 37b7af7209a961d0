/**
 * A trajectory as a normalized plain-text transcript, for "Compare with…" in the diff editor:
 * one block per message in file order, tool call arguments pretty-printed, fields in a fixed order
 * and nothing that only differs in formatting. No `vscode` import.
 */
import type { MessageView, TrajectoryView } from './protocol';
import { exchangeTitle, totalsText } from './usageText';

function messageBlock(m: MessageView): string[] {
  const head = [`## ${m.index + 1}. ${m.role}`];
  if (m.name) head.push(`(${m.name})`);
  if (m.trainable) head.push('[trainable]');
  if (m.finishReason) head.push(`finish_reason=${m.finishReason}`);
  if (m.callName) head.push(`result of ${m.callName}${m.toolCallId ? ` (${m.toolCallId})` : ''}`);
  else if (m.toolCallId) head.push(`tool_call_id=${m.toolCallId}`);
  const out = [head.join(' '), ''];
  if (m.reasoning) out.push('<reasoning>', m.reasoning, '</reasoning>', '');
  for (const p of m.parts) out.push(p.kind === 'text' ? p.text : `[${p.label ?? p.kind}] ${p.text}`, '');
  if (m.refusal) out.push(`[refusal] ${m.refusal}`, '');
  for (const c of m.toolCalls) out.push(`→ ${c.legacy ? 'function call' : 'tool call'} ${c.name}${c.id ? ` (${c.id})` : ''}`, c.arguments, '');
  return out;
}

export function transcript(v: TrajectoryView, title: string): string {
  const s = v.summary;
  const lines = [`# ${title}`, '', `reward: ${s.reward ?? s.rewardText ?? 'invalid'}${s.rewardMissing ? ' (not in the file; the service takes 0)' : ''}`];
  if (s.totals) lines.push(totalsText(s.totals));
  for (const [k, val] of v.metrics) lines.push(`metric ${k}: ${val}`);
  for (const [k, val] of v.metadata) lines.push(`metadata ${k}: ${val}`);
  for (const [k, val] of v.info) lines.push(`${k}: ${val}`);
  lines.push('');
  if (v.tools.length) {
    lines.push('## tools', '');
    for (const t of v.tools) lines.push(`- ${t.name}${t.description ? `: ${t.description}` : ''}`);
    lines.push('');
  }
  if (v.exchanges) {
    v.exchanges.forEach((x, i) => {
      lines.push(`# ${exchangeTitle(x, i)}`, '');
      if (x.skipped) lines.push(`(${x.skipped} earlier messages of the request not repeated)`, '');
      for (const m of v.messages.slice(x.start, x.end)) lines.push(...messageBlock(m));
    });
  } else for (const m of v.messages) lines.push(...messageBlock(m));
  v.histories.forEach((h, i) => {
    lines.push(`# additional history ${i + 1}`, '');
    for (const m of h.messages) lines.push(...messageBlock(m));
  });
  if (v.logs.length) lines.push('## logs', '', ...v.logs, '');
  return lines.join('\n');
}
