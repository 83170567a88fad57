package diacritics

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/najdi/najdi/text/hunspell"
)

// FormLookup knows the word forms of a language by folded key: Lookup
// returns every form whose lowercase, diacritics-free spelling is key.
// *hunspell.Dictionary opened by OpenDictionary implements it.
type FormLookup interface {
	Lookup(key string) []string
}

// Dictionary file names inside a dictionary directory.
const (
	dictAff = "cs_CZ.aff"
	dictDic = "cs_CZ.dic"
)

// DictionaryDir returns the first directory that holds the Czech Hunspell
// dictionary (cs_CZ.aff and cs_CZ.dic), or "" if there is none. It looks
// in $NAJDI_HUNSPELL_CS_DIR, $NAJDI_CACHE/hunspell, ~/.cache/najdi/hunspell
// (where `make dictionaries` installs it) and /usr/share/hunspell (Debian's
// hunspell-cs).
func DictionaryDir() string {
	var dirs []string
	if d := os.Getenv("NAJDI_HUNSPELL_CS_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if c := os.Getenv("NAJDI_CACHE"); c != "" {
		dirs = append(dirs, filepath.Join(c, "hunspell"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, ".cache", "najdi", "hunspell"))
	}
	dirs = append(dirs, "/usr/share/hunspell")
	for _, d := range dirs {
		if isFile(filepath.Join(d, dictAff)) && isFile(filepath.Join(d, dictDic)) {
			return d
		}
	}
	return ""
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// OpenDictionary loads the Czech Hunspell dictionary of dir, keyed like the
// lexicon (lowercase, diacritics folded). Only stems made of Czech letters
// are kept.
func OpenDictionary(dir string) (*hunspell.Dictionary, error) {
	d, err := hunspell.Open(filepath.Join(dir, dictAff), filepath.Join(dir, dictDic), hunspell.Options{
		Key:    fold,
		Filter: isCzechWord,
	})
	if err != nil {
		return nil, fmt.Errorf("diacritics: open dictionary in %s: %w", dir, err)
	}
	return d, nil
}

// WithDictionary returns a restorer that also restores words missing from
// the lexicon through d (see the package doc); nil removes it. r is not
// modified.
func (r *Restorer) WithDictionary(d FormLookup) *Restorer {
	nr := *r
	nr.dict = d
	return &nr
}

// HasDictionary reports whether the restorer uses a dictionary of word
// forms besides its lexicon.
func (r *Restorer) HasDictionary() bool { return r != nil && r.dict != nil }

// dictForms returns the lowercase dictionary forms of key, sorted and
// without duplicates.
func (r *Restorer) dictForms(key string) []string {
	if r.dict == nil {
		return nil
	}
	fs := r.dict.Lookup(key)
	if len(fs) == 0 {
		return nil
	}
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		f = strings.ToLower(f)
		if fold(f) == key {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
