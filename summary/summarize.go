package summary

import (
	"fmt"
	"slices"
	"strings"

	"github.com/najdi/najdi/text"
)

// Defaults of Config.
const (
	// DefaultMaxTokens is the budget when Config.MaxTokens is 0.
	DefaultMaxTokens = 1000
	// DefaultSummarySeparator joins the excerpts of one document.
	DefaultSummarySeparator = "\n\n"
	// DefaultDocumentSeparator joins documents in the summary string.
	DefaultDocumentSeparator = "\n\n---\n\n"
	// MinWords is the fewest words of a sentence the most aggressive level
	// keeps (fewer only when the sentence is shorter).
	MinWords = 4
	// Ellipsis marks where a shortened sentence was cut. It is counted in
	// the budget like any other text.
	Ellipsis = "…"
)

// Section is one section of a document, in document order.
type Section struct {
	// Type is the section type ("title", "text", a column name...).
	Type string
	// Content is the section's text.
	Content string
}

// Evidence is a passage of a section that a retriever (keyword or
// semantic) found relevant to the query.
type Evidence struct {
	// Section is the index of the section in Doc.Sections.
	Section int
	// Start and End are code point offsets into the section content.
	Start, End int
	// Score is the passage's relevance; only ratios within a document matter.
	Score float64
}

// Doc is one retrieved document.
type Doc struct {
	// ID is the document id.
	ID string
	// CollectionID is the collection the document belongs to.
	CollectionID string
	// Score is the document's retrieval score (higher is better).
	Score float64
	// Sections holds the document's text in reading order.
	Sections []Section
	// Evidence holds the passages the retrievers matched, if any.
	Evidence []Evidence
}

// Config controls a summary. The zero value is usable: every empty field
// takes its default.
type Config struct {
	// MaxTokens bounds the summaries' cumulative token count and the
	// summary string's token count (default DefaultMaxTokens).
	MaxTokens int
	// SummarySeparator joins non-contiguous excerpts within one document's
	// summary (default DefaultSummarySeparator).
	SummarySeparator string
	// DocumentSeparator joins the documents' summaries into the summary
	// string (default DefaultDocumentSeparator).
	DocumentSeparator string
	// Tokenizer counts tokens (default o200k_base).
	Tokenizer Tokenizer
	// Analyzer turns text into terms to match the query, normally the
	// collection's (so summaries match what keyword retrieval matched).
	// Nil means a built-in language-neutral analysis: folded words without
	// stop words, truncated to six letters.
	Analyzer *text.Analyzer
}

