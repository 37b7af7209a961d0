import assert from 'node:assert/strict';
import { TrajectoryGroup } from '../../../src/api/schemas/models';
import { parsePayloadText } from '../../../src/feedback/payload';
import { firstSyntaxError, JsonText } from '../../../src/files/jsonText';
import { TRAJECTORY_WORDING } from '../../../src/files/trajectoryWording';

/** The problems' messages of `value` checked against the trajectory group schema. */
function messages(value: unknown, wording?: typeof TRAJECTORY_WORDING): string[] {
  const text = JSON.stringify(value, null, 2);
  const r = TrajectoryGroup.safeParse(value);
  assert.equal(r.success, false);
  return new JsonText('g.json', text).issueProblems(r.success ? [] : r.error.issues, value, [], wording).map((p) => p.message);
}

describe('files/issues: zod issues in a format\'s own words', () => {
  it('speaks generically unless the reader passes its format\'s wording', () => {
    const group = { trajectories: [{ messages_and_choices: [{ role: 'tool', content: '42' }], reward: 1 }] };
    assert.deepEqual(messages(group), ['trajectories[0].messages_and_choices[0].tool_call_id: required field is missing']);
    assert.deepEqual(messages(group, TRAJECTORY_WORDING), [
      'trajectories[0].messages_and_choices[0].tool_call_id: required field is missing: a tool message names the tool call it answers',
    ]);
  });

  it('lets the trajectory wording pick a chat message or a choice in messages_and_choices', () => {
    const neither = { trajectories: [{ messages_and_choices: [{ content: 'hi' }], reward: 1 }] };
    assert.deepEqual(messages(neither, TRAJECTORY_WORDING), [
      'trajectories[0].messages_and_choices[0]: expected a chat message (with "role") or a choice (with "finish_reason" and "message")',
    ]);
    // A message's missing content is explained by its role.
    const noContent = { trajectories: [{ messages_and_choices: [{ role: 'user' }], reward: 1 }] };
    assert.match(messages(noContent, TRAJECTORY_WORDING).join('\n'), /content: required field is missing: only assistant messages may leave out content/);
    assert.doesNotMatch(messages(noContent).join('\n'), /only assistant messages/);
  });
});

describe('files/jsonText: one wording of a JSON syntax error', () => {
  it('tells a feedback payload\'s syntax error in the words and place a trajectory file gets', () => {
    // Written out (not computed with the code under test): the place is the 1-based line and
    // column of the first character at fault, counted by hand on each text.
    const cases: { text: string; description: string; line: number; column: number }[] = [
      { text: '{\n  "a": 1,\n}', description: 'trailing comma', line: 2, column: 9 },
      { text: "{'a': 1}", description: "unexpected ' (strings and names need double quotes)", line: 1, column: 2 },
      { text: '{"a": 1} {"b": 2}', description: 'more content after the end of the JSON value', line: 1, column: 10 },
      { text: '{\n  // note\n  "a": 1\n}', description: 'comments are not allowed', line: 2, column: 3 },
      { text: '{"a": "line\nbreak"}', description: 'unterminated string (a line break inside a string must be written \\n)', line: 1, column: 7 },
      { text: '[1, 2', description: 'close bracket expected', line: 1, column: 6 },
    ];
    for (const { text, description, line, column } of cases) {
      assert.equal(firstSyntaxError(text)?.description, description, text);
      const problem = new JsonText('f.json', text).syntaxProblem()!;
      assert.deepEqual({ message: problem.message, line: problem.line, column: problem.column }, { message: `Invalid JSON: ${description}`, line, column }, text);
      assert.deepEqual(parsePayloadText(text), { ok: false, reason: `The payload is not valid JSON: ${description} at line ${line}, column ${column}.` }, text);
    }
  });
});
