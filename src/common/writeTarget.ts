/**
 * Where a scripted command may write a file: inside a workspace folder, and nowhere else (a path
 * the user picked in a save dialog needs no check: the user chose it). Plain Node, no vscode.
 *
 * The check is on real paths: the parent folder's symlinks are resolved (a link in the workspace
 * to /etc is not the workspace), and a file that already exists as a symlink is judged by where
 * it points (writing follows the link).
 */
import * as fs from 'fs';
import * as path from 'path';

export type WriteTarget = { ok: true; path: string } | { ok: false; reason: string };

/** The real path of `p`, or undefined when it does not exist. */
async function real(p: string): Promise<string | undefined> {
  try {
    return await fs.promises.realpath(p);
  } catch {
    return undefined;
  }
}

function inside(folder: string, target: string): boolean {
  const rel = path.relative(folder, target);
  return rel !== '' && !rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel);
}

/**
 * Checks that `file` (absolute, or relative to the first folder) is a file inside one of
 * `folders` once links are resolved. `what` names the caller in the reason (e.g. the command).
 */
export async function checkWriteTarget(file: string, folders: readonly string[], what: string): Promise<WriteTarget> {
  if (!folders.length) return { ok: false, reason: `${what} writes only inside a workspace folder, and no folder is open: open one, or leave out "path" to pick the file in a save dialog.` };
  const resolved = path.isAbsolute(file) ? path.resolve(file) : path.resolve(folders[0]!, file);
  const parent = await real(path.dirname(resolved));
  if (!parent) return { ok: false, reason: `${what}: the folder of ${resolved} does not exist.` };
  let target = path.join(parent, path.basename(resolved));
  // A file that is already there may be a link: the write would go where it points.
  const existing = await real(target);
  if (existing) target = existing;
  try {
    if ((await fs.promises.stat(target)).isDirectory()) return { ok: false, reason: `${what}: ${resolved} is a folder, not a file.` };
  } catch {
    // not there yet: it is created
  }
  const roots = (await Promise.all(folders.map(real))).filter((f): f is string => !!f);
  if (roots.some((root) => inside(root, target))) return { ok: true, path: resolved };
  const shown = target === resolved ? resolved : `${resolved} (${target} once links are resolved)`;
  return {
    ok: false,
    reason: `${what} writes only inside a workspace folder (${folders.join(', ')}): ${shown} is not. Leave out "path" to pick the file in a save dialog.`,
  };
}
