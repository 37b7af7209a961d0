// The token view of a trainable turn: the strip read from a choice (OpenAI logprobs.content, ART's
// compact form), its numbers, and the tokenizer.json decoder for ids without text. Fixtures:
// test/fixtures/tokenizer/ (make.py: tokenizer.json files, the expected text of known ids, and a
// step file, all written by Python's json).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decoderFromJson, decoderFromText, MAX_VOCAB } from '../../../src/viewer/bpeDecode';
import { decodeStrips, findTokenizer, hubCaches } from '../../../src/viewer/tokenizer';
import { bucketOf, rankOf, stripNumbers } from '../../../src/viewer/tokenStats';
import { tokenStrip } from '../../../src/files/tokens';
import { trajectoryView } from '../../../src/viewer/views';

const dir = path.resolve(__dirname, '../../fixtures/tokenizer');
const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Record<string, { ids: number[]; texts: string[] }[]>;
const group = JSON.parse(fs.readFileSync(path.join(dir, 'strip.jsonl'), 'utf8').trim()) as { trajectories: { messages_and_choices: Record<string, unknown>[] }[] };
const read = (kind: string) => decoderFromText(fs.readFileSync(path.join(dir, kind, 'tokenizer.json'), 'utf8'), `${kind}/tokenizer.json`);

describe('token strip: tokenizer.json decoder', () => {
  for (const kind of ['byte-level', 'metaspace']) {
    it(`decodes known ids to their text (${kind})`, () => {
      const d = read(kind);
      assert.equal(d.kind, kind);
      for (const c of expected[kind]!) assert.deepEqual(d.tokens(c.ids), c.texts);
    });
  }

  it('gives undefined for an id not in the vocabulary', () => {
    assert.deepEqual(read('byte-level').tokens([999_999]), [undefined]);
  });

  it('refuses what is not a tokenizer.json, naming the file and field', () => {
    assert.throws(() => decoderFromText('{', 'x.json'), /x\.json is not valid JSON/);
    assert.throws(() => decoderFromJson({ model: {} }, 'x.json'), /x\.json has no model\.vocab/);
    assert.throws(() => decoderFromJson({ model: { vocab: { a: -1 } } }, 'x.json'), /x\.json: model\.vocab has an id that is not an integer/);
    assert.throws(() => decoderFromJson({ model: { vocab: { a: 0 } }, added_tokens: [{ id: MAX_VOCAB, content: 'x' }] }, 'x.json'), /added_tokens has an id/);
  });
});

describe('token strip: numbers', () => {
  it('mean logprob, perplexity and tokens under the threshold', () => {
    const n = stripNumbers([-0.01, -0.2, -3.0, -0.05, null]);
    assert.equal(n.scored, 4);
    assert.ok(Math.abs(n.meanLogprob! - -0.815) < 1e-12);
    assert.ok(Math.abs(n.perplexity! - Math.exp(0.815)) < 1e-12);
    assert.equal(n.under, 1);
    assert.equal(stripNumbers([-0.01, -0.2, -3.0, -0.05], 0.9).under, 2);
    assert.deepEqual(stripNumbers([null]), { scored: 0, under: 0 });
  });

  it('colour bucket by probability: p < 0.01, < 0.1, < 0.5, < 0.9, the rest', () => {
    assert.deepEqual([-5, -3, -1, -0.2, -0.01, null].map(bucketOf), [0, 1, 2, 3, 4, -1]);
  });

  it('rank among the alternatives', () => {
    assert.equal(rankOf(-3, [-3, -4.5]), 1);
    assert.equal(rankOf(-2.5, [-2.5, -0.2]), 2);
    assert.equal(rankOf(-1, undefined), undefined);
  });
});

describe('token strip: read from a choice', () => {
  it('OpenAI logprobs.content: text, logprobs and top alternatives', () => {
    const s = tokenStrip(group.trajectories[0]!.messages_and_choices[1]!)!;
    assert.equal(s.form, 'logprobs.content');
    assert.deepEqual(s.texts, ['The', ' answer', ' is', ' 4']);
    assert.deepEqual(s.logprobs, [-0.01, -0.2, -3.0, -0.05]);
    assert.deepEqual(s.ids, [10, 11, 12, 13]);
    assert.deepEqual(s.top![2], [[' is', -3.0], [' five', -4.5]]);
  });

  it("ART's compact form: ids, logprobs and alternatives by id, no text", () => {
    const s = tokenStrip(group.trajectories[1]!.messages_and_choices[1]!)!;
    assert.equal(s.form, 'compact_logprobs');
    assert.equal(s.texts, undefined);
    assert.deepEqual(s.ids, expected['byte-level']![0]!.ids);
    assert.deepEqual(s.logprobs, [-0.1, -2.5, -0.7, -0.0001]);
    assert.equal(s.model, 'test-org/tiny-bpe');
    assert.deepEqual(s.top![1], [[`#${s.ids![1]}`, -2.5], ['#0', -0.2]]);
  });

  it("ART's compact form takes the text of logprobs.content beside it, token by token", () => {
    const c = { ...group.trajectories[0]!.messages_and_choices[1]!, compact_logprobs: [-1, -1, -1, -1] };
    const s = tokenStrip(c)!;
    assert.equal(s.form, 'compact_logprobs');
    assert.deepEqual(s.logprobs, [-1, -1, -1, -1]);
    assert.deepEqual(s.texts, ['The', ' answer', ' is', ' 4']);
  });

  it('no strip for a choice without logprobs or token ids', () => {
    assert.equal(tokenStrip({ message: { role: 'assistant', content: 'x' }, logprobs: null }), undefined);
  });

  it('the trajectory view carries the strip on the choice only', () => {
    const v = trajectoryView(group.trajectories[0], 0, 0);
    assert.equal(v.messages[0]!.tokens, undefined);
    assert.equal(v.messages[1]!.tokens?.logprobs.length, 4);
  });
});

