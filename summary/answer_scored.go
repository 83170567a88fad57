package summary

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/najdi/najdi/text"
)

// Scorer scores how relevant each passage is to a question, in 0..1, each
// passage independently of the others: the search reranker's scorer
// (package rerank: the cross-encoder for English, the multilingual
// embeddings' similarity for other languages).
type Scorer interface {
	Score(ctx context.Context, query string, passages []string) ([]float64, error)
}

// Scored answer-extraction constants.
const (
	// scoredPerDoc is the sentences of one document the scorer reads: the
	// best by question-term weight and evidence (prepare), so that the
	// cost stays a few dozen model runs per answer.
	scoredPerDoc = 24
	// scoredDocs is the summarized documents whose sentences are scored,
	// best first: the rank discount leaves little chance to the others.
	scoredDocs = 3
	// scoredMaxRunes bounds a sentence given to the scorer.
	scoredMaxRunes = 600
)

// proseTypes are section types of running text. A section of any other
// type is a record field: its sentences are read and quoted with the field
// name ("Capital: Prague"), since the value alone does not say what it is.
var proseTypes = map[string]bool{
	"": true, "title": true, "p": true, "text": true, "h1": true, "h2": true, "h3": true, "h4": true,
	"h5": true, "h6": true, "li": true, "quote": true, "pre": true, "caption": true, "table": true,
	"heading": true, "paragraph": true, "body": true, "abstract": true, "content": true, "section": true,
}

// ExtractiveScored answers question from the documents of r (the summaries
// of docs, as Extractive does) with sentences picked by sc instead of by
// question-term weight: of each of the first scoredDocs summarized
// documents it takes the scoredPerDoc distinct sentences with the most question-term weight and evidence
// (a sentence of a record field counts its field name as text, and is
// read after the record's field that matches the question best), scores
// them with sc, discounts each score by its document's rank as Extractive
// does (score / (1 + rankDecay × rank)) and quotes the best, plus the best
// sentence of another document when its undiscounted score is at least
// secondAnswer of the best one's. A record field's sentence is read and
// quoted as "anchor field: value. field: sentence". As with Extractive, when no sentence shares
// a term with the question (field names included) the answer is NoAnswer.
// With sc nil it is Extractive.
func ExtractiveScored(ctx context.Context, question string, r Result, docs []Doc, sc Scorer) (AnswerResult, error) {
	if sc == nil {
		return Extractive(question, r, docs), nil
	}
	out := AnswerResult{Answer: NoAnswer, PromptTokens: r.PromptTokens, Summary: r}
	w := newWeights(question, docs, r.analyzer)
	byID := map[[2]string]int{}
	for i := range docs {
		k := [2]string{docs[i].CollectionID, docs[i].ID}
		if _, ok := byID[k]; !ok {
			byID[k] = i
		}
	}
	var cands []scoredCand
	anyTerm := false
	for si, s := range r.Summaries {
		di, ok := byID[[2]string{s.CollectionID, s.DocumentID}]
		if !ok {
			continue
		}
		if si == scoredDocs {
			break
		}
		mine, terms := docCandidates(si, &docs[di], w)
		anyTerm = anyTerm || terms
		cands = append(cands, mine...)
	}
	if !anyTerm || len(cands) == 0 {
		return out, nil
	}
	texts := make([]string, len(cands))
	for i, c := range cands {
		texts[i] = c.text
	}
	scores, err := sc.Score(ctx, question, texts)
	if err != nil {
		return out, fmt.Errorf("answer: score %d sentences: %w", len(texts), err)
	}
	for _, c := range pickScored(cands, scores) {
		out.quote(r.Summaries[c.summary], c.text)
	}
	return out, nil
}

// scoredCand is a sentence ExtractiveScored may quote.
type scoredCand struct {
	text      string // what the scorer reads and the answer quotes
	summary   int    // index into Result.Summaries
	pre       float64
	field     bool    // a record field's sentence
	terms     float64 // question-term weight of "field: sentence"
	value     float64 // question-term weight of the sentence alone
	raw, disc float64
}

// docCandidates returns the scoredPerDoc sentences of d (summary si) with
// the most question-term weight and evidence, each read once, record
// fields as "anchor field: value. field: sentence", and whether any of its
// sentences shares a term with the question.
func docCandidates(si int, d *Doc, w *weights) ([]scoredCand, bool) {
	p := prepare(si, d, w)
	var mine []scoredCand
	seen := map[string]bool{}
	anyTerm := false
	// The field whose value holds the most question-term weight names the
	// record's subject ("cca2: CZ" for "the country with code CZ"); field
	// names count not, they name what is asked.
	anchor := -1
	for _, st := range p.sents {
		sec := d.Sections[st.sec]
		sent := strings.TrimSpace(sec.Content[st.a:st.b])
		// A record repeats values (a name in twenty translations): the
		// scorer reads each once, in its first field.
		key := strings.ToLower(sent)
		if seen[key] {
			continue
		}
		seen[key] = true
		c := scoredCand{summary: si, pre: st.score, value: w.termScore(sent)}
		if !proseTypes[strings.ToLower(sec.Type)] {
			c.pre += w.termScore(sec.Type)
			c.field = true
			sent = sec.Type + ": " + sent
		}
		c.text = text.TruncateRunes(sent, scoredMaxRunes)
		c.terms = w.termScore(sent)
		if c.terms > 0 {
			anyTerm = true
		}
		if c.field && c.value > 0 && (anchor < 0 || c.value > mine[anchor].value) {
			anchor = len(mine)
		}
		mine = append(mine, c)
	}
	// A field's value alone does not say whose it is ("capital: Prague"):
	// the scorer reads it after the anchor ("cca2: CZ. capital: Prague"),
	// which the answer quotes too.
	if anchor >= 0 {
		at := mine[anchor].text
		for i := range mine {
			if i != anchor && mine[i].field {
				mine[i].text = at + ". " + mine[i].text
			}
		}
	}
	slices.SortStableFunc(mine, func(a, b scoredCand) int {
		switch {
		case a.pre > b.pre:
			return -1
		case a.pre < b.pre:
			return 1
		}
		return 0
	})
	return mine[:min(scoredPerDoc, len(mine))], anyTerm
}

// pickScored returns the sentences to quote given their scores: the best
// after the rank discount (score / (1 + rankDecay × rank)), plus the best
// of another document when its undiscounted score is at least secondAnswer
// of the best one's, in rank order.
func pickScored(cands []scoredCand, scores []float64) []scoredCand {
	best := -1
	for i := range cands {
		cands[i].raw = scores[i]
		cands[i].disc = scores[i] / (1 + rankDecay*float64(cands[i].summary))
		if best < 0 || cands[i].disc > cands[best].disc {
			best = i
		}
	}
	quote := []scoredCand{cands[best]}
	second := -1
	for i, c := range cands {
		if c.summary != cands[best].summary && (second < 0 || c.raw > cands[second].raw) {
			second = i
		}
	}
	if second >= 0 && cands[second].raw >= secondAnswer*cands[best].raw && cands[second].raw > 0 {
		quote = append(quote, cands[second])
		if quote[1].summary < quote[0].summary {
			quote[0], quote[1] = quote[1], quote[0]
		}
	}
	return quote
}
