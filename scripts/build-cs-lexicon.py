"""Builds the Czech diacritics lexicon (see build-cs-lexicon.sh).

Output: gzip'd UTF-8 text, one record per line, tab-separated, sorted:
  H suffix n     header: ending classes are the last n letters
  U form cB      word form (lowercase) and its wordfreq frequency in
                 centibels (frequency = 10^(-cB/100)), rounded to tens for
                 the only form of a key; only forms whose folded key has a
                 form with diacritics, and not keys whose only form the X
                 rules give anyway (unless the corpus counts them)
  C form count   corpus count of a word used as bigram context
  B v w count    corpus count of the word pair "v w" where v or w has an
                 ambiguous folded key (two or more forms)
  X e r          ending rule for words missing from the lexicon: words
                 whose folded form ends in e are restored to end in r (the
                 restoration most word types of wordfreq give to e, kept
                 when at least MIN_RULE_TYPES share e and RULE_SHARE agree)
  K a count      corpus count of ending class a (marked classes "b~" count
                 the words they mark): "=w" for the word w if it
                 is one of the WORD_CLASSES most frequent corpus words, else
                 its last SUFFIX letters (the whole word if shorter)
  H mark 1       P records name the second class as a predicted word: the
                 ending class with "~" appended when the word's folded key
                 has forms that differ in the last letter (see tcls)
  P a b count    corpus count of ending class a followed by ending class b
  L a w count    corpus count of a word of ending class a followed by the
                 word w, where w has an ambiguous folded key
  R w a count    corpus count of the word w (ambiguous key) followed by a
                 word of ending class a
"""
import argparse, gettext, gzip, html, io, os, re, sys, unicodedata, zipfile
from collections import Counter, defaultdict

import msgpack

CZ = set("abcdefghijklmnopqrstuvwxyzáčďéěíňóřšťúůýž")
# Commas are tokens: ", že" and "ze" + noun are the main cue for že/ze.
WORD = re.compile(r"[a-záčďéěíňóřšťúůýž]+|,")
SENT_END = re.compile(r"[.!?;:()\[\]\"„“”…]|\n\s*\n")
MIN_BIGRAM = int(os.environ.get("CS_LEXICON_MIN_BIGRAM", "1"))
SUFFIX = int(os.environ.get("CS_LEXICON_SUFFIX", "2"))
MIN_CLASS_PAIR = 2
MIN_CLASS_WORD = int(os.environ.get("CS_LEXICON_MIN_CLASS_WORD", "1"))
PRUNE_CB = int(os.environ.get("CS_LEXICON_PRUNE_CB", "200"))
MIN_RULE_TYPES, RULE_SHARE, RULE_MIN, RULE_MAX = 10, 0.7, 2, 6


# The WORD_CLASSES most frequent corpus words are classes of their own
# ("=pod" apart from "=od" and the ending "od"): function words govern case.
WORD_CLASSES = int(os.environ.get("CS_LEXICON_WORD_CLASSES", "1000"))
TOP = set()


# Keys whose forms differ in the last letter (dani/daní, práci/prací,
# nové/nově): their endings carry case or part of speech, unlike the same
# endings of words without such an alternative (zimní, povolení).
ALTERNATING = set()


def cls(w):
    return "=" + w if w in TOP else w[-SUFFIX:]


def tcls(w):
    """The class of w as the word predicted after another: its ending class
    marked with "~" when its folded key alternates in the last letter."""
    c = cls(w)
    if not c.startswith("=") and fold(w) in ALTERNATING:
        return c + "~"
    return c


def fold(s):
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")


def load_wordfreq(whl):
    with zipfile.ZipFile(whl) as z:
        data = msgpack.unpackb(gzip.decompress(z.read("wordfreq/data/large_cs.msgpack.gz")), raw=False)
    uni = {}
    for cb, bucket in enumerate(data[1:]):
        for w in bucket:
            if 0 < len(w) <= 30 and set(w) <= CZ and w not in uni:
                uni[w] = cb
    return uni


