import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findNetrcEntry, netrcPath, parseNetrc, readNetrc } from '../../../src/auth/netrc';

describe('auth/netrc', () => {
  it('parses machines, logins and passwords across lines and on one line', () => {
    const entries = parseNetrc(`
# comment
machine api.svc.example login api password abc123
machine other.example
  login bob
  password "p w\\"d"
default login anon password dflt
`);
    assert.deepEqual(entries, [
      { machine: 'api.svc.example', login: 'api', password: 'abc123' },
      { machine: 'other.example', login: 'bob', password: 'p w"d' },
      { machine: '', login: 'anon', password: 'dflt' },
    ]);
  });

  it('skips macdef bodies up to the next blank line', () => {
    const entries = parseNetrc('macdef init\nmachine fake password nope\n\nmachine real password yes\n');
    assert.deepEqual(entries, [{ machine: 'real', password: 'yes' }]);
  });

  it('looks up the exact host, then default, in the file $NETRC names', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netrc-'));
    const file = path.join(dir, 'netrc');
    fs.writeFileSync(file, 'machine Svc.Example.com login api password k1\ndefault password k0\n');
    const env = { NETRC: file };
    assert.equal(netrcPath(env), file);
    const entries = readNetrc(env)!;
    assert.equal(findNetrcEntry(entries, 'svc.example.com')?.password, 'k1');
    assert.equal(findNetrcEntry(entries, 'elsewhere')?.password, 'k0');
    assert.equal(readNetrc({ NETRC: path.join(dir, 'missing') }), undefined);
  });
});

describe('auth/netrc exact lookups', () => {
  it('does not fall back to default when asked for an exact machine', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netrc-'));
    const file = path.join(dir, 'netrc');
    fs.writeFileSync(file, 'machine trace.example login user password k1\ndefault login anonymous password me@example.com\n');
    const entries = readNetrc({ NETRC: file })!;
    assert.equal(findNetrcEntry(entries, 'training.example', { exact: true }), undefined);
    assert.equal(findNetrcEntry(entries, 'training.example')?.password, 'me@example.com');
  });
});
