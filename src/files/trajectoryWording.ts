/**
 * What the trajectory format says better than the generic messages of src/files/issues.ts: the
 * items of `messages_and_choices` (a chat message or a choice) and the fields that depend on a
 * message's role. Passed in by the trajectory reader (reader.ts) when it turns zod issues into
 * problems. No `vscode` import.
 */
import { isObject } from '../api/json';
import { kindOf, type IssueWording } from './issues';

export const TRAJECTORY_WORDING: IssueWording = {
  unionOption(path, value, options) {
    // Items of messages_and_choices: a message when it has `role`, a choice otherwise (as the server decides).
    const field = [...path].reverse().find((p) => typeof p === 'string');
    if (field !== 'messages_and_choices' || options !== 2) return undefined;
    if (!isObject(value)) return `expected object, received ${kindOf(value)}`;
    if ('role' in value) return 0;
    if ('finish_reason' in value || 'message' in value) return 1;
    return 'expected a chat message (with "role") or a choice (with "finish_reason" and "message")';
  },

  missingField(field, parent) {
    if (field === 'content' && typeof parent.role === 'string') return 'required field is missing: only assistant messages may leave out content (null is allowed)';
    if (field === 'tool_call_id' && parent.role === 'tool') return 'required field is missing: a tool message names the tool call it answers';
    return undefined;
  },

  unknownKey(key, obj) {
    const role = isObject(obj) && typeof obj.role === 'string' ? obj.role : undefined;
    if (role !== undefined && key === 'tool_calls' && role !== 'assistant') return `unknown field: only assistant messages have tool_calls, this is a ${role} message`;
    if (role !== undefined && key === 'tool_call_id' && role !== 'tool') return `unknown field: only tool messages have tool_call_id, this is a ${role} message`;
    return undefined;
  },
};
