/**
 * Tokens, durations and API names of exchanges as people read them; shared by the webview and the
 * Compare transcript (src/viewer/transcript.ts), so both say the same. No `vscode`, no DOM.
 */
import type { ExchangeTotals, ExchangeView, TokenUsage } from './protocol';

const n = (v: number) => v.toLocaleString('en-US');

/** "230 in (0 cached) · 57 out (21 reasoning) · 287 tokens"; '' when nothing was reported. */
export function tokensText(u: TokenUsage): string {
  const parts: string[] = [];
  if (u.input !== undefined) parts.push(`${n(u.input)} in${u.cached ? ` (${n(u.cached)} cached)` : ''}`);
  if (u.output !== undefined) parts.push(`${n(u.output)} out${u.reasoning ? ` (${n(u.reasoning)} reasoning)` : ''}`);
  if (u.total !== undefined) parts.push(`${n(u.total)} tokens`);
  return parts.join(' · ');
}

/** "850 ms", "1.50 s", "2 min 5 s". */
export function durationText(ms: number): string {
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const API_NAMES: Record<string, string> = { chat_completions: 'Chat Completions', completions: 'Completions', responses: 'Responses', messages: 'Anthropic Messages' };

/** "Exchange 2 · Responses · gpt-4.1-mini · 1.50 s · 230 in · 57 out · 287 tokens". */
export function exchangeTitle(x: ExchangeView, position: number): string {
  return [`Exchange ${position + 1}`, API_NAMES[x.kind] ?? x.kind, x.model, x.durationMs !== undefined ? durationText(x.durationMs) : undefined, tokensText(x.usage) || undefined].filter(Boolean).join(' · ');
}

/** "3 exchanges · 4.50 s in requests · 690 in · 171 out · 861 tokens". */
export function totalsText(t: ExchangeTotals): string {
  return [`${n(t.exchanges)} ${t.exchanges === 1 ? 'exchange' : 'exchanges'}`, t.durationMs !== undefined ? `${durationText(t.durationMs)} in requests` : undefined, tokensText(t.usage) || undefined].filter(Boolean).join(' · ');
}