describe('token strip: finding the tokenizer', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-tokenizer-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const cache = path.join(tmp, 'hub');
  before(() => {
    const snap = path.join(cache, 'models--test-org--tiny-bpe', 'snapshots', '0123abcd');
    fs.mkdirSync(snap, { recursive: true });
    fs.copyFileSync(path.join(dir, 'byte-level', 'tokenizer.json'), path.join(snap, 'tokenizer.json'));
  });

  it('the setting (a file or a folder) first, then the Hugging Face cache for the model', async () => {
    const file = path.join(dir, 'metaspace', 'tokenizer.json');
    assert.equal(await findTokenizer(file, 'test-org/tiny-bpe', [cache]), file);
    assert.equal(await findTokenizer(path.join(dir, 'metaspace'), 'test-org/tiny-bpe', [cache]), file);
    assert.equal(await findTokenizer(undefined, 'test-org/tiny-bpe', [cache]), path.join(cache, 'models--test-org--tiny-bpe', 'snapshots', '0123abcd', 'tokenizer.json'));
    assert.equal(await findTokenizer(undefined, 'other/model', [cache]), undefined);
    assert.equal(await findTokenizer(undefined, '../..', [cache]), undefined);
  });

  it('a setting naming a folder without tokenizer.json falls through to $HF_HOME/hub for the model', async () => {
    const saved = { HF_HOME: process.env.HF_HOME, HF_HUB_CACHE: process.env.HF_HUB_CACHE };
    const empty = path.join(tmp, 'no-tokenizer-here');
    fs.mkdirSync(empty, { recursive: true });
    try {
      delete process.env.HF_HUB_CACHE;
      process.env.HF_HOME = tmp; // its hub/ is the cache made above
      const expected = path.join(cache, 'models--test-org--tiny-bpe', 'snapshots', '0123abcd', 'tokenizer.json');
      assert.equal(await findTokenizer(empty, 'test-org/tiny-bpe'), expected);
      assert.equal(await findTokenizer(path.join(tmp, 'missing.json'), 'test-org/tiny-bpe'), expected);
      const v = trajectoryView(group.trajectories[1], 0, 1);
      await decodeStrips(v, empty);
      assert.deepEqual(v.messages[1]!.tokens!.texts, ['Hello', ' world', '!', '<|im_end|>']);
      assert.equal(v.messages[1]!.tokens!.decodedWith, expected);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('hub caches in huggingface_hub order', () => {
    assert.deepEqual(hubCaches({ HF_HUB_CACHE: '/a', HF_HOME: '/b', XDG_CACHE_HOME: '/c' }), ['/a', path.join('/b', 'hub'), path.join('/c', 'huggingface', 'hub')]);
  });

  it('decodes a compact strip with the cached tokenizer, alternatives too', async () => {
    const v = trajectoryView(group.trajectories[1], 0, 1);
    await decodeStrips(v, undefined, [cache]);
    const s = v.messages[1]!.tokens!;
    assert.deepEqual(s.texts, ['Hello', ' world', '!', '<|im_end|>']);
    assert.match(s.decodedWith!, /models--test-org--tiny-bpe/);
    assert.deepEqual(s.top![1], [[' world', -2.5], ['!', -0.2]]);
    assert.equal(s.note, undefined);
  });

  it('without a tokenizer: positions and logprobs, and a note saying how to get text', async () => {
    const v = trajectoryView(group.trajectories[1], 0, 1);
    await decodeStrips(v, undefined, [path.join(tmp, 'none')]);
    const s = v.messages[1]!.tokens!;
    assert.equal(s.texts, undefined);
    assert.equal(s.logprobs.length, 4);
    assert.match(s.note!, /no tokenizer\.json was found for test-org\/tiny-bpe: set svc\.tokenizerPath/);
  });
});
