/**
 * What the two paths of the `.json` reader (jsonFile.ts: read whole; jsonStream.ts: streamed) say
 * alike: the accepted shapes, where a group sits, and the top-level members besides the groups.
 * No `vscode` import.
 */
import { formatPath } from '../api/errors';
import { kindOf } from './issues';
import type { JsonPath } from './jsonText';
import type { Problem } from './problems';
import type { ValidationSummary } from './reader';
import { dict } from '../api/dict';

export const SHAPES = 'Expected {"trajectory_groups": [...]}, an array of groups or one group {"trajectories": [...]}';

export type Shape = 'request' | 'array' | 'single';

/** Where group `i` sits in the document. */
export function groupPath(shape: Shape, i: number): JsonPath {
  if (shape === 'single') return [];
  return shape === 'request' ? ['trajectory_groups', i] : [i];
}
export const whereOf = (base: JsonPath) => (base.length ? formatPath(base) : 'The file');

/** A JSON syntax problem: VS Code's JSON language service reports it too in an open document. */
export function syntax(p: Problem): Problem {
  p.shownBy = 'json';
  return p;
}

export const jsonlHint = (code: string) => (code === 'EndOfFileExpected' ? ' (one group per line belongs in a .jsonl file)' : undefined);

/** A member that makes a document one group (a compact group may have only `exceptions`) or a bare trajectory. */
export const isSingleKey = (key: string) => key === 'trajectories' || key === 'exceptions' || key === 'messages_and_choices' || key === 'exchanges';

/** What the service refuses in a top-level member besides the groups. */
export function memberProblem(key: string, value: unknown): string | undefined {
  if (key !== 'split' || value === null) return undefined;
  if (typeof value !== 'string') return `split: expected string, received ${kindOf(value)}`;
  return value === '' ? 'split: must not be empty' : undefined;
}

export function recordMember(summary: ValidationSummary, key: string, value: unknown, text: string): void {
  if (key !== 'split') (summary.members ??= dict())[key] = text;
  else if (typeof value === 'string') summary.split = value;
}
