/**
 * Assistant messages as markdown, sanitized by construction: markdown-it with `html: false`
 * escapes every tag in the text (a `<script>` shows as text), its link check refuses
 * `javascript:`, `vbscript:`, `file:` and `data:` links, and images are never loaded (the CSP
 * would block them too): each shows as its alt text and address.
 */
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });

md.renderer.rules.image = (tokens, idx, _options, _env, self) => {
  const token = tokens[idx]!;
  const alt = self.renderInlineAsText(token.children ?? [], _options, _env);
  const src = token.attrGet('src') ?? '';
  return `<span class="md-image" title="Images are not loaded">[image: ${md.utils.escapeHtml(alt)}] ${md.utils.escapeHtml(src)}</span>`;
};

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const href = tokens[idx]!.attrGet('href') ?? '';
  tokens[idx]!.attrSet('title', href);
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** Sanitized HTML for a markdown text. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
