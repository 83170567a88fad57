package embed

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokenizer is an exact BERT WordPiece tokenizer: the BertNormalizer,
// BertPreTokenizer and WordPiece model of Hugging Face tokenizers, with the
// [CLS] … [SEP] template. It is immutable and safe for concurrent use.
type Tokenizer struct {
	vocab map[string]int32 // pieces that start a word
	cont  map[string]int32 // continuation pieces, prefix removed
	// longest piece in bytes, bounding the greedy search
	maxPiece int

	unk, cls, sep, pad int32

	cleanText    bool
	chinese      bool
	stripAccents bool
	lowercase    bool
	maxWordChars int
}

// LoadTokenizer reads a WordPiece vocabulary from a Hugging Face
// tokenizer.json (the normalizer settings are read from it too) or from a
// BERT vocab.txt (one piece per line, the line number is the id), in which
// case doLowerCase selects uncased behaviour.
func LoadTokenizer(path string, doLowerCase bool) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tokenizer %s: %w", path, ErrNotInstalled)
	}
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return parseTokenizerJSON(data)
	}
	vocab := make(map[string]int32)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1024), 1<<20)
	var id int32
	for sc.Scan() {
		tok := strings.TrimRight(sc.Text(), "\r")
		if _, dup := vocab[tok]; !dup {
			vocab[tok] = id
		}
		id++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("vocab %s: %w: %w", path, ErrBadModel, err)
	}
	return newTokenizer(vocab, "[UNK]", "##", 100, tokenizerFlags{
		clean: true, chinese: true, strip: doLowerCase, lower: doLowerCase,
	})
}

type tokenizerFlags struct{ clean, chinese, strip, lower bool }

// hfTokenizer is the subset of tokenizer.json that WordPiece needs.
type hfTokenizer struct {
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          *bool  `json:"lowercase"`
	} `json:"normalizer"`
	Model struct {
		Type                    string           `json:"type"`
		UnkToken                string           `json:"unk_token"`
		ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
		Vocab                   map[string]int32 `json:"vocab"`
	} `json:"model"`
}

func parseTokenizerJSON(data []byte) (*Tokenizer, error) {
	var hf hfTokenizer
	if err := json.Unmarshal(data, &hf); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w: %w", ErrBadModel, err)
	}
	if hf.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("tokenizer.json: model type %q is not WordPiece: %w", hf.Model.Type, ErrBadModel)
	}
	f := tokenizerFlags{clean: true, chinese: true, strip: true, lower: true}
	if n := hf.Normalizer; n != nil {
		if n.Type != "BertNormalizer" {
			return nil, fmt.Errorf("tokenizer.json: normalizer %q is not BertNormalizer: %w", n.Type, ErrBadModel)
		}
		if n.CleanText != nil {
			f.clean = *n.CleanText
		}
		if n.HandleChineseChars != nil {
			f.chinese = *n.HandleChineseChars
		}
		if n.Lowercase != nil {
			f.lower = *n.Lowercase
		}
		// strip_accents: null follows lowercase, as in Hugging Face.
		f.strip = f.lower
		if n.StripAccents != nil {
			f.strip = *n.StripAccents
		}
	}
	prefix := "##"
	if hf.Model.ContinuingSubwordPrefix != nil {
		prefix = *hf.Model.ContinuingSubwordPrefix
	}
	unk := hf.Model.UnkToken
	if unk == "" {
		unk = "[UNK]"
	}
	maxChars := hf.Model.MaxInputCharsPerWord
	if maxChars <= 0 {
		maxChars = 100
	}
	return newTokenizer(hf.Model.Vocab, unk, prefix, maxChars, f)
}

func newTokenizer(vocab map[string]int32, unk, prefix string, maxChars int, f tokenizerFlags) (*Tokenizer, error) {
	t := &Tokenizer{
		vocab:        make(map[string]int32, len(vocab)),
		cont:         make(map[string]int32),
		cleanText:    f.clean,
		chinese:      f.chinese,
		stripAccents: f.strip,
		lowercase:    f.lower,
		maxWordChars: maxChars,
	}
	for piece, id := range vocab {
		if rest, ok := strings.CutPrefix(piece, prefix); ok && prefix != "" && rest != "" {
			t.cont[rest] = id
		} else {
			t.vocab[piece] = id
		}
		t.maxPiece = max(t.maxPiece, len(piece))
	}
	var ok [4]bool
	t.unk, ok[0] = vocab[unk]
	t.cls, ok[1] = vocab["[CLS]"]
	t.sep, ok[2] = vocab["[SEP]"]
	t.pad, ok[3] = vocab["[PAD]"]
	for i, name := range []string{unk, "[CLS]", "[SEP]", "[PAD]"} {
		if !ok[i] {
			return nil, fmt.Errorf("tokenizer: vocabulary lacks %s: %w", name, ErrBadModel)
		}
	}
	return t, nil
}

// PadID returns the id of [PAD].
func (t *Tokenizer) PadID() int32 { return t.pad }

