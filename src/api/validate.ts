import type { z } from 'zod';
import { ProtocolError, ValidationError, formatPath, type FieldIssue, type RequestInfo } from './errors';

/** Checks a request input against its schema; refuses it before sending with every issue found. */
export function checkRequest<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues: FieldIssue[] = result.error.issues.map((i) => ({
    loc: ['body', ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
    msg: i.message,
    type: i.code,
  }));
  const summary = result.error.issues
    .slice(0, 3)
    .map((i) => `${formatPath(i.path) || '(root)'}: ${i.message}`)
    .join('; ');
  const more = result.error.issues.length > 3 ? ` (and ${result.error.issues.length - 3} more)` : '';
  return fail(`Invalid ${what}: ${summary}${more}`, issues);

  function fail(message: string, list: FieldIssue[]): never {
    throw new ValidationError(message, { issues: list, source: 'client' });
  }
}

/** Parses a response against its schema; a mismatch is a ProtocolError naming the field. */
export function parseResponse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  info: RequestInfo,
  status?: number,
  prefix: PropertyKey[] = [],
  line?: number,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const first = result.error.issues[0]!;
  const fieldPath = formatPath([...prefix, ...first.path]) || '(root)';
  const where = line !== undefined ? ` on line ${line}` : '';
  throw new ProtocolError(
    `The service's response to ${info.method} ${info.path} does not match the contract${where}: ${fieldPath}: ${first.message}`,
    { request: info, status, fieldPath, line },
  );
}
