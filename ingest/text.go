package ingest

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the plain-text title rule.
const (
	textTitleMaxRunes = 120 // a title line is at most this long
	textTitleMaxWords = 15  // and has at most this many words
)

// ParseText parses a plain-text file into a Document.
//
// data is decoded with DecodeBytes(data, charset), CRLF and CR line ends
// become LF and a form feed counts as a blank line. Blank lines separate
// blocks:
//
//   - a block whose lines start with list markers ("-", "*", "•", "–",
//     "1.", "2)", "a)") yields one li section per item, its marker removed;
//     lines without a marker continue the previous item, lines before the
//     first marker form a p section;
//   - a one-line block "# Heading" (one to six #) yields h1..h6, and a block
//     whose second and last line is all "=" or "-" (setext style) yields
//     h1 or h2;
//   - every other block yields one p section whose lines are joined with
//     spaces.
//
// The first block becomes the title (Document.Title and a title section)
// when it is a single line of at most 120 characters and 15 words that does
// not end in sentence punctuation (".", ",", ";", ":"; "?" and "!" are
// allowed), starts with an upper-case letter or digit, and at least one
// more block follows.
func ParseText(data []byte, charset string) (Document, error) {
	s, err := DecodeBytes(data, charset)
	if err != nil {
		return Document{}, fmt.Errorf("parse text: %w", err)
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\f", "\n\n")

	var b docBuilder
	blocks := textBlocks(s)
	for i, lines := range blocks {
		if i == 0 && len(blocks) > 1 && len(lines) == 1 && textLooksLikeTitle(lines[0]) {
			title := docCleanText(lines[0])
			b.doc.Title = title
			b.add("title", title)
			continue
		}
		textBlock(&b, lines)
	}
	return b.doc, nil
}

// textBlocks splits s into blocks of non-blank lines.
func textBlocks(s string) [][]string {
	var blocks [][]string
	var cur []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				blocks = append(blocks, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur)
	}
	return blocks
}

// textBlock adds the sections of one block of lines.
func textBlock(b *docBuilder, lines []string) {
	if len(lines) == 1 {
		if level, text, ok := textATXHeading(lines[0]); ok {
			b.add(fmt.Sprintf("h%d", level), text)
			return
		}
	}
	if len(lines) == 2 {
		u := strings.TrimSpace(lines[1])
		if len(u) >= 2 && strings.Trim(u, "=") == "" {
			b.add("h1", lines[0])
			return
		}
		if len(u) >= 2 && strings.Trim(u, "-") == "" {
			b.add("h2", lines[0])
			return
		}
	}
	var para strings.Builder
	var item strings.Builder
	inList := false
	flushItem := func() {
		if item.Len() > 0 {
			b.add("li", item.String())
			item.Reset()
		}
	}
	for _, line := range lines {
		if rest, ok := textListItem(line); ok {
			if !inList && para.Len() > 0 {
				b.add("p", para.String())
				para.Reset()
			}
			inList = true
			flushItem()
			item.WriteString(rest)
			continue
		}
		if inList {
			item.WriteByte(' ')
			item.WriteString(line)
			continue
		}
		para.WriteByte(' ')
		para.WriteString(line)
	}
	flushItem()
	b.add("p", para.String())
}

// textATXHeading recognizes a Markdown "# Heading" line.
func textATXHeading(line string) (level int, text string, ok bool) {
	t := strings.TrimSpace(line)
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level >= len(t) || (t[level] != ' ' && t[level] != '\t') {
		return 0, "", false
	}
	text = strings.TrimRight(strings.TrimSpace(t[level:]), "#")
	return level, text, strings.TrimSpace(text) != ""
}

// textListItem recognizes a list item line and returns its text without
// the marker.
func textListItem(line string) (string, bool) {
	t := strings.TrimLeft(line, " \t")
	r, n := utf8.DecodeRuneInString(t)
	switch r {
	case '-', '*', '+', '•', '–', '·', '▪', '◦', '‣':
		if len(t) > n && (t[n] == ' ' || t[n] == '\t') {
			return t[n+1:], true
		}
		return "", false
	}
	// "12." "3)" "a)" "b." followed by a space.
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 && len(t) > 0 && t[0] >= 'a' && t[0] <= 'z' {
		if len(t) > 1 && t[1] == ')' && len(t) > 2 && t[2] == ' ' {
			return t[3:], true
		}
		return "", false
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && (t[i+1] == ' ' || t[i+1] == '\t') {
		return t[i+2:], true
	}
	return "", false
}

// textLooksLikeTitle applies the title rule of ParseText to one line.
func textLooksLikeTitle(line string) bool {
	t := docCleanText(line)
	if t == "" || utf8.RuneCountInString(t) > textTitleMaxRunes || len(strings.Fields(t)) > textTitleMaxWords {
		return false
	}
	if _, ok := textListItem(t); ok {
		return false
	}
	first, _ := utf8.DecodeRuneInString(t)
	if !unicode.IsUpper(first) && !unicode.IsDigit(first) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	return !strings.ContainsRune(".,;:", last)
}