// withDefaults validates c and fills its empty fields.
func (c Config) withDefaults() (Config, error) {
	if c.MaxTokens < 0 {
		return c, fmt.Errorf("max_tokens %d: must not be negative: %w", c.MaxTokens, ErrInvalid)
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.SummarySeparator == "" {
		c.SummarySeparator = DefaultSummarySeparator
	}
	if c.DocumentSeparator == "" {
		c.DocumentSeparator = DefaultDocumentSeparator
	}
	if c.Tokenizer == nil {
		t, err := NewTokenizer(O200kBase, nil)
		if err != nil {
			return c, err
		}
		c.Tokenizer = t
	}
	return c, nil
}

// Summary is the excerpt of one document.
type Summary struct {
	// DocumentID is the document the excerpt comes from.
	DocumentID string
	// CollectionID is the document's collection.
	CollectionID string
	// Content is the excerpt: text of the document in reading order.
	Content string
}

// Result is the outcome of Summarize.
type Result struct {
	// Summaries holds one excerpt per represented document, in rank order.
	Summaries []Summary
	// String is the summaries joined by Config.DocumentSeparator, set only
	// when requested.
	String string
	// PromptTokens is the token count of what was produced: the token count
	// of String when it was requested, otherwise the sum of the summaries'
	// token counts.
	PromptTokens int
	// OriginalCount is the number of documents given to Summarize.
	OriginalCount int
	// SummaryCount is the number of documents represented: len(Summaries).
	SummaryCount int
	// Method names the most aggressive level used (see Levels), "top_documents"
	// when documents had to be left out, or "none" when no document fit.
	Method string
	// Message tells in one sentence how the budget was met.
	Message string
	// Tokenizer is the name of the tokenizer that counted the tokens
	// (Config.Tokenizer's Name).
	Tokenizer string

	analyzer *text.Analyzer // Config.Analyzer, reused by Extractive
}

// Levels names the summarization levels from the mildest to the most
// aggressive; they are the values of Result.Method besides "top_documents"
// and "none".
var Levels = [...]string{"sections", "passages", "sentences", "best_sentence", "shortened_sentences"}

// Level indices.
const (
	levelSections = iota
	levelPassages
	levelSentences
	levelBest
	levelShort
	numLevels
)

// passageSentences and bestSentences are how many top sentences the
// passages and sentences levels take.
const (
	passageSentences = 2
	bestSentences    = 2
)

// bigExcerpt is the bytes per budget token above which an excerpt is taken
// not to fit without counting it (typical text has 3–5 bytes per token).
// It saves counting whole long documents; it never affects the budget.
const bigExcerpt = 12

// excerpt is one candidate summary of a document.
type excerpt struct {
	text   string
	tokens int
	k      int // words kept, shortened level only
}

// docState is a document's place in the budget search.
type docState struct {
	p     *prepared
	level int
	cur   excerpt
	min   excerpt              // the most aggressive excerpt
	lvl   [levelShort]*excerpt // lazily built excerpts of the fixed levels
	words []text.Span          // words of the best sentence
	wts   []float64            // query weight of each word
}

// Summarize builds one excerpt per document of docs (given in rank order)
// whose cumulative token count is at most cfg.MaxTokens; when wantString is
// set, the summary string (the excerpts joined by the document separator)
// is within the budget too. It starts every document at its relevant
// sections and, while the total does not fit, moves the document with the
// longest excerpt to the next level (best passages, best sentences, the
// best sentence); then it shortens the longest best sentences at word
// boundaries (down to MinWords words); documents whose shortest excerpt
// still cannot fit are dropped from the tail. Documents without any text
// get no summary. Excerpts are text of the document in reading order;
// sentences come from the sections, relevance from the query terms and the
// documents' Evidence.
func Summarize(query string, docs []Doc, cfg Config, wantString bool) (Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	res := Result{OriginalCount: len(docs), Tokenizer: cfg.Tokenizer.Name(), analyzer: cfg.Analyzer}
	w := newWeights(query, docs, cfg.Analyzer)
	states := make([]*docState, 0, len(docs))
	empty := 0
	for i := range docs {
		p := prepare(i, &docs[i], w)
		if len(p.sents) == 0 {
			empty++
			continue
		}
		st := &docState{p: p}
		st.initWords(w)
		st.min = st.shorten(cfg, min(MinWords, len(st.words)))
		if full := st.shorten(cfg, len(st.words)); full.tokens <= st.min.tokens {
			st.min = full // the ellipsis cost more than the words it saved
		}
		states = append(states, st)
	}
	s := &solver{cfg: cfg, wantString: wantString, sepTokens: cfg.Tokenizer.Count(cfg.DocumentSeparator)}
	n := s.fitMinimal(states)
	kept := states[:n]
	if n > 0 {
		s.degrade(kept)
		s.exact(kept)
		n = len(s.kept)
		kept = s.kept
	}
	for _, st := range kept {
		res.Summaries = append(res.Summaries, Summary{DocumentID: st.p.doc.ID, CollectionID: st.p.doc.CollectionID, Content: st.cur.text})
		res.PromptTokens += st.cur.tokens
	}
	res.SummaryCount = n
	if wantString {
		res.String = s.join(kept)
		res.PromptTokens = cfg.Tokenizer.Count(res.String)
	}
	res.Method, res.Message = describe(kept, len(states), empty, cfg.MaxTokens)
	return res, nil
}

// solver holds the budget search of one Summarize call.
type solver struct {
	cfg        Config
	wantString bool
	sepTokens  int
	kept       []*docState
}

// join concatenates the current excerpts with the document separator.
func (s *solver) join(sts []*docState) string {
	var b strings.Builder
	for i, st := range sts {
		if i > 0 {
			b.WriteString(s.cfg.DocumentSeparator)
		}
		b.WriteString(st.cur.text)
	}
	return b.String()
}

// estimate is the total the budget bounds, assuming separators add their
// own token count (exact is the final check).
func (s *solver) estimate(sts []*docState) int {
	t := 0
	for _, st := range sts {
		t += st.cur.tokens
	}
	if s.wantString && len(sts) > 1 {
		t += (len(sts) - 1) * s.sepTokens
	}
	return t
}

// fits reports exactly whether the current excerpts of sts meet the budget.
func (s *solver) fits(sts []*docState) bool {
	sum := 0
	for _, st := range sts {
		sum += st.cur.tokens
	}
	if sum > s.cfg.MaxTokens {
		return false
	}
	return !s.wantString || s.cfg.Tokenizer.Count(s.join(sts)) <= s.cfg.MaxTokens
}

// fitMinimal returns the largest n such that the shortest excerpts of the
// first n documents meet the budget, and leaves every document at its
// shortest excerpt.
func (s *solver) fitMinimal(sts []*docState) int {
	sum := 0
	n := 0
	for _, st := range sts {
		st.cur, st.level = st.min, levelShort
		if sum+st.min.tokens > s.cfg.MaxTokens {
			break
		}
		sum += st.min.tokens
		n++
	}
	for n > 0 && !s.fits(sts[:n]) {
		n--
	}
	return n
}

// degrade starts every document at its sections level and moves the
// longest excerpt one level down while the estimate is over budget; if the
// best sentences still do not fit it shortens the longest ones to a common
// token cap (water filling), never below each document's shortest excerpt.
func (s *solver) degrade(sts []*docState) {
	for _, st := range sts {
		st.setLevel(s.cfg, levelSections)
	}
	for s.estimate(sts) > s.cfg.MaxTokens {
		var pick *docState
		for _, st := range sts {
			if st.level < levelBest && (pick == nil || st.cur.tokens >= pick.cur.tokens) {
				pick = st
			}
		}
		if pick == nil {
			break
		}
		pick.setLevel(s.cfg, pick.level+1)
	}
	if s.estimate(sts) <= s.cfg.MaxTokens {
		// Spend what the last moves freed: give documents back milder
		// levels, top documents first.
		for _, st := range sts {
			for l := levelSections; l < st.level; l++ {
				prev := st.level
				st.setLevel(s.cfg, l)
				if s.estimate(sts) <= s.cfg.MaxTokens {
					break
				}
				st.setLevel(s.cfg, prev)
			}
		}
		return
	}
	// Water filling: the largest cap c with sum(target(c)) within budget.
	target := func(st *docState, c int) int {
		if st.cur.tokens <= c {
			return st.cur.tokens
		}
		return max(c, st.min.tokens)
	}
	total := func(c int) int {
		t := 0
		for _, st := range sts {
			t += target(st, c)
		}
		if s.wantString && len(sts) > 1 {
			t += (len(sts) - 1) * s.sepTokens
		}
		return t
	}
	lo, hi := 0, 0
	for _, st := range sts {
		hi = max(hi, st.cur.tokens)
	}
	for lo < hi { // largest c in [0, hi] with total(c) <= budget, else 0
		mid := (lo + hi + 1) / 2
		if total(mid) <= s.cfg.MaxTokens {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for _, st := range sts {
		if t := target(st, lo); t < st.cur.tokens {
			st.shortenTo(s.cfg, t)
		}
	}
}

// exact shrinks excerpts until the exact counts meet the budget: the
// longest excerpt that can still shrink loses the overflow (at least one
// token); when none can, the last document is dropped. It sets s.kept.
func (s *solver) exact(sts []*docState) {
	for len(sts) > 0 {
		sum := 0
		for _, st := range sts {
			sum += st.cur.tokens
		}
		over := sum - s.cfg.MaxTokens
		if over <= 0 && s.wantString {
			over = s.cfg.Tokenizer.Count(s.join(sts)) - s.cfg.MaxTokens
		}
		if over <= 0 {
			break
		}
		var pick *docState
		for _, st := range sts {
			if st.cur.tokens > st.min.tokens && (pick == nil || st.cur.tokens >= pick.cur.tokens) {
				pick = st
			}
		}
		if pick == nil {
			// Only the all-shortest configuration is known to fit (token
			// counts are not additive); return to it before dropping.
			allMin := true
			for _, st := range sts {
				if st.cur != st.min {
					allMin = false
					st.cur, st.level = st.min, levelShort
				}
			}
			if allMin {
				sts = sts[:len(sts)-1]
			}
			continue
		}
		pick.shortenTo(s.cfg, max(pick.min.tokens, pick.cur.tokens-max(over, 1)))
	}
	s.kept = sts
}

// setLevel moves st to fixed level l, building its excerpt on first use.
func (st *docState) setLevel(cfg Config, l int) {
	st.level = l
	if st.lvl[l] == nil {
		e := st.build(cfg, l)
		st.lvl[l] = &e
	}
	st.cur = *st.lvl[l]
}

// build renders the excerpt of fixed level l.
func (st *docState) build(cfg Config, l int) excerpt {
	p := st.p
	var picked []int // sentence indices
	switch l {
	case levelSections:
		secs := map[int]bool{}
		for _, i := range p.best {
			if p.sents[i].score > 0 {
				secs[p.sents[i].sec] = true
			}
		}
		if len(secs) == 0 { // nothing matched: the whole document
			for _, se := range p.sents {
				secs[se.sec] = true
			}
		}
		for i, se := range p.sents {
			if secs[se.sec] {
				picked = append(picked, i)
			}
		}
	case levelPassages:
		for _, i := range p.best[:min(passageSentences, len(p.best))] {
			for j := i - 1; j <= i+1; j++ {
				if j >= 0 && j < len(p.sents) && p.sents[j].sec == p.sents[i].sec {
					picked = append(picked, j)
				}
			}
		}
	case levelSentences:
		picked = append(picked, p.best[:min(bestSentences, len(p.best))]...)
	default:
		picked = append(picked, p.best[0])
	}
	slices.Sort(picked)
	picked = slices.Compact(picked)
	var b strings.Builder
	for k := 0; k < len(picked); {
		// A run of consecutive sentences of one section is one span of the
		// original text.
		j := k
		for j+1 < len(picked) && picked[j+1] == picked[j]+1 && p.sents[picked[j+1]].sec == p.sents[picked[k]].sec {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(cfg.SummarySeparator)
		}
		first, last := p.sents[picked[k]], p.sents[picked[j]]
		b.WriteString(p.doc.Sections[first.sec].Content[first.a:last.b])
		k = j + 1
	}
	text := b.String()
	if len(text) > bigExcerpt*cfg.MaxTokens {
		return excerpt{text: text, tokens: cfg.MaxTokens + 1}
	}
	return excerpt{text: text, tokens: cfg.Tokenizer.Count(text)}
}

// initWords splits the best sentence into words and weighs each by the
// query terms it holds.
func (st *docState) initWords(w *weights) {
	p := st.p
	se := p.sents[p.best[0]]
	content := p.doc.Sections[se.sec].Content
	st.words = words(content, se.a, se.b)
	st.wts = make([]float64, len(st.words))
	for i, wd := range st.words {
		st.wts[i] = w.termScore(content[wd.Start:wd.End])
	}
}

// shorten returns the window of k words of the best sentence with the most
// query weight (the earliest on ties), with Ellipsis where it was cut.
func (st *docState) shorten(cfg Config, k int) excerpt {
	p := st.p
	se := p.sents[p.best[0]]
	content := p.doc.Sections[se.sec].Content
	n := len(st.words)
	k = max(1, min(k, n))
	bestAt, bestW, cur := 0, -1.0, 0.0
	for i := 0; i < n; i++ {
		cur += st.wts[i]
		if i >= k {
			cur -= st.wts[i-k]
		}
		if i >= k-1 && cur > bestW+1e-12 {
			bestW, bestAt = cur, i-k+1
		}
	}
	text := content[st.words[bestAt].Start:st.words[bestAt+k-1].End]
	if bestAt > 0 {
		text = Ellipsis + " " + text
	}
	if bestAt+k < n {
		text += " " + Ellipsis
	}
	return excerpt{text: text, tokens: cfg.Tokenizer.Count(text), k: k}
}

// shortenTo sets st to the longest shortened best sentence of at most t
// tokens, or its shortest excerpt. A level above shortened is kept when it
// already fits t.
func (st *docState) shortenTo(cfg Config, t int) {
	if st.cur.tokens <= t {
		return
	}
	best := st.min
	lo, hi := best.k+1, len(st.words)
	if st.level == levelShort && st.cur.k > 0 {
		hi = min(hi, st.cur.k-1)
	}
	for lo <= hi { // token counts grow with k, so binary search the largest k
		mid := (lo + hi) / 2
		e := st.shorten(cfg, mid)
		if e.tokens <= t {
			best, lo = e, mid+1
		} else {
			hi = mid - 1
		}
	}
	st.cur, st.level = best, levelShort
}

// describe names the method and writes the message of a result.
func describe(kept []*docState, withText, empty, budget int) (string, string) {
	var counts [numLevels]int
	deepest := 0
	for _, st := range kept {
		l := st.level
		if l == levelShort && st.cur.k == len(st.words) {
			l = levelBest // shortened to the whole sentence
		}
		counts[l]++
		deepest = max(deepest, l)
	}
	var note string
	if empty > 0 {
		note = fmt.Sprintf(" %d document(s) without text were skipped.", empty)
	}
	if len(kept) == 0 {
		if withText == 0 {
			return "none", "No document with text to summarize." + note
		}
		return "none", fmt.Sprintf("Not even the shortest excerpt of the top document fits within %d tokens.", budget) + note
	}
	var parts []string
	for l, c := range counts {
		if c > 0 {
			parts = append(parts, fmt.Sprintf("%d as %s", c, strings.ReplaceAll(Levels[l], "_", " ")))
		}
	}
	how := strings.Join(parts, ", ")
	if len(kept) < withText {
		return "top_documents", fmt.Sprintf("Only the top %d of %d documents fit within %d tokens (%s).", len(kept), withText, budget, how) + note
	}
	return Levels[deepest], fmt.Sprintf("All %d documents fit within %d tokens (%s).", len(kept), budget, how) + note
}