def corpus_texts(root):
    """Yields the Czech running text of the extracted Debian packages."""
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            if os.path.islink(p):
                continue
            if ("/help/cs/" in p and f.endswith(".html")) or \
                    ("/doc/lilypond/" in p and f.endswith(".cs.html")) or \
                    ("/doc/aptitude/html/cs/" in p and f.endswith(".html")):
                t = open(p, encoding="utf-8", errors="replace").read()
                t = re.sub(r"(?s)<(script|style)[^>]*>.*?</\1>", " ", t)
                t = re.sub(r"<(p|br|div|h\d|li|td|tr|title|pre)[^>]*>", "\n\n", t)
                yield html.unescape(re.sub(r"<[^>]+>", " ", t))
            elif "/fortunes/cs/" in p and not f.endswith(".dat"):
                yield open(p, encoding="utf-8", errors="replace").read().replace("\n%\n", "\n\n")
            elif "/man/cs/" in p and f.endswith(".gz"):
                yield man_text(gzip.open(p).read().decode("utf-8", "replace"))
            elif "/info/" in p and ".cs." in f or f == "speech-dispatcher-cs.info.gz":
                yield gzip.open(p).read().decode("utf-8", "replace")
            elif f == "czech-cizi.dict.dz":
                t = gzip.open(p).read().decode("utf-8", "replace")
                yield html.unescape(re.sub(r"<[^>]+>", " ", t))
            elif f.endswith(".mo") and "/cs/LC_MESSAGES/" in p:
                with open(p, "rb") as fp:
                    cat = gettext.GNUTranslations(fp)._catalog
                yield "\n\n".join(v for k, v in sorted(cat.items(), key=str) if k and isinstance(v, str))
            elif f.endswith(".xpi") and "langpack-cs" in f:
                with zipfile.ZipFile(p) as z:
                    for n in sorted(z.namelist()):
                        if n.endswith(".ftl"):
                            yield ftl_text(z.read(n).decode("utf-8", "replace"))


def man_text(t):
    """Strips roff requests, comments and font escapes from a man page."""
    out = []
    for line in t.split("\n"):
        if line.startswith((".\\\"", "'\\\"")):
            continue
        if line.startswith("."):
            req, _, arg = line.partition(" ")
            # Paragraph macros break sentences; font macros keep their text.
            if req in (".B", ".I", ".BR", ".IR", ".RB", ".RI", ".BI", ".IB", ".SM"):
                out.append(arg.replace('"', ""))
            else:
                out.append("\n\n" + (arg if req in (".SH", ".SS", ".TP", ".IP") else ""))
            continue
        out.append(line)
    return re.sub(r"\\f[BIRP]|\\\(..|\\[-&e]", "", "\n".join(out))


