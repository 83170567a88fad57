package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/najdi/najdi/nlu/ner"
	"github.com/najdi/najdi/text"
	"github.com/najdi/najdi/text/diacritics"
)

// DiacriticsConfig configures RunDiacritics.
type DiacriticsConfig struct {
	// Files are CoNLL-U files whose "# text =" lines are the test
	// sentences, or JSON files holding an array of objects with a "text"
	// field (the cs_restaurant format); required.
	Files []string
	// MaxSentences limits the sentences used; 0 means all.
	MaxSentences int
	// Errors is how many wrongly restored words to print; 0 prints none.
	Errors int
	// NoDictionary evaluates the built-in lexicon alone, without the
	// Hunspell dictionary that `make dictionaries` installs.
	NoDictionary bool
}

// Validate checks the configuration.
func (c DiacriticsConfig) Validate() error {
	if len(c.Files) == 0 {
		return fmt.Errorf("diacritics config: no input files: %w", ErrInvalidConfig)
	}
	if c.MaxSentences < 0 || c.Errors < 0 {
		return fmt.Errorf("diacritics config: negative limit: %w", ErrInvalidConfig)
	}
	return nil
}

// DiacriticsResult holds word accuracies of a restoration run.
type DiacriticsResult struct {
	Sentences, Words, Accented int
	// Correct counts restored words equal to the original; CorrectAccented
	// counts those among words that carry diacritics; Baseline counts
	// words that are right with no restoration at all.
	Correct, CorrectAccented, Baseline int
	Elapsed                            time.Duration
}

// Accuracy is the share of words restored exactly.
func (r DiacriticsResult) Accuracy() float64 { return accuracyRatio(r.Correct, r.Words) }

// AccentedAccuracy is the accuracy on words that carry diacritics.
func (r DiacriticsResult) AccentedAccuracy() float64 {
	return accuracyRatio(r.CorrectAccented, r.Accented)
}

// BaselineAccuracy is the accuracy of leaving the stripped text unchanged.
func (r DiacriticsResult) BaselineAccuracy() float64 { return accuracyRatio(r.Baseline, r.Words) }

func accuracyRatio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// ReadCoNLLUText returns the "# text = " lines of a CoNLL-U file.
func ReadCoNLLUText(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read sentences: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "# text = "); ok {
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return out, nil
}

// readDiacriticsText reads the sentences of a .conllu or .json file.
func readDiacriticsText(path string) ([]string, error) {
	if !strings.HasSuffix(path, ".json") {
		return ReadCoNLLUText(path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read sentences: %w", err)
	}
	var items []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("read %s: %w: %w", filepath.Base(path), ErrBadData, err)
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if it.Text != "" {
			out = append(out, it.Text)
		}
	}
	return out, nil
}

// EvalDiacritics strips the diacritics of each sentence, restores them with
// r and compares word by word with the original.
func EvalDiacritics(r *diacritics.Restorer, sentences []string, errs io.Writer, maxErrs int) DiacriticsResult {
	var res DiacriticsResult
	start := time.Now()
	for _, orig := range sentences {
		stripped := diacritics.Strip(orig)
		restored, _ := r.Restore(stripped)
		ow, sw, rw := text.Words(orig), text.Words(stripped), text.Words(restored)
		if len(ow) != len(sw) || len(ow) != len(rw) {
			continue // segmentation changed: cannot align
		}
		res.Sentences++
		for i := range ow {
			o := orig[ow[i].Start:ow[i].End]
			s := stripped[sw[i].Start:sw[i].End]
			g := restored[rw[i].Start:rw[i].End]
			res.Words++
			accented := o != s
			if accented {
				res.Accented++
			} else {
				res.Baseline++
			}
			if g == o {
				res.Correct++
				if accented {
					res.CorrectAccented++
				}
			} else if errs != nil && maxErrs > 0 {
				maxErrs--
				prev, next := "", ""
				if i > 0 {
					prev = orig[ow[i-1].Start:ow[i-1].End]
				}
				if i+1 < len(ow) {
					next = orig[ow[i+1].Start:ow[i+1].End]
				}
				fmt.Fprintf(errs, "  %s → %s (want %s)   [%s _ %s]\n", s, g, o, prev, next)
			}
		}
	}
	res.Elapsed = time.Since(start)
	return res
}

// CaseResult counts capital letters restored in sentences typed in
// lowercase without diacritics.
type CaseResult struct {
	// Capitalized counts words past the first of a sentence whose
	// original starts with a capital; Restored counts those the restorer
	// capitalized; Predicted counts every word past the first that the
	// restorer capitalized.
	Capitalized, Restored, Predicted int
}

