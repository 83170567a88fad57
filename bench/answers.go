package bench

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/rerank"
)

// AnswerQuestion is a question whose answer is known: an answer is right
// when it contains one of Answers (folded: case, diacritics and spacing
// ignored, at word boundaries).
type AnswerQuestion struct {
	// Kind names the template ("capital", "currency", "calling code",
	// "capital by code", "currency by code").
	Kind     string
	Question string
	Answers  []string
}

// countryJSON holds the fields of countries.json the questions use.
type countryJSON struct {
	Name struct {
		Common string `json:"common"`
	} `json:"name"`
	CCA2       string                           `json:"cca2"`
	Capital    []string                         `json:"capital"`
	Currencies map[string]struct{ Name string } `json:"currencies"`
	IDD        struct {
		Root     string   `json:"root"`
		Suffixes []string `json:"suffixes"`
	} `json:"idd"`
	Translations map[string]struct {
		Common string `json:"common"`
	} `json:"translations"`
}

// CountryQuestions generates questions with known answers from the fields
// of countries.json and country-codes.csv in dir, deterministically: for
// every step-th country of countries.json (file order) its capital,
// currency and calling code by name, and for every step-th row of
// country-codes.csv its capital and currency by ISO 3166 alpha-2 code.
// Countries without the field are skipped. With czech the questions are
// asked in Czech, by-name ones with the country's Czech name
// (translations.ces); the known answers stay the files' values (English
// names, which the records hold).
func CountryQuestions(dir string, step int, czech bool) ([]AnswerQuestion, error) {
	step = max(1, step)
	data, err := os.ReadFile(filepath.Join(dir, "countries.json"))
	if err != nil {
		return nil, fmt.Errorf("country questions: %w", err)
	}
	var cs []countryJSON
	if err := json.Unmarshal(data, &cs); err != nil {
		return nil, fmt.Errorf("country questions: countries.json: %w: %w", ErrBadData, err)
	}
	var out []AnswerQuestion
	for i := 0; i < len(cs); i += step {
		c := cs[i]
		name := c.Name.Common
		tpl := [3]string{"What is the capital of %s?", "Which currency is used in %s?", "What is the calling code of %s?"}
		if czech {
			name = c.Translations["ces"].Common
			tpl = [3]string{"Jaké je hlavní město země %s?", "Jaká měna se používá v zemi %s?", "Jaká je telefonní předvolba země %s?"}
		}
		if name == "" {
			continue
		}
		if caps := nonEmpty(c.Capital); len(caps) > 0 {
			out = append(out, AnswerQuestion{"capital", fmt.Sprintf(tpl[0], name), caps})
		}
		var curs []string
		for _, code := range slices.Sorted(mapKeys(c.Currencies)) {
			if n := c.Currencies[code].Name; n != "" {
				curs = append(curs, n)
			}
		}
		if len(curs) > 0 {
			out = append(out, AnswerQuestion{"currency", fmt.Sprintf(tpl[1], name), curs})
		}
		if c.IDD.Root != "" && len(c.IDD.Suffixes) == 1 {
			code := strings.TrimPrefix(c.IDD.Root+c.IDD.Suffixes[0], "+")
			out = append(out, AnswerQuestion{"calling code", fmt.Sprintf(tpl[2], name), []string{code}})
		}
	}
	f, err := os.Open(filepath.Join(dir, "country-codes.csv"))
	if err != nil {
		return nil, fmt.Errorf("country questions: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, fmt.Errorf("country questions: country-codes.csv: %w: %v", ErrBadData, err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"ISO3166-1-Alpha-2", "Capital", "ISO4217-currency_name"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("country questions: country-codes.csv has no column %q: %w", h, ErrBadData)
		}
	}
	tpl := [2]string{"What is the capital of the country with code %s?", "Which currency is used in the country with code %s?"}
	if czech {
		tpl = [2]string{"Jaké je hlavní město země s kódem %s?", "Jaká měna se používá v zemi s kódem %s?"}
	}
	for i := 1; i < len(rows); i += step {
		r := rows[i]
		code := strings.TrimSpace(r[col["ISO3166-1-Alpha-2"]])
		if code == "" {
			continue
		}
		if v := strings.TrimSpace(r[col["Capital"]]); v != "" {
			out = append(out, AnswerQuestion{"capital by code", fmt.Sprintf(tpl[0], code), []string{v}})
		}
		if v := strings.TrimSpace(r[col["ISO4217-currency_name"]]); v != "" {
			out = append(out, AnswerQuestion{"currency by code", fmt.Sprintf(tpl[1], code), []string{v}})
		}
	}
	return out, nil
}