def ftl_text(t):
    """Returns the message values of a Fluent (.ftl) file, one per paragraph."""
    out = []
    for line in t.split("\n"):
        if line.startswith("#"):
            continue
        _, eq, v = line.partition("=")
        out.append(v if eq else line)
        out.append("\n")
    return re.sub(r"\{[^}]*\}", " ", "\n".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wordfreq", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    uni = load_wordfreq(a.wordfreq)
    forms = defaultdict(list)
    for w in uni:
        forms[fold(w)].append(w)
    keep = {k: v for k, v in forms.items() if any(fold(w) != w for w in v)}
    # Forms a hundred times rarer than the best form of their key never win
    # in practice: drop them (keeps the file under 3 MB).
    for k, v in keep.items():
        best = min(uni[w] for w in v)
        keep[k] = [w for w in v if uni[w] - best < PRUNE_CB]
    keep = {k: v for k, v in keep.items() if any(fold(w) != w for w in v)}
    ambiguous = {k for k, v in keep.items() if len(v) > 1}
    ALTERNATING.update(k for k in ambiguous if len({w[-1] for w in keep[k]}) > 1)

    rules = defaultdict(Counter)
    for w in uni:
        k = fold(w)
        if len(k) != len(w) or len(k) < RULE_MIN + 2:
            continue
        for n in range(RULE_MIN, min(RULE_MAX, len(k) - 2) + 1):
            rules[k[-n:]][w[-n:]] += 1
    xrules = {}
    for e, c in rules.items():
        r, n = max(c.items(), key=lambda x: (x[1], x[0]))
        total = sum(c.values())
        if total >= MIN_RULE_TYPES and n >= RULE_SHARE * total:
            xrules[e] = r

    # Plain words the ending rules would wrongly change are kept as their
    # own only candidate, so that they stay as typed.
    def by_rule(k):
        for n in range(min(RULE_MAX, len(k) - 2), RULE_MIN - 1, -1):
            r = xrules.get(k[-n:])
            if r is not None:
                return k[:-n] + r if len(r) == n else k
        return k
    guarded = 0
    for k, v in forms.items():
        if k not in keep and len(k) >= 5 and by_rule(k) != k:
            keep[k] = v
            guarded += 1

    ctx, pairs, ntok = Counter(), Counter(), 0
    kcount, kpairs, cw, wc = Counter(), Counter(), Counter(), Counter()
    chunks = []
    for text in corpus_texts(a.corpus):
        for chunk in SENT_END.split(text.lower()):
            ws = WORD.findall(chunk)
            if ws:
                chunks.append(ws)
                ctx.update(ws)
    TOP.update(w for w, _ in ctx.most_common(WORD_CLASSES))
    for ws in chunks:
        ntok += len(ws)
        for v, w in zip(ws, ws[1:]):
            if fold(v) in ambiguous or fold(w) in ambiguous:
                pairs[(v, w)] += 1
        ks = [cls(w) for w in ws]
        ts = [tcls(w) for w in ws]
        kcount.update(ks)
        kcount.update(t for t in ts if t.endswith("~"))
        kpairs.update(zip(ks, ts[1:]))
        for k, w in zip(ks, ws[1:]):
            if fold(w) in ambiguous:
                cw[(k, w)] += 1
        for w, k in zip(ws, ks[1:]):
            if fold(w) in ambiguous:
                wc[(w, k)] += 1
    pairs = {p: n for p, n in pairs.items() if n >= MIN_BIGRAM}
    ctxw = {v for v, _ in pairs}

    # A key whose only form the ending rules restore anyway needs no record
    # unless the form (or the plain key) has corpus counts of its own.
    cwx = {(k, w): n for (k, w), n in cw.items() if n >= MIN_CLASS_WORD}
    wcx = {(w, k): n for (w, k), n in wc.items() if n >= MIN_CLASS_WORD}
    counted = ctxw | {w for _, w in pairs} | {w for _, w in cwx} | {w for w, _ in wcx}
    by_rule_only = {k for k, v in keep.items()
                    if len(v) == 1 and len(k) >= 5 and by_rule(k) == v[0]
                    and k not in counted and v[0] not in counted}

    buf = io.StringIO()
    buf.write(f"H\tsuffix\t{SUFFIX}\n")
    buf.write("H\tmark\t1\n")
    for k in sorted(keep):
        if k in by_rule_only:
            continue
        for w in sorted(keep[k]):
            # A key's only form needs no precise frequency (it only scales
            # the smoothing of its pairs): rounding it to 0.1 of a decade
            # keeps the file small.
            cb = uni[w] if len(keep[k]) > 1 else round(uni[w], -1)
            buf.write(f"U\t{w}\t{cb}\n")
    for v in sorted(ctxw):
        buf.write(f"C\t{v}\t{ctx[v]}\n")
    for (v, w), n in sorted(pairs.items()):
        buf.write(f"B\t{v}\t{w}\t{n}\n")
    for e in sorted(xrules):
        buf.write(f"X\t{e}\t{xrules[e]}\n")
    for k in sorted(kcount):
        buf.write(f"K\t{k}\t{kcount[k]}\n")
    for (x, y), n in sorted(kpairs.items()):
        if n >= MIN_CLASS_PAIR:
            buf.write(f"P\t{x}\t{y}\t{n}\n")
    for (k, w), n in sorted(cwx.items()):
        buf.write(f"L\t{k}\t{w}\t{n}\n")
    for (w, k), n in sorted(wcx.items()):
        buf.write(f"R\t{w}\t{k}\t{n}\n")
    raw = buf.getvalue().encode("utf-8")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "wb") as f:
        f.write(gzip.compress(raw, compresslevel=9, mtime=0))
    print(f"keys={len(keep)} ambiguous={len(ambiguous)} forms={sum(map(len, keep.values()))} "
          f"corpus_tokens={ntok} bigrams={len(pairs)} contexts={len(ctxw)} "
          f"rules={len(xrules)} guarded={guarded} classes={len(kcount)} class_pairs={sum(1 for n in kpairs.values() if n >= MIN_CLASS_PAIR)} "
          f"class_words={len(cwx)} word_classes={len(wcx)} by_rule_only={len(by_rule_only)} raw={len(raw)} gz={os.path.getsize(a.out)}", file=sys.stderr)


if __name__ == "__main__":
    main()
