/**
 * svc_search_trajectories: text or a regular expression across every step file of a training run
 * (or of files given one by one), with the run search's filters (src/search/runSearch.ts, the same
 * search as the command "svc: Search Run…"). Hits in step → group → trajectory order, each saying
 * where it is, with a snippet; cut at `limit` and the cut said. Reads only under the read roots
 * (core/access.ts). Pure: no vscode import.
 */
import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { InputError } from '../../api/errors';
import { filesAsSteps, runStepFiles, searchRun, type RunHit, type RunProblem, type StepFile } from '../../search/runSearch';
import { checkRead, isUnder, outsideText, readablePath, type RunContext } from './access';
import { count, cutNote, num, table } from './format';
import { ToolProblem, type ToolHost } from './host';
import type { SearchTrajectoriesInput } from './schemas';

/** Hits counted past the page before the count says "more than". */
const MAX_COUNTED = 100_000;
const MAX_PROBLEMS = 10;

export async function searchTrajectories(host: ToolHost, input: SearchTrajectoriesInput, signal?: AbortSignal, context: RunContext = {}): Promise<string> {
  const { files, label, skipped } = await stepFilesOf(host, input, context);
  const limit = input.limit ?? 20;
  const offset = input.offset ?? 0;
  const page: RunHit[] = [];
  const problems: RunProblem[] = [...skipped];
  const trajectories = new Set<string>();
  let seen = 0;
  let summary;
  try {
    summary = await searchRun(
      files,
      { query: input.query, regex: input.regex, split: input.split, steps: input.steps, reward: input.reward, role: input.role, tool: input.tool, verdict: input.verdict },
      {
        onHit: (h) => {
          trajectories.add(`${h.file}\u0000${h.group}\u0000${h.trajectory}`);
          if (seen >= offset && seen < offset + limit) page.push(h);
          seen++;
          return seen < MAX_COUNTED;
        },
        onProblem: (p) => problems.push(p),
      },
      signal,
    );
  } catch (e) {
    if (e instanceof InputError) throw new ToolProblem(e.message);
    throw e;
  }
  const total = summary.stopped ? undefined : summary.hits;
  const what = input.regex ? `/${input.query}/` : `“${input.query}”`;
  const lines = [`Searched ${count(summary.filesSearched)} of ${count(summary.files)} step files of ${label} for ${what}: ${summary.stopped ? `more than ${count(MAX_COUNTED)} hits` : plural(summary.hits, 'hit')} in ${plural(trajectories.size, 'trajectory', 'trajectories')} (a group's own fields count as one).`];
  const splits = [...new Set(files.map((f) => f.split))];
  if (files.length) lines.push(`Steps: ${splits.map((s) => `${s} ${stepRange(files.filter((f) => f.split === s).map((f) => f.step))}`).join('; ')}.`);
  if (page.length) {
    lines.push(
      table(
        ['split', 'step', 'group', 'trajectory', 'where', 'reward', 'snippet'],
        page.map((h) => [h.split, h.step, h.group, h.trajectory >= 0 ? h.trajectory : '', h.where, h.reward === undefined ? '' : num(h.reward), h.snippet]),
      ),
    );
    lines.push('group and trajectory are 0-based (as svc_explain_trajectory takes them); "where" counts from 1 as the viewer shows it.');
  } else if (summary.hits > 0) lines.push(`No hits from offset ${count(offset)}.`);
  const cut = cutNote(page.length, offset, total, 'hits', `pass offset ${offset + page.length} for more`);
  if (cut && page.length) lines.push(cut);
  if (problems.length) {
    lines.push(`Problems (${count(problems.length)}; those files or groups were skipped):`);
    for (const p of problems.slice(0, MAX_PROBLEMS)) lines.push(`- ${p.file}${p.at ? `, ${p.at}` : ''}: ${p.message}`);
    if (problems.length > MAX_PROBLEMS) lines.push(`- … and ${count(problems.length - MAX_PROBLEMS)} more.`);
  }
  return lines.join('\n');
}

const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** `1–8`, or `4, 8` when not contiguous. */
function stepRange(steps: readonly number[]): string {
  if (!steps.length) return 'none';
  const contiguous = steps.every((s, i) => i === 0 || s === steps[i - 1]! + 1);
  return contiguous && steps.length > 2 ? `${steps[0]}–${steps[steps.length - 1]}` : steps.join(', ');
}

/** The step files to search, each under the read roots (or confirmed); a ToolProblem naming what is not. */
async function stepFilesOf(host: ToolHost, input: SearchTrajectoriesInput, context: RunContext): Promise<{ files: StepFile[]; label: string; skipped: RunProblem[] }> {
  if (input.files) {
    const out: string[] = [];
    for (const f of input.files) out.push((await readablePath(host, f, context)).real);
    return { files: filesAsSteps(out), label: `${count(out.length)} files`, skipped: [] };
  }
  const shown = host.resolvePath(input.run!);
  let real: string;
  try {
    real = await realpath(shown);
  } catch {
    throw new ToolProblem(`${shown}: no such file or folder.`);
  }
  const roots = await Promise.all(host.readRoots().map((r) => realpath(r).catch(() => path.resolve(r))));
  if (!roots.some((r) => isUnder(r, real)) && !(host.outsideRoots === 'confirm' && context.allowOutside?.(real))) {
    throw new ToolProblem(outsideText(host, { shown, real, roots, inside: false }));
  }
  let files: StepFile[];
  try {
    files = await runStepFiles(real, input.split);
  } catch (e) {
    throw new ToolProblem(e instanceof Error ? e.message.replace(real, shown) : String(e));
  }
  // A step file may be a link out of the run: each is read only under the roots too.
  const inside: StepFile[] = [];
  const skipped: RunProblem[] = [];
  for (const f of files) {
    try {
      const c = await checkRead(host, f.file);
      if (c.inside || (host.outsideRoots === 'confirm' && context.allowOutside?.(real) && isUnder(/history\.jsonl$/.test(real) ? path.dirname(real) : real, c.real))) inside.push({ ...f, file: c.real });
      else skipped.push({ file: f.file, message: `a link to ${c.real}, outside the read roots: not read` });
    } catch (e) {
      skipped.push({ file: f.file, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return { files: inside, label: `the run ${shown}`, skipped };
}
