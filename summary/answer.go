package summary

import (
	"fmt"
)

// NoAnswer is the answer to a question that no retrieved document bears on.
const NoAnswer = "No relevant documents were found to answer the question."

// Source names a document an answer draws on.
type Source struct {
	// DocumentID is the document's id.
	DocumentID string
	// CollectionID is the document's collection.
	CollectionID string
}

// AnswerResult is an answer to a question.
type AnswerResult struct {
	// Answer is the answer text; NoAnswer when no document is relevant.
	Answer string
	// Sources are the documents the answer was built from, in rank order:
	// the quoted ones for an extractive answer, the ones in the prompt for
	// a generated one. Empty with NoAnswer.
	Sources []Source
	// PromptTokens is the exact token count of what the answer was drawn
	// from: the summaries (Result.PromptTokens) for an extractive answer,
	// the chat prompt for a generated one.
	PromptTokens int
	// Summary is the summarization the answer was built from.
	Summary Result
}

// Answer-extraction constants.
const (
	// rankDecay lowers a sentence's score by its document's rank:
	// score / (1 + rankDecay × rank), so the retrieval order counts as much
	// as the sentence's own match. Tuned on the SciFact train claims (BM25
	// top 5): 0 → 0.532 answers from a relevant document, 0.15 → 0.559,
	// 0.6 → 0.577, 1 → 0.580, 5 → 0.578.
	rankDecay = 1.0
	// secondAnswer is the fraction of the best sentence's term weight (not
	// discounted by rank) the best sentence of another document needs to be
	// quoted as well.
	secondAnswer = 0.8
)

// Extractive answers question from r, the summaries of docs (the retrieved
// documents in rank order, as given to Summarize): it quotes the summary
// sentence that holds the most question-term weight (IDF within docs,
// discounted by the document's rank), naming its document, plus the best
// sentence of another document when it holds nearly as much weight; quotes
// come in rank order of their documents. When no
// sentence shares a term with the question, the answer is NoAnswer: it
// never invents. It needs no external service. Terms are analyzed with
// the Config.Analyzer r was made with.
func Extractive(question string, r Result, docs []Doc) AnswerResult {
	out := AnswerResult{Answer: NoAnswer, PromptTokens: r.PromptTokens, Summary: r}
	w := newWeights(question, docs, r.analyzer)
	type cand struct {
		text       string
		doc        int // index into r.Summaries
		raw, score float64
	}
	var cands []cand
	for i, s := range r.Summaries {
		for _, sp := range sentences(s.Content) {
			text := s.Content[sp.Start:sp.End]
			if raw := w.termScore(text); raw > 0 {
				cands = append(cands, cand{text, i, raw, raw / (1 + rankDecay*float64(i))})
			}
		}
	}
	if len(cands) == 0 {
		return out
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if c.score > best.score {
			best = c
		}
	}
	quote := []cand{best}
	var second *cand
	for i, c := range cands {
		if c.doc != best.doc && (second == nil || c.raw > second.raw) {
			second = &cands[i]
		}
	}
	if second != nil && second.raw >= secondAnswer*best.raw {
		quote = append(quote, *second)
		if second.doc < best.doc {
			quote[0], quote[1] = quote[1], quote[0]
		}
	}
	for _, c := range quote {
		out.quote(r.Summaries[c.doc], c.text)
	}
	return out
}

// quote adds text, a sentence of summary s, to the answer, naming its
// document ("According to document ID: …", one line per quote), and the
// document to the sources.
func (out *AnswerResult) quote(s Summary, text string) {
	if len(out.Sources) == 0 {
		out.Answer = ""
	} else {
		out.Answer += "\n"
	}
	out.Answer += fmt.Sprintf("According to document %s: %s", s.DocumentID, text)
	out.Sources = append(out.Sources, Source{DocumentID: s.DocumentID, CollectionID: s.CollectionID})
}
