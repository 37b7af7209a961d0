/**
 * Feedback payload rules (service note "POST /feedback/create"). Pure: no vscode import, unit-tested
 * in plain Node.
 *
 *   svc.note.1      {"note": "<1..1024 characters>"}
 *   svc.reaction.1  {"emoji": "<exactly one emoji>"}   (the server enriches it and returns it)
 *   any other type  a JSON object whose UTF-8 JSON is under 1 MiB
 */
import { isObject } from '../api/json';
import { formatBytes } from '../common/format';
import { firstSyntaxError, JsonText } from '../files/jsonText';

export const NOTE_TYPE = 'svc.note.1';
export const REACTION_TYPE = 'svc.reaction.1';
/** Characters are Unicode code points, as the service counts them. */
export const MAX_NOTE_CHARS = 1024;
/** The payload's JSON, in UTF-8, must stay strictly below this. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

export type JsonObject = Record<string, unknown>;

/** The reactions offered in the picker. */
export const COMMON_EMOJI: readonly { emoji: string; label: string }[] = [
  { emoji: '👍', label: 'thumbs up' },
  { emoji: '👎', label: 'thumbs down' },
  { emoji: '❤️', label: 'red heart' },
  { emoji: '🎉', label: 'party popper' },
  { emoji: '😄', label: 'grinning face with smiling eyes' },
  { emoji: '😕', label: 'confused face' },
  { emoji: '🚀', label: 'rocket' },
  { emoji: '👀', label: 'eyes' },
  { emoji: '✅', label: 'check mark' },
  { emoji: '❌', label: 'cross mark' },
  { emoji: '🤔', label: 'thinking face' },
  { emoji: '🔥', label: 'fire' },
];

/** Number of characters (code points) of a string, as the service counts a note's length. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Why a note cannot be sent, or undefined when it is fine. */
export function noteProblem(note: unknown): string | undefined {
  if (typeof note !== 'string') return 'The note must be text.';
  const n = charCount(note);
  if (n === 0 || note.trim() === '') return 'The note must not be empty.';
  if (n > MAX_NOTE_CHARS) return `The note is ${n} characters long; at most ${MAX_NOTE_CHARS} are allowed.`;
  return undefined;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * True when `s` is exactly one grapheme and that grapheme is an emoji: pictographs with their
 * variation selectors, skin tones and ZWJ sequences, flags (a pair of regional indicators) and
 * keycaps.
 */
export function isSingleEmoji(s: string): boolean {
  if (typeof s !== 'string' || s === '') return false;
  let count = 0;
  for (const _ of graphemes.segment(s)) if (++count > 1) return false;
  return /\p{Extended_Pictographic}/u.test(s) || /^\p{Regional_Indicator}{2}$/u.test(s) || /^[#*0-9]\uFE0F?\u20E3$/u.test(s);
}

/** Why a reaction cannot be sent, or undefined when it is exactly one emoji. */
export function emojiProblem(emoji: unknown): string | undefined {
  if (typeof emoji !== 'string' || emoji.trim() === '') return 'Enter one emoji.';
  if (emoji !== emoji.trim()) return 'Enter exactly one emoji, without spaces.';
  if (!isSingleEmoji(emoji)) return 'A reaction must be exactly one emoji.';
  return undefined;
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** Why a value cannot be a feedback payload: it must be a JSON object under 1 MiB as UTF-8 JSON. */
export function payloadProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `The payload must be a JSON object ({ … }), not ${describeJsonType(value)}.`;
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch (e) {
    return `The payload cannot be written as JSON: ${e instanceof Error ? e.message : String(e)}.`;
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes >= MAX_PAYLOAD_BYTES) {
    return `The payload is ${formatBytes(bytes)} as JSON; it must be under 1 MiB (${MAX_PAYLOAD_BYTES} bytes).`;
  }
  return undefined;
}

/**
 * Parses the text of the custom payload document: strict JSON, a JSON object, under 1 MiB.
 * Errors name the line and column of a syntax error.
 */
export function parsePayloadText(text: string): { ok: true; payload: JsonObject } | { ok: false; reason: string } {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { ok: false, reason: 'The payload document is empty; write a JSON object such as {"score": 1}.' };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    // Worded as a syntax error in a trajectory file is (src/files/jsonText.ts).
    const error = firstSyntaxError(body);
    if (error) {
      const { line, column } = new JsonText('payload', body).position(error.offset);
      return { ok: false, reason: `The payload is not valid JSON: ${error.description} at line ${line}, column ${column}.` };
    }
    return { ok: false, reason: `The payload is not valid JSON: ${e instanceof Error ? e.message : String(e)}.` };
  }
  const problem = payloadProblem(value);
  return problem ? { ok: false, reason: problem } : { ok: true, payload: value as JsonObject };
}

/** Why a free-form feedback type cannot be used, or undefined. */
export function feedbackTypeProblem(type: unknown): string | undefined {
  if (typeof type !== 'string' || type.trim() === '') return 'Enter a feedback type, for example "score" or "label".';
  if (type !== type.trim()) return 'The feedback type must not start or end with spaces.';
  if (type === NOTE_TYPE || type === REACTION_TYPE) return undefined;
  if (type.startsWith('svc.')) {
    return `"${type}" is reserved by the service (only ${NOTE_TYPE} and ${REACTION_TYPE} can be sent from here); use a type without the "svc." prefix.`;
  }
  return undefined;
}

/** The payload rules of a feedback type: the reserved types have a fixed shape. */
export function payloadProblemFor(type: string, payload: unknown): string | undefined {
  const general = payloadProblem(payload);
  if (general) return general;
  const obj = payload as JsonObject;
  if (type === NOTE_TYPE) {
    if (Object.keys(obj).length !== 1 || !('note' in obj)) return `A ${NOTE_TYPE} payload must be exactly {"note": "<text>"}.`;
    return noteProblem(obj.note);
  }
  if (type === REACTION_TYPE) {
    if (Object.keys(obj).length !== 1 || !('emoji' in obj)) return `A ${REACTION_TYPE} payload must be exactly {"emoji": "<one emoji>"}.`;
    return emojiProblem(obj.emoji);
  }
  return undefined;
}
