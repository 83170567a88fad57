package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// charsetPeekSize is how many bytes DecodingReader inspects to pick a charset.
const charsetPeekSize = 64 << 10

// Charset names returned by DetectCharset (WHATWG encoding names).
const (
	CharsetUTF8        = "utf-8"
	CharsetUTF16LE     = "utf-16le"
	CharsetUTF16BE     = "utf-16be"
	CharsetWindows1250 = "windows-1250"
	CharsetISO88592    = "iso-8859-2"
	CharsetWindows1252 = "windows-1252"
)

// DecodeBytes returns data decoded to valid UTF-8.
//
// A byte order mark (UTF-8, UTF-16 LE/BE) always wins and is stripped. Else
// declared, a charset label as found in a Content-Type header or an HTML
// meta tag ("windows-1250", "latin2", "utf-8"; "" when none), is used when
// it names a known encoding; a declared UTF-8 that the bytes contradict is
// ignored, since mislabelled Central European files are common. Otherwise
// the charset is detected by DetectCharset. Line ends are left alone.
// Invalid sequences become U+FFFD, so the result is always valid UTF-8.
func DecodeBytes(data []byte, declared string) (string, error) {
	enc, name, bomLen := charsetChoose(data, declared, true)
	data = data[bomLen:]
	if name == CharsetUTF8 {
		if utf8.Valid(data) {
			return string(data), nil
		}
		return strings.ToValidUTF8(string(data), "\uFFFD"), nil
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), data)
	if err != nil {
		return "", fmt.Errorf("decode %s: %w: %w", name, ErrCorrupt, err)
	}
	if !utf8.Valid(out) {
		return strings.ToValidUTF8(string(out), "\uFFFD"), nil
	}
	return string(out), nil
}

// DecodingReader returns a reader that yields r's content as valid UTF-8.
//
// It peeks at up to 64 KiB of r to choose the charset the way DecodeBytes
// does, then returns a streaming decoder that strips a byte order mark. A
// file whose first 64 KiB are valid UTF-8 is read as UTF-8 to the end;
// invalid sequences after that point become U+FFFD.
func DecodingReader(r io.Reader, declared string) (io.Reader, error) {
	br := bufio.NewReaderSize(r, charsetPeekSize)
	peek, err := br.Peek(charsetPeekSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("peek charset: %w", err)
	}
	atEOF := err == io.EOF
	enc, name, bomLen := charsetChoose(peek, declared, atEOF)
	if bomLen > 0 {
		if _, err := br.Discard(bomLen); err != nil {
			return nil, fmt.Errorf("skip byte order mark: %w", err)
		}
	}
	if name == CharsetUTF8 {
		return transform.NewReader(br, unicode.UTF8.NewDecoder()), nil
	}
	return transform.NewReader(br, enc.NewDecoder()), nil
}

// DetectCharset guesses the charset of sample, which may be a prefix of a
// longer file (a UTF-8 sequence cut at its end is allowed). It returns one
// of the Charset constants: the BOM's encoding when there is one, UTF-16
// when every other byte is zero, UTF-8 when sample is valid UTF-8, else the
// single-byte charset whose decoding looks most like Central or Western
// European text, preferring windows-1250 on ties.
func DetectCharset(sample []byte) string {
	_, name, _ := charsetChoose(sample, "", false)
	return name
}

// charsetChoose picks the encoding of data; bomLen is the length of a byte
// order mark to skip. complete says data is the whole file (a truncated
// trailing UTF-8 sequence then counts as invalid).
func charsetChoose(data []byte, declared string, complete bool) (enc encoding.Encoding, name string, bomLen int) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return unicode.UTF8, CharsetUTF8, 3
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), CharsetUTF16LE, 2
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), CharsetUTF16BE, 2
	}
	if declared != "" {
		if e, err := htmlindex.Get(strings.TrimSpace(declared)); err == nil {
			n, _ := htmlindex.Name(e)
			switch n {
			case "utf-8":
				if charsetValidUTF8(data, complete) {
					return unicode.UTF8, CharsetUTF8, 0
				}
				// Mislabelled: detect below.
			case "utf-16le", "utf-16be":
				return e, n, 0
			case "replacement":
				// WHATWG maps dangerous legacy labels to "replacement"; detect instead.
			default:
				return e, n, 0
			}
		}
	}
	if le, be := charsetUTF16Guess(data); le {
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), CharsetUTF16LE, 0
	} else if be {
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), CharsetUTF16BE, 0
	}
	if charsetValidUTF8(data, complete) {
		return unicode.UTF8, CharsetUTF8, 0
	}
	return charsetSingleByte(data)
}