func nonEmpty(s []string) []string {
	var out []string
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func mapKeys[M ~map[K]V, K comparable, V any](m M) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Fold lowercases s, strips diacritics and collapses every run of
// non-letters and non-digits to one space, with a space at both ends, so
// that a folded value is found in a folded text at word boundaries.
func Fold(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
			space = false
		case !space:
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// AnswerHolds reports whether answer contains one of the known values,
// folded (Fold).
func AnswerHolds(answer string, values []string) bool {
	fa := Fold(answer)
	for _, v := range values {
		if fv := Fold(v); strings.TrimSpace(fv) != "" && strings.Contains(fa, fv) {
			return true
		}
	}
	return false
}

// AnswersConfig configures RunAnswers.
type AnswersConfig struct {
	// Docs is the directory of countries.json and country-codes.csv.
	Docs string
	// Dir is the engine directory; the collection "countries" (records of
	// both files) is created when missing. "" uses a temporary directory.
	Dir string
	// Models and ORTLib locate the embedding models and ONNX Runtime;
	// Reranker the cross-encoder directory.
	Models, ORTLib, Reranker string
	// Language of the collection ("en" or "cs"; cs asks the questions in
	// Czech and uses the collection's default model).
	Language string
	// Step takes every Step-th country (default 5).
	Step int
	// TopK is the documents an answer is drawn from (default 5).
	TopK int
	// SciFact also measures answers to SciFact claims on the engine
	// directory SciFactDir (collection "all", filled by najdi-bench search):
	// the answer quotes a judged abstract. MaxQueries limits them.
	SciFactDir, BEIRDir string
	MaxQueries          int
}

// AnswersResult counts right answers.
type AnswersResult struct {
	Questions, Right, NoAnswer int
	ByKind                     map[string][2]int // kind → right, questions
	// Wrong lists "question → answer" of the questions answered wrong.
	Wrong     []string
	P50, Mean time.Duration
}

// RunAnswers measures the extractive answer rate on questions with known
// answers, asked through engine.Answer of a collection holding the records
// of countries.json and country-codes.csv, with answer sentences picked by
// term weights only ("rerank": false) and by the reranker's scorer (the
// default), and optionally the share of SciFact claims whose answer quotes
// a judged abstract, both ways.
func RunAnswers(cfg AnswersConfig, w io.Writer) error {
	cfg.Language = cmp.Or(cfg.Language, "en")
	qs, err := CountryQuestions(cfg.Docs, cmp.Or(cfg.Step, 5), cfg.Language == "cs")
	if err != nil {
		return err
	}
	if cfg.Dir == "" {
		d, err := os.MkdirTemp("", "najdi-bench-answers")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		cfg.Dir = d
	}
	prov, err := engine.NewModelProvider(cfg.Models, cfg.ORTLib)
	if err != nil {
		return err
	}
	defer prov.Close()
	var ce *rerank.CrossEncoder
	if cfg.Reranker != "" {
		if ce, err = rerank.Load(cfg.Reranker, rerank.Options{LibraryPath: cfg.ORTLib}); err != nil {
			return err
		}
		defer ce.Close()
	}
	opts := engine.Options{Dir: cfg.Dir, Embedders: prov}
	if ce != nil {
		opts.Reranker = ce
	}
	e, err := engine.Open(opts)
	if err != nil {
		return err
	}
	defer e.Close()
	ctx := context.Background()
	if err := CountriesCollection(ctx, e, cfg.Docs, "countries", cfg.Language); err != nil {
		return err
	}
	k := cmp.Or(cfg.TopK, 5)
	fmt.Fprintf(w, "%d questions (every %d-th country, language %s), answers from the top %d records\n", len(qs), cmp.Or(cfg.Step, 5), cfg.Language, k)
	if err := answersCountries(ctx, e, qs, k, w); err != nil {
		return err
	}
	if cfg.SciFactDir == "" {
		return nil
	}
	return answersSciFact(ctx, prov, opts.Reranker, cfg, k, w)
}

// answersCountries asks the country questions with answer sentences picked
// by term weights and by the reranker's scorer and prints the rates, the
// rates by kind, latency and process CPU time per answer.
func answersCountries(ctx context.Context, e *engine.Engine, qs []AnswerQuestion, k int, w io.Writer) error {
	for _, scored := range []bool{false, true} {
		load0 := loadAverage()
		cpu0, _ := ingestCPUTime()
		r, err := AskCountries(ctx, e, "countries", qs, k, scored)
		if err != nil {
			return err
		}
		cpu1, _ := ingestCPUTime()
		mode := "term weights (the default)"
		if scored {
			mode = "reranker's scorer (rerank)"
		}
		fmt.Fprintf(w, "%-30s right %.3f (%d of %d), no answer %d, p50 %s, mean %s, CPU/answer %s, load %s → %s\n", mode, float64(r.Right)/float64(max(1, r.Questions)),
			r.Right, r.Questions, r.NoAnswer, r.P50.Round(time.Millisecond), r.Mean.Round(time.Millisecond),
			((cpu1 - cpu0) / time.Duration(max(1, r.Questions))).Round(time.Millisecond), load0, loadAverage())
		for _, kind := range slices.Sorted(mapKeys(r.ByKind)) {
			v := r.ByKind[kind]
			fmt.Fprintf(w, "    %-16s %d of %d\n", kind, v[0], v[1])
		}
		for _, x := range r.Wrong {
			fmt.Fprintf(w, "    wrong: %s\n", x)
		}
	}
	return nil
}

// answersSciFact measures answers to SciFact claims (cfg.MaxQueries of
// them, evenly spaced) on the engine directory cfg.SciFactDir, both ways.
func answersSciFact(ctx context.Context, prov *engine.ModelProvider, rr engine.Reranker, cfg AnswersConfig, k int, w io.Writer) error {
	b, err := LoadBEIR(cmp.Or(cfg.BEIRDir, "../shared/data/beir/scifact"))
	if err != nil {
		return err
	}
	if n := len(b.Queries); cfg.MaxQueries > 0 && cfg.MaxQueries < n {
		sel := make([]BEIRQuery, cfg.MaxQueries)
		for i := range sel {
			sel[i] = b.Queries[i*n/cfg.MaxQueries]
		}
		b.Queries = sel
	}
	sf, err := engine.Open(engine.Options{Dir: cfg.SciFactDir, Embedders: prov, Reranker: rr})
	if err != nil {
		return err
	}
	defer sf.Close()
	for _, scored := range []bool{false, true} {
		a, err := evalAnswers(ctx, sf, b, k, !scored)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "SciFact %d claims, answer sentence by %s: quotes a judged abstract first %.3f (%d), top document judged %.3f, no answer %d, p50 %s\n",
			a.Queries, map[bool]string{false: "term weights", true: "the reranker's scorer"}[scored], a.Rate(), a.Relevant,
			float64(a.TopRelevant)/float64(max(1, a.Queries)), a.NoAnswer, a.P50.Round(time.Millisecond))
	}
	return nil
}

// CountriesCollection creates collection name (language lang) holding the
// records of countries.json and country-codes.csv of dir, unless it
// already holds documents.
func CountriesCollection(ctx context.Context, e *engine.Engine, dir, name, lang string) error {
	if c, err := e.GetCollection(ctx, "", name); err == nil && c.DocumentCount > 0 {
		return nil
	}
	if _, _, err := e.PutCollection(ctx, "", name, engine.CollectionConfig{SearchConfig: engine.SearchConfig{Language: lang}}); err != nil {
		return err
	}
	for _, f := range []struct{ file, format string }{{"countries.json", "json"}, {"country-codes.csv", "csv"}} {
		data, err := os.ReadFile(filepath.Join(dir, f.file))
		if err != nil {
			return err
		}
		res, err := e.Ingest(ctx, "", name, engine.IngestRequest{Format: f.format, Data: data, FileName: f.file})
		if err != nil {
			return fmt.Errorf("ingest %s: %w", f.file, err)
		}
		if len(res.Errors) > 0 {
			return fmt.Errorf("ingest %s: %d errors, first %v", f.file, len(res.Errors), res.Errors[0])
		}
	}
	return nil
}

// AskCountries asks every question of qs through engine.Answer on
// collection coll (the top k documents) and counts right answers; scored
// asks with "rerank": true (sentences picked by the reranker's scorer),
// else with the default (term weights).
func AskCountries(ctx context.Context, e *engine.Engine, coll string, qs []AnswerQuestion, k int, scored bool) (AnswersResult, error) {
	r := AnswersResult{ByKind: map[string][2]int{}}
	var lat []time.Duration
	for _, q := range qs {
		req := engine.SearchRequest{Query: q.Question, MaxResults: &k}
		if scored {
			req.Rerank = &engine.RerankRequest{}
		}
		t := time.Now()
		res, err := e.Answer(ctx, "", []string{coll}, req)
		if err != nil {
			return r, fmt.Errorf("answer %q: %w", q.Question, err)
		}
		lat = append(lat, time.Since(t))
		r.Questions++
		v := r.ByKind[q.Kind]
		v[1]++
		switch {
		case res.Answer == nil || len(res.Metadata.AnswerSources) == 0:
			r.NoAnswer++
		case AnswerHolds(*res.Answer, q.Answers):
			r.Right++
			v[0]++
		default:
			r.Wrong = append(r.Wrong, fmt.Sprintf("%s → %s (want %s)", q.Question, strings.ReplaceAll(*res.Answer, "\n", " / "), strings.Join(q.Answers, " | ")))
		}
		r.ByKind[q.Kind] = v
	}
	if len(lat) > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		var s time.Duration
		for _, l := range lat {
			s += l
		}
		r.P50, r.Mean = lat[len(lat)/2], s/time.Duration(len(lat))
	}
	return r, nil
}

