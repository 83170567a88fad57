package diacritics

import (
	"bytes"
	"compress/gzip"
	"errors"
	"testing"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestParseLexiconRecords checks each record kind and that malformed lines
// are refused with ErrBadLexicon and their line number.
func TestParseLexiconRecords(t *testing.T) {
	good := "H\tsuffix\t3\nH\tmark\t1\nU\tmesto\t-20\nU\tměsto\t-10\nC\tměsto\t7\nB\tmesto\tměsto\t2\nK\tc1\t5\nP\tc1\tc1\t4\nL\tc1\tměsto\t3\nR\tměsto\tc1\t1\nX\tsto\tstó\n\n"
	l, err := parseLexicon(gzipped(t, good))
	if err != nil {
		t.Fatal(err)
	}
	if l.suffix != 3 || !l.mark || len(l.cands["mesto"]) != 2 || l.classTotal != 5 || l.suffixes["sto"] != "stó" {
		t.Fatalf("parsed lexicon: suffix %d mark %v cands %v classTotal %v", l.suffix, l.mark, l.cands["mesto"], l.classTotal)
	}
	for _, bad := range []string{
		"U\tmesto\tx\n",                          // not a number
		"B\ta\tb\tx\n",                           // not a number
		"Q\ta\tb\t1\n",                           // unknown kind, 4 fields
		"Z\ta\t1\n",                              // unknown kind
		"U\ta\t1\t2\t3\t4\n",                     // too many fields
		"H\tsuffix\t-1\n",                        // negative
		"U\tmesto\t1\nU\tkolo\t1\nU\tmesto\t1\n", // a key's records not adjacent
	} {
		if _, err := parseLexicon(gzipped(t, bad)); !errors.Is(err, ErrBadLexicon) {
			t.Errorf("%q: err %v, want ErrBadLexicon", bad, err)
		}
	}
}
