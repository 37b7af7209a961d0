/**
 * Deep links: `<scheme>://svc.svc-vscode/thread?project=<p>&id=<id>`, `…/model?id=<m>` and
 * `…/checkpoint?model=<m>&step=<n>`. Building and reading them. Pure: no vscode import.
 *
 * The scheme is the receiving editor's (vscode, vscode-insiders, code-oss…): a link opens in the
 * window of whoever clicks it. VS Code hands the handler a URI whose query is already
 * percent-decoded, so a value holding `&` cannot be told from the next parameter: such links are
 * not built (linkFor refuses), and reading splits on `&` and the first `=` without decoding again.
 */

import { isProjectId } from '../api/refs';

/** The extension's id, `publisher.name` of package.json: the authority of every link. */
export const LINK_AUTHORITY = 'svc.svc-vscode';

export type LinkTarget =
  | { kind: 'thread'; project: string; threadId: string }
  | { kind: 'model'; modelId: string }
  | { kind: 'checkpoint'; modelId: string; step: number };

export type ParsedLink = { ok: true; target: LinkTarget } | { ok: false; reason: string };

/** The link to `target`, for an editor whose URI scheme is `scheme`; throws when a value cannot be carried. */
export function linkFor(scheme: string, target: LinkTarget): string {
  const params: [string, string][] =
    target.kind === 'thread'
      ? [['project', target.project], ['id', target.threadId]]
      : target.kind === 'model'
        ? [['id', target.modelId]]
        : [['model', target.modelId], ['step', String(target.step)]];
  for (const [name, value] of params) {
    if (!value) throw new Error(`a link needs a ${name}`);
    if (value.includes('&')) throw new Error(`the ${name} "${value}" holds "&", which a link cannot carry`);
  }
  const query = params.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
  return `${scheme}://${LINK_AUTHORITY}/${target.kind}?${query}`;
}

/** The parameters of an already decoded query: split on `&`, then on the first `=`. */
function params(query: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (!out.has(name)) out.set(name, eq < 0 ? '' : part.slice(eq + 1));
  }
  return out;
}

/** What a link (its path and decoded query, as VS Code gives them) asks for, or what is wrong with it. */
export function parseLink(path: string, query: string): ParsedLink {
  const p = params(query);
  const need = (name: string): string | undefined => {
    const v = p.get(name)?.trim();
    return v ? v : undefined;
  };
  const missing = (...names: string[]): ParsedLink => ({ ok: false, reason: `it has no ${names.map((n) => `"${n}"`).join(' or ')} parameter` });
  switch (path.replace(/\/+$/, '')) {
    case '/thread': {
      const project = need('project');
      const threadId = need('id');
      if (!project || !threadId) return missing(...(!project ? ['project'] : []), ...(!threadId ? ['id'] : []));
      if (!isProjectId(project)) return { ok: false, reason: `its project "${project}" is not of the form entity/project` };
      return { ok: true, target: { kind: 'thread', project, threadId } };
    }
    case '/model': {
      const modelId = need('id');
      return modelId ? { ok: true, target: { kind: 'model', modelId } } : missing('id');
    }
    case '/checkpoint': {
      const modelId = need('model');
      const step = need('step');
      if (!modelId || step === undefined) return missing(...(!modelId ? ['model'] : []), ...(step === undefined ? ['step'] : []));
      if (!/^\d{1,15}$/.test(step)) return { ok: false, reason: `its step "${step}" is not a whole number of 0 or more` };
      return { ok: true, target: { kind: 'checkpoint', modelId, step: Number(step) } };
    }
    default:
      return { ok: false, reason: `"${path || '/'}" is none of /thread, /model or /checkpoint` };
  }
}
