package engine

import (
	"strings"
	"unicode"

	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
)

// Records embed as records: a record (a CSV, spreadsheet, JSON or JSONL
// row, pendingDoc.record) is one document of many short sections, one per
// column. Embedding each section alone cost one model run per cell (a
// 56-column row, 56 runs) plus the [CLS] and [SEP] tokens of each, and
// embedded codes, numbers and dates that carry no meaning for a sentence
// model. Instead, a record's meaningful values are packed, in column
// order, into as few chunks as the chunk size allows (usually one). The
// keyword side still indexes every searchable section, so codes, numbers
// and identifiers stay findable by keyword and by the identifier tier.
const (
	// recordMinWord is the shortest letter run that makes a value
	// meaningful to embed: codes (AFG, fa-AF, Q889), numbers, dates and
	// flags (Yes, x) have none.
	recordMinWord = 4
	// recordMaxTokensPerLetter: a value whose pieces number this many per
	// letter or more is spelled out letter by letter by the model's
	// vocabulary (for example Cyrillic or Arabic script for an English
	// model): its vector would be noise, and it is the costliest to embed.
	recordMaxTokensPerLetter = 0.7
)

// recordChunks returns the chunk texts and references of a record's
// meaningful sections: values packed into chunks of at most the ranker's
// ChunkTokens tokens, each chunk pointing at its first section (the
// semantic passage it yields); a value longer than a chunk is chunked
// alone, as a document section is.
func (w *writer) recordChunks(rec *collRecord, d pendingDoc, local uint32) ([]string, []segment.ChunkRef) {
	tc, _ := w.emb.(TokenCounter)
	limit := w.e.opts.Ranker.ChunkTokens
	var (
		texts []string
		refs  []segment.ChunkRef
		pack  strings.Builder
		first = -1 // section of the pack's first value
		used  int  // tokens in the pack
		seen  = map[string]bool{}
	)
	flush := func() {
		if first < 0 {
			return
		}
		texts = append(texts, pack.String())
		refs = append(refs, segment.ChunkRef{Doc: local, Section: uint32(first),
			Start: 0, End: uint32(len([]rune(d.sections[first].Content)))})
		pack.Reset()
		first, used = -1, 0
	}
	for si, s := range d.sections {
		if !searchable(rec, s.Type) {
			continue
		}
		v := strings.TrimSpace(s.Content)
		key := strings.ToLower(v)
		if seen[key] {
			continue // the same value in another column adds nothing
		}
		seen[key] = true
		if _, word := letterRuns(v); word < recordMinWord {
			continue
		}
		n := len(v) / 4 // without a token counter, about 4 bytes a token
		if tc != nil {
			n = tc.CountTokens(v)
		}
		if !meaningful(v, n) {
			continue
		}
		if n > limit {
			flush()
			for _, ch := range w.e.chunk(w.emb, s.Content) {
				texts = append(texts, s.Content[ch[0]:ch[1]])
				refs = append(refs, segment.ChunkRef{Doc: local, Section: uint32(si),
					Start: uint32(text.RuneOffset(s.Content, ch[0])), End: uint32(text.RuneOffset(s.Content, ch[1]))})
			}
			continue
		}
		if used+n > limit {
			flush()
		}
		if first < 0 {
			first = si
		} else {
			pack.WriteByte('\n')
		}
		pack.WriteString(v)
		used += n
	}
	flush()
	return texts, refs
}

// meaningful reports whether value v, of n model tokens, is worth
// embedding: it holds a word of at least recordMinWord letters and the
// model reads it in pieces, not letter by letter.
func meaningful(v string, n int) bool {
	letters, word := letterRuns(v)
	return word >= recordMinWord && float64(n) < recordMaxTokensPerLetter*float64(letters)
}

// letterRuns returns the number of letters in s and the length of its
// longest run of letters.
func letterRuns(s string) (letters, longest int) {
	run := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) {
			letters++
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return letters, longest
}
