#!/usr/bin/env python3
"""embed_reference.py writes the reference data for package embed's tests.

It uses the reference implementations from PyPI on the very ONNX files that
scripts/install-models.sh installs:

  - tokenizers (Hugging Face, Rust) with the model's tokenizer.json for
    token ids  -> embed/testdata/tokenizer_parity.json
  - onnxruntime (Python) for last_hidden_state, then the pooling and
    normalization the model's manifest.json names, one sentence per
    Run (no padding)  -> embed/testdata/reference_vectors.json

It runs once by hand; its output is committed. Set it up with:

  scripts/install-models.sh all
  python3 -m venv "$NAJDI_CACHE/pyref"
  "$NAJDI_CACHE/pyref/bin/pip" install onnxruntime==1.24.2 tokenizers numpy
  "$NAJDI_CACHE/pyref/bin/python" scripts/embed_reference.py

The onnxruntime version must equal the native library that
install-models.sh installs (ORT_VERSION): the int8 kernels of other
versions round differently (cosine ~0.997 between 1.24.2 and 1.32.0).
"""

import json
import os
import sys

import numpy as np
import onnxruntime as ort
import tokenizers

CACHE = os.environ.get("NAJDI_CACHE", os.path.expanduser("~/.cache/najdi"))
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "embed", "testdata")

# Tricky strings for tokenizer parity: accents, Czech, CJK, emoji, long
# words, URLs, numbers, control and odd whitespace characters.
TOKENIZER_CASES = [
    "",
    "Hello, world!",
    "Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "PŘÍLIŠ ŽLUŤOUČKÝ KŮŇ ÚPĚL ĎÁBELSKÉ ÓDY",
    "naïve café résumé Ångström Ærøskøbing straße",
    "日本語のテキストと中文文本，还有한국어。",
    "Emoji 😀👍🏽 and flags 🇨🇿 ❤️ in text",
    "Supercalifragilisticexpialidocious antidisestablishmentarianism",
    "a" * 101 + " " + "b" * 100,
    "Visit https://example.com/path?q=1&lang=cs#frag or mail me@example.org",
    "Prices: $1,234.56, 3.14159, 1e-10, 50%, 2026-11-22 and 12:30pm",
    "tabs\tand\nnewlines\r\nand  multiple   spaces",
    "zero\u200bwidth\u00a0nbsp\u3000ideographic\u2028line",
    "control\u0000chars\u0007and\ufffdreplacement\u0085nel",
    "don't won't O'Brien's “quoted” ‘single’ «guillemets» — dash… ellipsis",
    "C++ & C# | a+b=c ^ ~x <tag> `code` @user #hashtag",
    "İstanbul ΣΊΣΥΦΟΣ Ελληνικά Кириллица ДОБРЫЙ",
    "ﬁ ligature ² superscript ½ fraction Ⅻ roman ｆｕｌｌｗｉｄｔｈ",
    "العربية עברית ภาษาไทย हिन्दी",
    "e\u0301 combining acute a\u0308 and precomposed é ä",
    "COVID-19 SARS-CoV-2 mRNA-1273 IL-6 TNF-α β-catenin",
    "Tokenization-of-hyphenated_words_and_under_scores",
    "Čeština: Ústí nad Labem, Říčany, Ďáblice, Šťastný nový rok!",
    "    leading and trailing spaces    ",
    "x " * 600,
]

