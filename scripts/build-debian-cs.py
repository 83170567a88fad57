#!/usr/bin/env python3
"""build-debian-cs.py builds a Czech retrieval set from Debian's package descriptions.

Source: the Czech translations of Debian package descriptions made by the
Debian Description Translation Project (DDTP/DDTSS) and published in the
Debian archive as dists/<release>/main/i18n/Translation-cs, with the English
originals in Translation-en; `apt-get -o Acquire::Languages=cs,en update`
fetches both into /var/lib/apt/lists. Each description is part of its
package's debian/control and is distributed under that package's license
(Debian main: DFSG-free licenses only; DDTP does not translate non-free); the
translations are derived works under the same terms. Nothing of it is
committed: this script writes the set into $NAJDI_CACHE/bench.

Pairing comes from the source, not from us: a translation entry carries the
Description-md5 of the English original it translates, so

  query     Czech short description (the first line of Description-cs)
  document  Czech long description (the remaining lines) of the same entry
  query-en  English short description of the same Description-md5
            (cross-lingual: English query -> Czech document)

Entries whose long description has fewer than 8 words, or whose Czech short
and long descriptions are identical to the English ones (untranslated), are
left out; descriptions shared by several packages count once (first package
name in file order). Document ids are the package names ('+' spelled "_p_"). Queries are split by a hash of the package name: 25 %
"train" (qrels/train.tsv: tune on it) and 75 % "test" (qrels/test.tsv:
report it); every document stays in the corpus.

Output (BEIR layout, read by `najdi-bench search -beir DIR`):
  $NAJDI_CACHE/bench/debian-cs/{corpus.jsonl,queries.jsonl,qrels/test.tsv,qrels/train.tsv}
  $NAJDI_CACHE/bench/debian-en-cs/  the same corpus and qrels, English queries

Usage: scripts/build-debian-cs.py [--force]
  (root fetches the lists with apt-get if missing; a set built by this
  version of the script is kept unless --force)
"""

import glob
import hashlib
import json
import os
import subprocess
import sys

LISTS = "/var/lib/apt/lists"
CACHE = os.environ.get("NAJDI_CACHE", os.path.expanduser("~/.cache/najdi"))


def translation_files(lang):
    return sorted(glob.glob(os.path.join(LISTS, f"*_dists_*_main_i18n_Translation-{lang}*")))


def ensure_lists():
    if translation_files("cs") and translation_files("en"):
        return
    if os.geteuid() != 0:
        sys.exit("build-debian-cs: no Translation-cs in /var/lib/apt/lists; run as root "
                 "or `apt-get -o Acquire::Languages=cs,en update` first")
    print("build-debian-cs: apt-get -o Acquire::Languages=cs,en update", file=sys.stderr)
    subprocess.run(["nice", "-n", "10", "apt-get", "-q", "-o", "Acquire::Languages=cs,en", "update"],
                   check=True, stdout=subprocess.DEVNULL)
    if not translation_files("cs"):
        sys.exit("build-debian-cs: apt-get update brought no Translation-cs")


def read_entries(path):
    """Yields (package, md5, lang, short, long) of a Translation file."""
    text = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path], check=True,
                          capture_output=True).stdout.decode("utf-8", "replace")
    for block in text.split("\n\n"):
        pkg = md5 = lang = short = None
        body = []
        cur = None
        for line in block.split("\n"):
            if line.startswith(" ") and cur == "desc":
                body.append(line[1:])
                continue
            cur = None
            key, _, val = line.partition(": ")
            if key == "Package":
                pkg = val
            elif key == "Description-md5":
                md5 = val
            elif key.startswith("Description-"):
                lang, short, cur = key[len("Description-"):], val.strip(), "desc"
        if pkg and md5 and short is not None:
            paras, cur_p = [], []
            for l in body:
                if l.strip() == ".":
                    if cur_p:
                        paras.append(" ".join(cur_p))
                    cur_p = []
                else:
                    cur_p.append(l.strip())
            if cur_p:
                paras.append(" ".join(cur_p))
            yield pkg, md5, lang, short, "\n\n".join(paras)


def doc_id(pkg):
    """Returns a najdi document id for a package name: '+' (as in g++) becomes "_p_"."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "._:-") else "_p_" if c == "+" else "_" for c in pkg)


def write_set(dirname, docs, queries, split):
    d = os.path.join(CACHE, "bench", dirname)
    os.makedirs(os.path.join(d, "qrels"), exist_ok=True)
    with open(os.path.join(d, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for pid, text in docs:
            f.write(json.dumps({"_id": pid, "title": "", "text": text}, ensure_ascii=False) + "\n")
    with open(os.path.join(d, "queries.jsonl"), "w", encoding="utf-8") as f:
        for pid, text in queries:
            f.write(json.dumps({"_id": pid, "text": text}, ensure_ascii=False) + "\n")
    for name in ("test", "train"):
        with open(os.path.join(d, "qrels", name + ".tsv"), "w", encoding="utf-8") as f:
            f.write("query-id\tcorpus-id\tscore\n")
            for pid, _ in queries:
                if split(pid) == name:
                    f.write(f"{pid}\t{pid}\t1\n")
    return d


def main():
    stamp = os.path.join(CACHE, "bench", "debian-cs.STAMP")
    me = hashlib.sha256(open(os.path.abspath(__file__), "rb").read()).hexdigest()[:16]
    if "--force" not in sys.argv and os.path.exists(stamp) and open(stamp).read().strip() == me and all(
            os.path.exists(os.path.join(CACHE, "bench", d, "qrels", "test.tsv")) for d in ("debian-cs", "debian-en-cs")):
        return  # built by this version of the script already
    ensure_lists()
    english = {}
    for path in translation_files("en"):
        for pkg, md5, lang, short, long in read_entries(path):
            english.setdefault(md5, (short, long))
    docs, cs_q, en_q, seen = [], [], [], set()
    skipped = {"short": 0, "untranslated": 0, "duplicate": 0, "no english": 0}
    for path in translation_files("cs"):
        for pkg, md5, lang, short, long in read_entries(path):
            if lang != "cs":
                continue
            if md5 in seen:
                skipped["duplicate"] += 1
                continue
            seen.add(md5)
            if len(long.split()) < 8 or not short:
                skipped["short"] += 1
                continue
            en = english.get(md5)
            if en is None:
                skipped["no english"] += 1
                continue
            if en[0] == short or en[1] == long:
                skipped["untranslated"] += 1
                continue
            pid = doc_id(pkg)
            docs.append((pid, long))
            cs_q.append((pid, short))
            en_q.append((pid, en[0]))

    def split(pid):
        return "train" if hashlib.sha256(pid.encode()).digest()[0] < 64 else "test"

    a = write_set("debian-cs", docs, cs_q, split)
    b = write_set("debian-en-cs", docs, en_q, split)
    n_train = sum(split(p) == "train" for p, _ in docs)
    with open(stamp, "w") as f:
        f.write(me + "\n")
    print(f"build-debian-cs: {len(docs)} documents, {len(docs) - n_train} test and {n_train} train queries "
          f"-> {a} (Czech queries), {b} (English queries); skipped {skipped}")


if __name__ == "__main__":
    main()
