/**
 * Which local files the read tools (svc_summarize_run's historyFile, svc_summarize_trajectories)
 * may read. A model chooses the path, and what a tool reads reaches the model: so a file is read
 * without asking only under the host's read roots (VS Code: the workspace folders; the MCP server:
 * its `--root` folders, by default its working directory), after links are resolved (a link in the
 * workspace to ~/.ssh/id_ed25519 is outside). Anything else is confirmed by the user first (VS Code,
 * the tool's confirmation) or refused by name (MCP: nobody can confirm). Only regular files: a
 * device or a pipe is refused by name. Pure: no vscode import.
 */
import { realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { entryKind } from '../../common/regular';
import { ToolProblem, type ToolHost } from './host';

/** What a run may read beyond the roots: the real paths the user confirmed. */
export interface RunContext {
  /** Whether the user confirmed reading this real path (outside the roots). Default: nothing was. */
  allowOutside?(realPath: string): boolean;
}

export interface ReadCheck {
  /** The path as given, made absolute (what the texts name). */
  shown: string;
  /** The path with every link resolved: what is checked and read. */
  real: string;
  /** Under one of the host's read roots (both sides resolved). */
  inside: boolean;
  /** The roots, resolved. */
  roots: string[];
}

/** Whether `p` is `root` or under it (both absolute and resolved). */
export function isUnder(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function resolvedRoots(host: ToolHost): Promise<string[]> {
  return Promise.all(host.readRoots().map((r) => realpath(r).catch(() => path.resolve(r))));
}

/**
 * The file a tool was asked to read, resolved and checked: it exists and is a regular file (a
 * ToolProblem naming it otherwise), and whether it is under the read roots.
 */
export async function checkRead(host: ToolHost, file: string, opts: { folders?: boolean } = {}): Promise<ReadCheck> {
  const shown = host.resolvePath(file);
  let real: string;
  try {
    real = await realpath(shown);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ToolProblem(code === 'ENOENT' || code === 'ENOTDIR' ? `${shown}: no such file.` : `Could not read ${shown}: ${code ?? (e instanceof Error ? e.message : String(e))}.`);
  }
  const st = await stat(real);
  if (!st.isFile() && !(opts.folders && st.isDirectory())) throw new ToolProblem(`${shown} is ${entryKind(st)}${real !== shown ? ` (${real})` : ''}, not a regular file: only regular files are read.`);
  const roots = await resolvedRoots(host);
  return { shown, real, roots, inside: roots.some((r) => isUnder(r, real)) };
}

/** Why a file outside the roots was not read, naming it and how to allow it. */
export function outsideText(host: ToolHost, c: ReadCheck): string {
  const where = c.real !== c.shown ? `${c.shown} (a link to ${c.real})` : c.shown;
  const roots = c.roots.length ? c.roots.join(', ') : 'none';
  return host.outsideRoots === 'refuse'
    ? `${where} is outside the folders this server reads (${roots}): not read. Start the MCP server with --root <folder> to let it read files under that folder.`
    : `${where} is outside the workspace folders (${roots}): not read without the user's confirmation.`;
}

/**
 * The real path to read for `file`: under the read roots, or one the user confirmed. A ToolProblem
 * naming the file otherwise.
 */
export async function readablePath(host: ToolHost, file: string, context: RunContext = {}, opts: { folders?: boolean } = {}): Promise<{ shown: string; real: string; roots: string[] }> {
  const c = await checkRead(host, file, opts);
  if (!c.inside && !(host.outsideRoots === 'confirm' && context.allowOutside?.(c.real))) throw new ToolProblem(outsideText(host, c));
  return { shown: c.shown, real: c.real, roots: c.roots };
}
