import assert from 'node:assert/strict';
import { parseRef } from '../../../src/api/refs';
import { commandArgs, findRefs, projectMismatch, refAt, refParts, refProblem, refsInText } from '../../../src/feedback/refText';

const CALL = 'svc:///acme/chatbot/call/0193-abc';
const OBJ = 'svc:///acme/chatbot/object/dataset:v3abc';

describe('feedback/refText', () => {
  describe('the ref under the cursor', () => {
    const line = `see ${CALL} and "${OBJ}".`;
    const callStart = 4;
    const callEnd = callStart + CALL.length;
    const objStart = line.indexOf(OBJ);

    it('finds the ref when the cursor is at its start, inside it, or just after it', () => {
      assert.equal(refAt(line, callStart)?.ref, CALL);
      assert.equal(refAt(line, callStart + 10)?.ref, CALL);
      assert.equal(refAt(line, callEnd)?.ref, CALL);
      assert.deepEqual([refAt(line, callStart)!.start, refAt(line, callStart)!.end], [callStart, callEnd]);
    });
    it('finds nothing when the cursor is not on a ref', () => {
      assert.equal(refAt(line, 0), undefined);
      assert.equal(refAt(line, callStart - 1), undefined);
      assert.equal(refAt(line, callEnd + 2), undefined);
      assert.equal(refAt('', 0), undefined);
    });
    it('tells two refs on a line apart, and stops at quotes', () => {
      assert.equal(refAt(line, objStart + 3)?.ref, OBJ);
      assert.equal(refAt(line, objStart + OBJ.length)?.ref, OBJ);
    });
    it('leaves sentence punctuation out', () => {
      assert.equal(refAt(`${CALL}.`, 3)?.ref, CALL);
      assert.equal(refAt(`(${CALL}), next`, 3)?.ref, CALL);
      assert.equal(refAt(`${CALL}; ${OBJ}:`, 3)?.ref, CALL);
      assert.deepEqual(findRefs(`${CALL}; ${OBJ}:`).map((m) => m.ref), [CALL, OBJ]);
    });
    it('skips malformed candidates and non-svc text', () => {
      assert.deepEqual(findRefs('svc:///acme/chatbot/table/x:y svc:///acme/chatbot/object/nodigest'), []);
      assert.deepEqual(findRefs('https://example.com/acme/chatbot/call/1'), []);
    });
    it('finds refs in JSON, as in thread details', () => {
      const json = `  "first_turn_ref": "${CALL}",`;
      const m = findRefs(json);
      assert.equal(m.length, 1);
      assert.equal(json.slice(m[0]!.start, m[0]!.end), CALL);
    });
    it('honours a limit', () => {
      assert.equal(findRefs(`${CALL} ${CALL} ${CALL}`, 2).length, 2);
    });
  });

  it('reads refs out of a selection spanning lines, without duplicates', () => {
    assert.deepEqual(refsInText(`a ${CALL}\nb ${OBJ}\r\nc ${CALL}`), [CALL, OBJ]);
    assert.deepEqual(refsInText('  nothing here '), []);
    assert.deepEqual(refsInText(` ${CALL} `), [CALL]);
  });

  it('refuses refs of another project, naming both projects', () => {
    assert.equal(refProblem(CALL, 'acme/chatbot'), undefined);
    const msg = refProblem('svc:///other/proj/call/1', 'acme/chatbot')!;
    assert.match(msg, /"other\/proj"/);
    assert.match(msg, /"acme\/chatbot"/);
    assert.match(refProblem('svc:///acme/call/1', 'acme/chatbot')!, /is not a ref: it must have the form/);
    assert.match(refProblem('http://x', 'acme/chatbot')!, /must start with svc:\/\/\//);
    const parsed = parseRef(CALL);
    assert.ok(parsed.ok);
    assert.equal(projectMismatch(parsed.ref, 'acme/chatbot'), undefined);
  });

  it('describes the parts of call and object refs', () => {
    const call = parseRef(CALL);
    const obj = parseRef(OBJ);
    assert.ok(call.ok && obj.ok);
    assert.deepEqual(refParts(call.ref), [
      ['Kind', 'call'],
      ['Entity', 'acme'],
      ['Project', 'chatbot'],
      ['Call id', '0193-abc'],
    ]);
    assert.deepEqual(refParts(obj.ref).slice(3), [
      ['Name', 'dataset'],
      ['Digest', 'v3abc'],
    ]);
  });

  it('encodes command arguments so they cannot break out of a markdown link', () => {
    const encoded = commandArgs([{ ref: "svc:///a/b/call/x'(y)*!" }]);
    assert.doesNotMatch(encoded, /[()'*!\s"[\]]/);
    assert.deepEqual(JSON.parse(decodeURIComponent(encoded)), [{ ref: "svc:///a/b/call/x'(y)*!" }]);
  });
});