// Recall is the share of capitalized words that got their capital back.
func (c CaseResult) Recall() float64 { return accuracyRatio(c.Restored, c.Capitalized) }

// Precision is the share of words the restorer capitalized that were
// capitalized in the original.
func (c CaseResult) Precision() float64 { return accuracyRatio(c.Restored, c.Predicted) }

// EvalCase lowercases and strips each sentence, restores it with r and
// compares the first letters of the words after the first (whose capital
// is only positional) with the original: how many names, places and
// acronyms get their capital back, and how many words wrongly get one.
func EvalCase(r *diacritics.Restorer, sentences []string) CaseResult {
	var res CaseResult
	for _, orig := range sentences {
		typed := strings.ToLower(diacritics.Strip(orig))
		restored, _ := r.Restore(typed)
		ow, rw := text.Words(orig), text.Words(restored)
		if len(ow) != len(rw) {
			continue
		}
		for i := 1; i < len(ow); i++ {
			o := text.IsCapitalized(orig[ow[i].Start:ow[i].End])
			g := text.IsCapitalized(restored[rw[i].Start:rw[i].End])
			if o {
				res.Capitalized++
			}
			if g {
				res.Predicted++
				if o {
					res.Restored++
				}
			}
		}
	}
	return res
}

// add accumulates o into r.
func (r *DiacriticsResult) add(o DiacriticsResult) {
	r.Sentences += o.Sentences
	r.Words += o.Words
	r.Accented += o.Accented
	r.Correct += o.Correct
	r.CorrectAccented += o.CorrectAccented
	r.Baseline += o.Baseline
	r.Elapsed += o.Elapsed
}

// RunDiacritics evaluates diacritics restoration on the sentences of
// cfg.Files and writes a report to w: one line per file, then the totals.
func RunDiacritics(cfg DiacriticsConfig, w io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	var files [][]string
	total := 0
	for _, f := range cfg.Files {
		s, err := readDiacriticsText(f)
		if err != nil {
			return err
		}
		if cfg.MaxSentences > 0 && total+len(s) > cfg.MaxSentences {
			s = s[:cfg.MaxSentences-total]
		}
		total += len(s)
		files = append(files, s)
	}
	if total == 0 {
		return fmt.Errorf("diacritics: no sentences in %v: %w", cfg.Files, ErrBadData)
	}
	t0 := time.Now()
	r, err := diacritics.Default()
	if err != nil {
		return fmt.Errorf("load restorer: %w", err)
	}
	load := time.Since(t0)
	if cfg.NoDictionary {
		r = r.WithDictionary(nil)
	}
	// The engine's configuration: multiword place names too.
	r = r.WithNames(ner.CzechPlaceNames())
	dict := "none (lexicon only)"
	if r.HasDictionary() {
		dict = "hunspell-cs in " + diacritics.DictionaryDir()
	}
	if cfg.Errors > 0 {
		fmt.Fprintln(w, "errors (stripped → restored, want original):")
	}
	var res DiacriticsResult
	var cres CaseResult
	var lines []string
	maxErrs := cfg.Errors
	for i, sents := range files {
		c := EvalCase(r, sents)
		cres.Capitalized += c.Capitalized
		cres.Restored += c.Restored
		cres.Predicted += c.Predicted
		fr := EvalDiacritics(r, sents, w, maxErrs)
		maxErrs = max(0, maxErrs-(fr.Words-fr.Correct))
		res.add(fr)
		lines = append(lines, fmt.Sprintf("  %-28s sentences %5d  words %6d  accuracy %.4f  accented %.4f",
			filepath.Base(cfg.Files[i]), fr.Sentences, fr.Words, fr.Accuracy(), fr.AccentedAccuracy()))
	}
	fmt.Fprintf(w, "sentences %d  words %d  accented %d  (load %v)\n", res.Sentences, res.Words, res.Accented, load.Round(time.Millisecond))
	fmt.Fprintf(w, "dictionary               %s\n", dict)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "word accuracy            %.4f\n", res.Accuracy())
	fmt.Fprintf(w, "accented-word accuracy   %.4f\n", res.AccentedAccuracy())
	fmt.Fprintf(w, "do-nothing baseline      %.4f\n", res.BaselineAccuracy())
	fmt.Fprintf(w, "time per sentence        %v\n", (res.Elapsed / time.Duration(res.Sentences)).Round(time.Microsecond))
	fmt.Fprintf(w, "capitals, typed lowercase: recall %.4f (%d of %d words after the first), precision %.4f (of %d)\n",
		cres.Recall(), cres.Restored, cres.Capitalized, cres.Precision(), cres.Predicted)
	return nil
}
