import assert from 'node:assert/strict';
import {
  charCount,
  COMMON_EMOJI,
  emojiProblem,
  feedbackTypeProblem,
  isSingleEmoji,
  MAX_NOTE_CHARS,
  MAX_PAYLOAD_BYTES,
  noteProblem,
  parsePayloadText,
  payloadProblem,
  payloadProblemFor,
} from '../../../src/feedback/payload';

describe('feedback/payload', () => {
  describe('notes', () => {
    it('accepts 1 to 1024 characters', () => {
      assert.equal(noteProblem('x'), undefined);
      assert.equal(noteProblem('x'.repeat(MAX_NOTE_CHARS)), undefined);
    });
    it('refuses an empty, blank or too long note, saying how long it is', () => {
      assert.match(noteProblem('')!, /must not be empty/);
      assert.match(noteProblem('  \n ')!, /must not be empty/);
      assert.match(noteProblem('x'.repeat(MAX_NOTE_CHARS + 1))!, /1025 characters long; at most 1024/);
      assert.match(noteProblem(42)!, /must be text/);
    });
    it('counts code points, as the service does: 1024 astral characters are fine', () => {
      const emoji = '😀'.repeat(MAX_NOTE_CHARS);
      assert.equal(emoji.length, 2048);
      assert.equal(charCount(emoji), 1024);
      assert.equal(noteProblem(emoji), undefined);
      assert.match(noteProblem(emoji + '😀')!, /1025/);
    });
  });

  describe('reactions: exactly one emoji', () => {
    for (const ok of ['👍', '❤️', '❤', '👍🏽', '👨‍👩‍👧', '🧑‍💻', '🏳️‍🌈', '🇫🇷', '🇯🇵', '1️⃣', '#️⃣', '✅']) {
      it(`accepts ${ok}`, () => {
        assert.equal(isSingleEmoji(ok), true);
        assert.equal(emojiProblem(ok), undefined);
      });
    }
    for (const [bad, why] of [
      ['', /one emoji/],
      ['👍👍', /exactly one emoji/],
      ['👍 ', /without spaces/],
      [' 👍', /without spaces/],
      ['a', /exactly one emoji/],
      ['1', /exactly one emoji/],
      [':thumbs_up:', /exactly one emoji/],
      ['🇫', /exactly one emoji/], // half a flag
      ['🇫🇷🇯🇵', /exactly one emoji/],
      ['👍a', /exactly one emoji/],
    ] as const) {
      it(`refuses ${JSON.stringify(bad)}`, () => {
        assert.match(emojiProblem(bad)!, why);
      });
    }
    it('refuses a non-string', () => assert.match(emojiProblem(undefined)!, /one emoji/));
    it('offers about a dozen common emoji, each valid', () => {
      assert.ok(COMMON_EMOJI.length >= 10 && COMMON_EMOJI.length <= 16);
      for (const e of COMMON_EMOJI) assert.equal(isSingleEmoji(e.emoji), true, e.emoji);
      assert.deepEqual(
        COMMON_EMOJI.map((e) => e.emoji),
        ['👍', '👎', '❤️', '🎉', '😄', '😕', '🚀', '👀', '✅', '❌', '🤔', '🔥'],
      );
    });
  });

  describe('custom payloads', () => {
    it('must be a JSON object', () => {
      assert.equal(payloadProblem({}), undefined);
      assert.equal(payloadProblem({ a: [1, { b: null }] }), undefined);
      assert.match(payloadProblem([])!, /JSON object .* not an array/);
      assert.match(payloadProblem(null)!, /not null/);
      assert.match(payloadProblem('x')!, /not a string/);
      assert.match(payloadProblem(3)!, /not a number/);
    });
    it('must be under 1 MiB as UTF-8 JSON', () => {
      // {"s":"…"} is 8 bytes of overhead.
      const under = { s: 'x'.repeat(MAX_PAYLOAD_BYTES - 9) };
      assert.equal(Buffer.byteLength(JSON.stringify(under)), MAX_PAYLOAD_BYTES - 1);
      assert.equal(payloadProblem(under), undefined);
      const at = { s: 'x'.repeat(MAX_PAYLOAD_BYTES - 8) };
      assert.match(payloadProblem(at)!, /1 MiB as JSON; it must be under 1 MiB/);
      // Multi-byte characters count by their UTF-8 size, not their UTF-16 length.
      const wide = { s: 'é'.repeat(MAX_PAYLOAD_BYTES / 2) };
      assert.ok(JSON.stringify(wide).length < MAX_PAYLOAD_BYTES);
      assert.match(payloadProblem(wide)!, /under 1 MiB/);
    });
    it('parses the document text, naming syntax errors by line and column', () => {
      assert.deepEqual(parsePayloadText('{\n  \n}'), { ok: true, payload: {} });
      assert.deepEqual(parsePayloadText('\uFEFF{"score": 0.5}'), { ok: true, payload: { score: 0.5 } });
      const trailing = parsePayloadText('{\n  "a": 1,\n}');
      assert.equal(trailing.ok, false);
      // Worded as in a trajectory file: the comma itself, not the bracket after it.
      assert.equal(!trailing.ok ? trailing.reason : '', 'The payload is not valid JSON: trailing comma at line 2, column 9.');
      const comment = parsePayloadText('{\n  // note\n  "a": 1\n}');
      assert.match(!comment.ok ? comment.reason : '', /comments are not allowed .* line 2, column 3/);
      const empty = parsePayloadText('  ');
      assert.match(!empty.ok ? empty.reason : '', /document is empty/);
      const array = parsePayloadText('[1, 2]');
      assert.match(!array.ok ? array.reason : '', /must be a JSON object/);
      const big = parsePayloadText(JSON.stringify({ s: 'x'.repeat(MAX_PAYLOAD_BYTES) }));
      assert.match(!big.ok ? big.reason : '', /under 1 MiB/);
    });
    it('checks feedback types: free-form, but svc.* is reserved except note and reaction', () => {
      assert.equal(feedbackTypeProblem('score'), undefined);
      assert.equal(feedbackTypeProblem('svc.note.1'), undefined);
      assert.match(feedbackTypeProblem('')!, /Enter a feedback type/);
      assert.match(feedbackTypeProblem(' score')!, /spaces/);
      assert.match(feedbackTypeProblem('svc.annotation.x')!, /reserved/);
    });
    it('applies the reserved shapes to reserved types', () => {
      assert.equal(payloadProblemFor('score', { any: 1 }), undefined);
      assert.equal(payloadProblemFor('svc.note.1', { note: 'hi' }), undefined);
      assert.match(payloadProblemFor('svc.note.1', { note: 'hi', extra: 1 })!, /exactly \{"note"/);
      assert.match(payloadProblemFor('svc.note.1', { note: '' })!, /empty/);
      assert.match(payloadProblemFor('svc.reaction.1', { emoji: '👍👍' })!, /exactly one emoji/);
    });
  });
});