# Sentences for reference vectors (English, Czech, tricky).
SENTENCES = [
    ("passage", "The quick brown fox jumps over the lazy dog."),
    ("passage", "Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development."),
    ("passage", "Vitamin D deficiency is associated with an increased risk of fractures in elderly patients."),
    ("passage", "Machine learning models require large amounts of labeled data for supervised training."),
    ("passage", "The Eiffel Tower was completed in 1889 and is located in Paris, France."),
    ("passage", "Photosynthesis converts light energy into chemical energy stored in glucose."),
    ("passage", "Příliš žluťoučký kůň úpěl ďábelské ódy."),
    ("passage", "Praha je hlavní město České republiky a leží na řece Vltavě."),
    ("passage", "Zítra bude v Brně slunečno s teplotami kolem dvaceti stupňů."),
    ("passage", "Objednávka číslo 12345 byla odeslána včera odpoledne."),
    ("passage", "日本語のテキストと中文文本。"),
    ("passage", "Emoji 😀👍🏽 and flags 🇨🇿 in a sentence about celebrations."),
    ("passage", "Visit https://example.com/path?q=1 for more information about the API."),
    ("passage", "Prices rose 3.5% to $1,234.56 on 2026-11-22 at 12:30pm."),
    ("passage", "COVID-19 vaccines such as mRNA-1273 induce neutralizing antibodies against SARS-CoV-2."),
    ("passage", "naïve café résumé Ångström straße"),
    ("passage", "Supercalifragilisticexpialidocious " + "a" * 120),
    ("passage", "Short."),
    ("passage", "a"),
    ("passage", " ".join(["Long passage sentence number %d about protein folding and enzymes." % i for i in range(60)])),
    ("query", "what causes fractures in elderly people"),
    ("query", "kde leží Praha"),
    ("query", "how do vaccines work"),
    ("query", "Eiffel Tower height"),
    ("query", "best way to learn machine learning?"),
    ("query", "ERROR: connection refused on port 8080"),
]


def load_tokenizer(model_dir, max_tokens):
    tok = tokenizers.Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_tokens)
    return tok


def embed(session, tok, manifest, text):
    enc = tok.encode(text)
    ids = np.array([enc.ids], dtype=np.int64)
    mask = np.array([enc.attention_mask], dtype=np.int64)
    types = np.array([enc.type_ids], dtype=np.int64)
    (hidden,) = session.run(["last_hidden_state"], {
        "input_ids": ids, "attention_mask": mask, "token_type_ids": types})
    h = hidden[0].astype(np.float64)
    if manifest["pooling"] == "cls":
        v = h[0]
    elif manifest["pooling"] == "mean":
        m = mask[0].astype(np.float64)[:, None]
        v = (h * m).sum(axis=0) / m.sum()
    else:
        raise ValueError("pooling " + manifest["pooling"])
    if manifest["normalize"]:
        v = v / np.linalg.norm(v)
    return v, len(enc.ids)


def main():
    os.makedirs(OUT, exist_ok=True)
    bge = os.path.join(CACHE, "models", "bge-small-en-v1.5")
    tok = load_tokenizer(bge, 512)
    cases = []
    for text in TOKENIZER_CASES:
        cases.append({"text": text, "ids": tok.encode(text).ids})
    with open(os.path.join(OUT, "tokenizer_parity.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer": "bge-small-en-v1.5/tokenizer.json",
                   "generator": "tokenizers %s" % tokenizers.__version__,
                   "max_tokens": 512, "cases": cases}, f, ensure_ascii=False, indent=1)

    models = []
    for name in ["bge-small-en-v1.5", "all-minilm-l6-v2"]:
        d = os.path.join(CACHE, "models", name)
        with open(os.path.join(d, "manifest.json")) as f:
            manifest = json.load(f)
        tok = load_tokenizer(d, manifest["max_tokens"])
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        sess = ort.InferenceSession(os.path.join(d, "model.onnx"), opts)
        items = []
        for kind, text in SENTENCES:
            prefix = manifest["query_prefix" if kind == "query" else "passage_prefix"]
            v, n = embed(sess, tok, manifest, prefix + text)
            items.append({"kind": kind, "text": text, "tokens": n,
                          "vector": [round(float(x), 6) for x in v]})
        models.append({"model": name, "items": items})
    with open(os.path.join(OUT, "reference_vectors.json"), "w", encoding="utf-8") as f:
        json.dump({"generator": "onnxruntime %s + tokenizers %s, one sentence per run"
                   % (ort.__version__, tokenizers.__version__),
                   "models": models}, f, ensure_ascii=False)
    print("wrote", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
