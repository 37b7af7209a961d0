/**
 * Assistant messages as markdown, sanitized by construction: markdown-it with `html: false`
 * escapes every tag in the text (a `<script>` shows as text), its link check refuses
 * `javascript:`, `vbscript:`, `file:` and `data:` links, and images are never loaded (the CSP
 * would block them too): each shows as its alt text and address. Links are not live either: each
 * shows its label and its target as text (issue 19).
 */
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });

md.renderer.rules.image = (tokens, idx, _options, _env, self) => {
  const token = tokens[idx]!;
  const alt = self.renderInlineAsText(token.children ?? [], _options, _env);
  const src = token.attrGet('src') ?? '';
  return `<span class="md-image" title="Images are not loaded">[image: ${md.utils.escapeHtml(alt)}] ${md.utils.escapeHtml(src)}</span>`;
};

// Links are text: a trajectory file is untrusted, and a live `vscode:` link would reach another
// extension's URI handler, an `https:` one a site the file chose. The label shows, then the
// target in full, and nothing is clickable.
md.renderer.rules.link_open = (tokens, idx, _options, env: { links?: string[] }) => {
  const href = tokens[idx]!.attrGet('href') ?? '';
  (env.links ??= []).push(href);
  return `<span class="md-link" title="Links in trajectory files are not opened">`;
};
md.renderer.rules.link_close = (_tokens, _idx, _options, env: { links?: string[] }) => {
  const href = env.links?.pop() ?? '';
  return `</span> <span class="md-link-target">(${md.utils.escapeHtml(href)})</span>`;
};

/** Sanitized HTML for a markdown text. */
export function renderMarkdown(text: string): string {
  return md.render(text, {});
}