// charsetValidUTF8 reports whether data is valid UTF-8, allowing one cut
// sequence at the end unless complete.
func charsetValidUTF8(data []byte, complete bool) bool {
	if utf8.Valid(data) {
		return true
	}
	if complete {
		return false
	}
	// Drop an incomplete trailing sequence (at most 3 bytes).
	for i := 1; i <= 3 && i <= len(data); i++ {
		b := data[len(data)-i]
		if b&0xC0 == 0x80 {
			continue // continuation byte
		}
		if b >= 0xC0 && !utf8.FullRune(data[len(data)-i:]) {
			return utf8.Valid(data[:len(data)-i])
		}
		break
	}
	return false
}

// charsetUTF16Guess detects BOM-less UTF-16 text by its zero bytes: mostly
// ASCII UTF-16 has a zero in every other byte.
func charsetUTF16Guess(data []byte) (le, be bool) {
	n := min(len(data), 4096) &^ 1
	if n < 8 {
		return false, false
	}
	var evenZero, oddZero int
	for i := 0; i < n; i += 2 {
		if data[i] == 0 {
			evenZero++
		}
		if data[i+1] == 0 {
			oddZero++
		}
	}
	pairs := n / 2
	switch {
	case oddZero*10 >= pairs*7 && evenZero*10 < pairs:
		return true, false
	case evenZero*10 >= pairs*7 && oddZero*10 < pairs:
		return false, true
	}
	return false, false
}

// charsetCandidate is one single-byte charset DetectCharset weighs.
type charsetCandidate struct {
	name string
	cm   *charmap.Charmap
	// common are the letters frequent in the languages this charset
	// serves; each scores charsetCommonWeight.
	common string
	// rarer are letters of further languages it serves; each scores
	// charsetRarerWeight.
	rarer string
}

// Scores of one decoded non-ASCII byte.
const (
	charsetCommonWeight = 4   // a frequent letter of the charset's languages
	charsetRarerWeight  = 2   // a letter of its less frequent languages
	charsetLetterWeight = 1   // any other letter
	charsetSymbolWeight = 0   // punctuation, symbols, spaces
	charsetBadWeight    = -20 // C1 control or undefined byte
)

// charsetCandidates are tried in order; the first wins ties.
var charsetCandidates = []charsetCandidate{
	{CharsetWindows1250, charmap.Windows1250, charsetCentralCommon, charsetCentralRarer},
	{CharsetISO88592, charmap.ISO8859_2, charsetCentralCommon, charsetCentralRarer},
	{CharsetWindows1252, charmap.Windows1252, "éèàùçêëüöäßñáíóúâîôûïãõÉÈÀÇÜÖÄÑ€", "øåæœìòÿ"},
}

// Letters of the Central European charsets: Czech and Slovak first (with
// the letters they share with Western languages, so that shared bytes score
// alike), then Polish and Hungarian.
const (
	charsetCentralCommon = "áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽäôöüľĽ"
	charsetCentralRarer  = "ĺŕąćęłńśźżőűĄĆĘŁŃŚŹŻŐŰ"
)

// charsetSingleByte scores each candidate decoding of data's non-ASCII
// bytes and returns the best one.
func charsetSingleByte(data []byte) (encoding.Encoding, string, int) {
	var counts [128]int
	for _, b := range data {
		if b >= 0x80 {
			counts[b-0x80]++
		}
	}
	best, bestScore := 0, 0
	for ci, c := range charsetCandidates {
		score := 0
		for i, n := range counts {
			if n == 0 {
				continue
			}
			r := c.cm.DecodeByte(byte(i + 0x80))
			score += n * charsetRuneWeight(r, c)
		}
		if ci == 0 || score > bestScore {
			best, bestScore = ci, score
		}
	}
	c := charsetCandidates[best]
	return c.cm, c.name, 0
}

// charsetRuneWeight scores one decoded rune for a candidate charset.
func charsetRuneWeight(r rune, c charsetCandidate) int {
	switch {
	case r == utf8.RuneError || (r >= 0x80 && r < 0xA0):
		return charsetBadWeight
	case strings.ContainsRune(c.common, r):
		return charsetCommonWeight
	case strings.ContainsRune(c.rarer, r):
		return charsetRarerWeight
	case r >= 0xC0 && r != 0xD7 && r != 0xF7 && r < 0x250:
		return charsetLetterWeight
	}
	return charsetSymbolWeight
}