// WriteCountriesSubset writes into dst the records of countries.json and
// country-codes.csv of src that CountryQuestions(src, step, …) asks about,
// plus those of the countries whose ISO 3166 alpha-2 code is in codes, so
// that a small collection answers the same questions.
func WriteCountriesSubset(src, dst string, step int, codes ...string) error {
	step = max(1, step)
	data, err := os.ReadFile(filepath.Join(src, "countries.json"))
	if err != nil {
		return err
	}
	var all []json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return fmt.Errorf("countries.json: %w: %w", ErrBadData, err)
	}
	var keep []json.RawMessage
	for i, raw := range all {
		var c countryJSON
		if err := json.Unmarshal(raw, &c); err != nil {
			return fmt.Errorf("countries.json record %d: %w: %w", i, ErrBadData, err)
		}
		if i%step == 0 || slices.Contains(codes, c.CCA2) {
			keep = append(keep, raw)
		}
	}
	out, err := json.Marshal(keep)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dst, "countries.json"), out, 0o644); err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(src, "country-codes.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		return fmt.Errorf("country-codes.csv: %w: %v", ErrBadData, err)
	}
	a2 := slices.Index(rows[0], "ISO3166-1-Alpha-2")
	if a2 < 0 {
		return fmt.Errorf("country-codes.csv has no column ISO3166-1-Alpha-2: %w", ErrBadData)
	}
	var buf strings.Builder
	cw := csv.NewWriter(&buf)
	cw.Write(rows[0])
	for i := 1; i < len(rows); i++ {
		if (i-1)%step == 0 || slices.Contains(codes, strings.TrimSpace(rows[i][a2])) {
			cw.Write(rows[i])
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, "country-codes.csv"), []byte(buf.String()), 0o644)
}
