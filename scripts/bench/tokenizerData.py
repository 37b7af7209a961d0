"""Writes a big byte-level BPE tokenizer.json for `npm run bench` and the tokenizer measurement,
with Python's json (an independent writer: not svc's code). Hugging Face downloads are not
reachable from CI, so the vocabulary is made here:

    python3 scripts/bench/tokenizerData.py OUT.json synthetic [VOCAB]
        GPT-2-style byte-level BPE of VOCAB tokens (default 151,643, Qwen 2.5's size): the 256 byte
        tokens in GPT-2's order, then each new token the concatenation of two earlier ones (its
        merge), so the vocabulary and the merges are consistent: mostly ASCII words (many with a
        leading space), one in 16 a non-ASCII character; a few added special tokens.
    python3 scripts/bench/tokenizerData.py OUT.json tiktoken FILE.tiktoken
        a real vocabulary: a tiktoken rank file (base64 token, rank per line; gpt-tokenizer ships
        o200k_base's) as a Hugging Face byte-level BPE, the merges recovered by running BPE on each
        token with the ranks below its own (as transformers' tiktoken conversion does).

Also writes OUT.json.ids.json: 32,768 ids, for the first 64 the text each decodes to (computed
here from the bytes; a partial UTF-8 character as "<xx yy>"), and the text of all of them.
"""
import base64
import json
import os
import random
import sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "fixtures", "tokenizer"))
from byte_level import B2U, piece  # noqa: E402 (GPT-2's byte table, shared with the test fixtures' writer)


def text_of(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return "<" + " ".join("%02x" % x for x in b) + ">"


def bpe_parts(ranks, token, max_rank):
    parts = [bytes([b]) for b in token]
    while True:
        best = None
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < max_rank and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            return parts
        i = best[1]
        parts = parts[:i] + [parts[i] + parts[i + 1]] + parts[i + 2:]


out, kind = sys.argv[1], sys.argv[2]
rng = random.Random(30)
if kind == "synthetic":
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 151_643
    order = sorted(B2U, key=lambda b: list(B2U).index(b))
    tokens = [bytes([b]) for b in order]
    index = {t: i for i, t in enumerate(tokens)}
    merges = []

    def add(a, b):
        t = a + b
        if t in index or len(t) > 16:
            return None
        index[t] = len(tokens)
        merges.append(piece(a) + " " + piece(b))
        tokens.append(t)
        return t

    # Mostly text, as real vocabularies are: words of ASCII letters (most with a leading space),
    # digits and punctuation, and one token in 16 a non-ASCII character (its UTF-8 bytes merged
    # pairwise, so a 3-byte character leaves a partial token on the way, as real vocabularies do).
    words = [bytes([c]) for c in range(0x61, 0x7B)] + [bytes([c]) for c in range(0x41, 0x5B)]
    pool = [index[w] for w in words] + [index[b" "]]
    letters = [index[w] for w in words]
    while len(tokens) < size:
        r = rng.random()
        if r < 1 / 16:
            ch = chr(rng.choice([rng.randrange(0xC0, 0x250), rng.randrange(0x4E00, 0x9FFF), rng.randrange(0x3040, 0x30FF)])).encode()
            if len(ch) == 2:
                add(ch[:1], ch[1:])
            else:
                if ch[:2] not in index:
                    add(ch[:1], ch[1:2])
                add(ch[:2], ch[2:])
            continue
        a = b" " if rng.random() < 0.3 else tokens[rng.choice(pool)]
        b = tokens[rng.choice(letters if rng.random() < 0.5 else pool)]
        if b.startswith(b" "):
            continue
        t = add(a, b)
        if t is not None and len(t) <= 6:
            pool.append(index[t])
else:
    ranks = {}
    with open(sys.argv[3], "rb") as f:
        for line in f:
            if line.strip():
                tok, rank = line.split()
                ranks[base64.b64decode(tok)] = int(rank)
    tokens = [None] * (max(ranks.values()) + 1)
    for t, r in ranks.items():
        tokens[r] = t
    merges = []
    for r, t in enumerate(tokens):
        if t is None or len(t) < 2:
            continue
        parts = bpe_parts(ranks, t, r)
        if len(parts) == 2:
            merges.append(piece(parts[0]) + " " + piece(parts[1]))
vocab = {piece(t): i for i, t in enumerate(tokens) if t is not None}
specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
added = [{"id": len(tokens) + k, "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True} for k, s in enumerate(specials)]
tok = {
    "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
    "post_processor": None,
    "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
    "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None, "end_of_word_suffix": None,
              "fuse_unk": False, "byte_fallback": False, "ignore_merges": False, "vocab": vocab, "merges": merges},
}
with open(out, "w", encoding="utf-8") as f:
    json.dump(tok, f, ensure_ascii=False)
valid = [i for i, t in enumerate(tokens) if t is not None]
ids = [rng.choice(valid) for _ in range(32_768)]
with open(out + ".ids.json", "w", encoding="utf-8") as f:
    json.dump({"ids": ids, "texts": [text_of(tokens[i]) for i in ids[:64]], "text": b"".join(tokens[i] for i in ids).decode("utf-8", "replace"), "vocab": len(vocab) + len(added), "merges": len(merges)}, f, ensure_ascii=False)
print(json.dumps({"vocab": len(vocab) + len(added), "merges": len(merges)}))
