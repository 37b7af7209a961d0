/**
 * The one parser of a command's scripting argument (an arguments object, see commands.ts): a zod
 * schema per command, and one readable refusal naming the command and the field. It never imports
 * `vscode`, so it is tested in plain Node.
 *
 * A schema's own message (`z.string({ error: '…' })`) is kept as written; a check without one gets
 * a sentence that says what the field must be (`"file" must be a string`, `unknown argument
 * "bogus"`). Either way the message starts with the command's id.
 */
import { z } from 'zod';
import { InputError, formatPath } from '../api';

/** A field's name in a message: `"left.trajectory"`, or "the argument" for the whole value. */
function fieldName(path: readonly PropertyKey[] | undefined): string {
  return path?.length ? `"${formatPath(path)}"` : 'the argument';
}

const KINDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  bigint: 'an integer',
};

const quote = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : String(v));

/** The sentence for a check the schema gave no message of its own. */
function readableIssue(issue: z.core.$ZodRawIssue): string {
  const field = fieldName(issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const kind = KINDS[issue.expected] ?? `a ${issue.expected}`;
      if (issue.input === undefined) return issue.expected === 'nonoptional' ? `${field} is needed` : `${field} is needed (${kind})`;
      return `${field} must be ${kind}`;
    }
    case 'too_small': {
      const n = Number(issue.minimum);
      if (issue.origin === 'string') return n === 1 ? `${field} must be a non-empty string` : `${field} must be at least ${n} characters long`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${field} must hold at least ${n} item${n === 1 ? '' : 's'}`;
      return `${field} must be ${issue.inclusive ? 'at least' : 'above'} ${n}`;
    }
    case 'too_big': {
      const n = Number(issue.maximum);
      if (issue.origin === 'string') return `${field} must be at most ${n} characters long`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${field} must hold at most ${n} item${n === 1 ? '' : 's'}`;
      return `${field} must be ${issue.inclusive ? 'at most' : 'below'} ${n}`;
    }
    case 'invalid_value':
      return `${field} must be ${issue.values.map(quote).join(' or ')}, not ${quote(issue.input)}`;
    case 'unrecognized_keys':
      return `unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map(quote).join(', ')}`;
    case 'invalid_format':
      return `${field} must be ${issue.format === 'regex' ? 'of the form the command takes' : `a ${issue.format}`}`;
    default:
      return `${field} is not valid`;
  }
}

/**
 * Parses `value`, the scripting argument of `command`, with `schema`. Refused: an InputError naming
 * the command and the first field found wrong (its `place.field` too), followed by `usage` (what
 * the command takes) when given.
 */
export function parseArgs<S extends z.ZodType>(command: string, schema: S, value: unknown, usage?: string): z.output<S> {
  const result = schema.safeParse(value, { error: readableIssue });
  if (result.success) return result.data;
  const first = result.error.issues[0]!;
  const said = first.message.startsWith(command) ? first.message : `${command}: ${first.message}`;
  const message = `${said.replace(/\.$/, '')}.${usage ? ` ${command} takes ${usage}.` : ''}`;
  const field = formatPath(first.path);
  throw new InputError(message, field ? { field } : {});
}

/**
 * A string with at least one character that is not white space, kept as written (not trimmed).
 * Anything else (missing, not a string, blank) is refused with `message`, by default
 * `"<field>" must be a non-empty string`.
 */
export function nonBlank(message?: string): z.ZodString {
  const error = (issue: { path?: PropertyKey[] }) => message ?? `${fieldName(issue.path)} must be a non-empty string`;
  return z.string({ error }).refine((s) => s.trim() !== '', { error });
}

/** Where a setting is written: `"user"` or `"workspace"` (a scripted `scope`). */
export const settingsScope = z.enum(['user', 'workspace'], { error: (issue) => `${issue.path?.length ? formatPath(issue.path) : 'scope'} must be "user" or "workspace", not ${JSON.stringify(issue.input)}` });
