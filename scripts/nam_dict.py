"""Reads gender-guesser's nam_dict.txt (first names by country), shared by
the NLU gazetteer builders (build-nlu-cs-gazetteer.py,
build-nlu-en-gazetteer.py)."""

# The gender column values of a name line.
GENDERS = ("M", "F", "1M", "1F", "?M", "?F", "?")


def name_lines(path, encoding):
    """Yields (name, line) for every name line of the file at path: name is
    the line's name with "+" read as a space, line the whole line (its
    per-country frequency columns start at offset 30)."""
    with open(path, encoding=encoding) as f:
        for line in f:
            if not line or line[0] in "#=":
                continue
            parts = line.split()
            if len(parts) < 2 or parts[0] not in GENDERS:
                continue
            yield parts[1].replace("+", " "), line