// Encode returns the ids of [CLS] text [SEP], truncating the text's pieces so
// that at most maxTokens ids are returned (maxTokens <= 2 means no limit).
func (t *Tokenizer) Encode(text string, maxTokens int) []int32 {
	limit := -1
	if maxTokens > 2 {
		limit = maxTokens - 2
	}
	ids := make([]int32, 1, 16)
	ids[0] = t.cls
	ids = t.appendPieces(ids, text, limit)
	return append(ids, t.sep)
}

// CountTokens returns the number of word pieces of s, without [CLS] and
// [SEP] and without truncation. Counts are additive over text split at
// whitespace, which chunking relies on.
func (t *Tokenizer) CountTokens(s string) int {
	n := 0
	t.eachWord(t.normalize(s), func(w string) bool {
		n += t.countWord(w)
		return true
	})
	return n
}

// appendPieces appends the WordPiece ids of text to dst, at most limit of
// them when limit >= 0.
func (t *Tokenizer) appendPieces(dst []int32, text string, limit int) []int32 {
	start := len(dst)
	t.eachWord(t.normalize(text), func(w string) bool {
		dst = t.appendWord(dst, w)
		if limit >= 0 && len(dst)-start >= limit {
			dst = dst[:start+limit]
			return false
		}
		return true
	})
	return dst
}

// appendWord appends the pieces of one pre-tokenized word: greedy
// longest-match-first, [UNK] for the whole word when any part has no piece
// or the word is longer than maxWordChars characters.
func (t *Tokenizer) appendWord(dst []int32, w string) []int32 {
	if len(w) > t.maxWordChars && utf8.RuneCountInString(w) > t.maxWordChars {
		return append(dst, t.unk)
	}
	mark := len(dst)
	for start := 0; start < len(w); {
		vocab := t.vocab
		if start > 0 {
			vocab = t.cont
		}
		end := min(len(w), start+t.maxPiece)
		for end < len(w) && !utf8.RuneStart(w[end]) {
			end--
		}
		found := false
		for end > start {
			if id, ok := vocab[w[start:end]]; ok {
				dst = append(dst, id)
				found = true
				break
			}
			end--
			for end > start && !utf8.RuneStart(w[end]) {
				end--
			}
		}
		if !found {
			return append(dst[:mark], t.unk)
		}
		start = end
	}
	return dst
}

func (t *Tokenizer) countWord(w string) int {
	var buf [32]int32
	return len(t.appendWord(buf[:0], w))
}

// eachWord calls fn for each word of normalized text s as BertPreTokenizer
// splits it: whitespace separates words and each punctuation character is a
// word of its own. It stops when fn returns false.
func (t *Tokenizer) eachWord(s string, fn func(string) bool) {
	start := -1
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case isWhitespace(r):
			if start >= 0 && !fn(s[start:i]) {
				return
			}
			start = -1
		case isPunct(r):
			if start >= 0 && !fn(s[start:i]) {
				return
			}
			start = -1
			if !fn(s[i : i+size]) {
				return
			}
		default:
			if start < 0 {
				start = i
			}
		}
		i += size
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// normalize applies BertNormalizer: clean text, pad CJK ideographs with
// spaces, strip accents (NFD, drop Mn), lowercase, in this order.
func (t *Tokenizer) normalize(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return t.normalizeASCII(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		if t.cleanText {
			if r == 0 || r == utf8.RuneError || isControl(r) {
				continue
			}
			if isWhitespace(r) {
				r = ' '
			}
		}
		if t.chinese && isChinese(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	if !t.stripAccents && !t.lowercase {
		return out
	}
	if t.stripAccents {
		out = norm.NFD.String(out)
	}
	b.Reset()
	b.Grow(len(out))
	for _, r := range out {
		if t.stripAccents && unicode.Is(unicode.Mn, r) {
			continue
		}
		if t.lowercase {
			if r == 'İ' { // full lowercase mapping, as Rust's char::to_lowercase
				b.WriteString("i\u0307")
				continue
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (t *Tokenizer) normalizeASCII(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 || c == 0x7f) || (t.lowercase && 'A' <= c && c <= 'Z') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if t.cleanText {
			switch {
			case c == '\t' || c == '\n' || c == '\r':
				c = ' '
			case c < 0x20 || c == 0x7f:
				continue
			}
		}
		if t.lowercase && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

// isWhitespace is Rust's char::is_whitespace (Unicode White_Space), which
// Go's unicode.IsSpace matches.
func isWhitespace(r rune) bool { return unicode.IsSpace(r) }

// isControl reports Unicode category C (Cc, Cf, Co, Cs, Cn) except tab,
// newline and carriage return, as Hugging Face's BertNormalizer.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	if unicode.Is(unicode.C, r) {
		return true
	}
	// Unassigned code points (Cn) are in no category table.
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isPunct is BERT's punctuation: ASCII punctuation (which includes symbols
// such as $ + < = > ^ ` | ~) or any Unicode P category.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126)
	}
	return unicode.IsPunct(r)
}

// isChinese reports CJK Unified Ideographs as BERT defines them.
func isChinese(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}
