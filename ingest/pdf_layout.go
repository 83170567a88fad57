package ingest

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Layout thresholds, in multiples of the font size unless noted.
const (
	pdfWordGap       = 0.15 // a gap wider than this between glyphs is a space
	pdfFragmentGap   = 1.6  // a wider gap splits a line into fragments
	pdfBaselineSlack = 0.25 // baselines closer than this are one line
	pdfScriptSlack   = 0.6  // the same for smaller raised or lowered text
	pdfParaGapFactor = 1.45 // line spacing above this × the usual starts a paragraph
	pdfIndent        = 0.8  // a first-line indent at least this wide starts a paragraph
	pdfHeadingRatio  = 1.12 // heading text is at least this much larger than body text
	pdfMarginShare   = 0.09 // share of the page height where headers and footers live
	pdfGutterMin     = 0.7  // minimum empty gutter width between columns
	pdfColumnMinLine = 4    // lines each column needs to count as a column
	pdfWideLine      = 0.6  // lines wider than this share of the text width span columns
)

// pdfLine is one line of text on a page.
type pdfLine struct {
	x0, x1, y float64
	size      float64 // dominant font size
	bold      bool    // at least 70% of the characters are bold
	text      string
	// colLeft and colRight bound the column or band the line belongs to.
	colLeft, colRight float64
	// newBlock says the line starts a new column or band in reading order.
	newBlock bool
	// small says the line sits below the body text of its column in a
	// smaller font (footnotes, copyright blocks).
	small bool
	// table says the line is a table row, its cells joined with " | ".
	table bool
	// cellBreak says the line shares its baseline with the previous line
	// but is a separate block (a text box beside a paragraph).
	cellBreak bool
}

// pdfPageLines holds a page's lines in reading order.
type pdfPageLines struct {
	lines  []pdfLine
	height float64
	bottom float64 // y of the page box bottom
}

// pdfFragment is a run of glyphs on one baseline without large gaps.
type pdfFragment struct {
	x0, x1, y float64
	size      float64
	bold      int // bold glyph count
	sb        strings.Builder
	lastEnd   float64
	lastSpace bool
	lastX     float64
	lastText  string
	chars     int
	// accent is a spacing accent waiting for the letter it covers.
	accent             rune
	accentX0, accentX1 float64
	accentText         string
	// combining says the text holds combining marks to compose.
	combining bool
}

// pdfAccents maps spacing accents, which TeX and other producers draw as
// separate glyphs over a base letter, to combining marks.
var pdfAccents = map[string]rune{
	"¨": 0x308, "´": 0x301, "`": 0x300, "ˆ": 0x302, "˜": 0x303, "ˇ": 0x30C, "˘": 0x306,
	"˚": 0x30A, "˝": 0x30B, "¯": 0x304, "˙": 0x307, "¸": 0x327, "˛": 0x328,
}

// add appends glyph g to the fragment.
func (f *pdfFragment) add(g pdfGlyph) {
	if mark, ok := pdfAccents[g.text]; ok && !g.space {
		if f.chars > 0 && g.x < f.lastEnd-0.05*g.size && g.x+g.w > f.lastX+0.05*g.size {
			f.sb.WriteRune(mark) // drawn over the previous letter
			f.combining = true
			return
		}
		f.flushAccent()
		f.accent, f.accentX0, f.accentX1, f.accentText = mark, g.x, g.x+g.w, g.text
		if f.chars == 0 {
			f.x0, f.y = g.x, g.y
		}
		return
	}
	if f.accent != 0 && !g.space && g.x < f.accentX1 && g.x+g.w > f.accentX0 {
		mark := f.accent
		f.accent = 0
		f.addGlyph(g)
		f.sb.WriteRune(mark) // drawn over the next letter
		f.combining = true
		return
	}
	f.flushAccent()
	f.addGlyph(g)
}

// flushAccent writes a pending accent that covered no letter as itself.
func (f *pdfFragment) flushAccent() {
	if f.accent == 0 {
		return
	}
	f.accent = 0
	f.addGlyph(pdfGlyph{x: f.accentX0, w: f.accentX1 - f.accentX0, size: f.size, text: f.accentText})
}

// addGlyph appends a non-accent glyph.
func (f *pdfFragment) addGlyph(g pdfGlyph) {
	if g.space {
		f.lastSpace = true
		f.lastEnd = math.Max(f.lastEnd, g.x+g.w)
		return
	}
	// Overprinted duplicates (fake bold) are skipped.
	if f.chars > 0 && g.text == f.lastText && math.Abs(g.x-f.lastX) < 0.2*g.size {
		return
	}
	if f.chars > 0 && (f.lastSpace || g.x-f.lastEnd > pdfWordGap*g.size) {
		f.sb.WriteByte(' ')
	}
	f.sb.WriteString(g.text)
	if f.chars == 0 {
		f.x0 = g.x
		f.y = g.y
	}
	f.chars++
	f.size = math.Max(f.size, g.size)
	if g.bold {
		f.bold++
	}
	f.lastSpace = false
	f.lastX = g.x
	f.lastText = g.text
	f.lastEnd = g.x + g.w
	f.x1 = math.Max(f.x1, f.lastEnd)
}

// pdfFragments splits glyphs, in content order, into fragments.
func pdfFragments(glyphs []pdfGlyph) []*pdfFragment {
	var frags []*pdfFragment
	var cur *pdfFragment
	for _, g := range glyphs {
		if g.size <= 0 {
			continue
		}
		if cur != nil && cur.chars > 0 {
			dy := math.Abs(g.y - cur.y)
			gap := g.x - cur.lastEnd
			if dy > 0.2*math.Max(g.size, cur.size) || gap > pdfFragmentGap*g.size || gap < -0.6*g.size {
				cur.flushAccent()
				frags = append(frags, cur)
				cur = nil
			}
		}
		if cur == nil {
			if g.space {
				continue
			}
			cur = &pdfFragment{x1: math.Inf(-1)}
		}
		cur.add(g)
	}
	if cur != nil && cur.chars > 0 {
		frags = append(frags, cur)
	}
	for _, f := range frags {
		f.flushAccent()
	}
	return frags
}

// pdfLinesOf groups fragments into lines: fragments whose baselines are
// close (superscripts and subscripts included) form a row, and a row is
// split where a horizontal gap wider than pdfFragmentGap separates its
// fragments (column gutters, table cells far apart).
func pdfLinesOf(frags []*pdfFragment) []pdfLine {
	sort.SliceStable(frags, func(i, j int) bool { return frags[i].y > frags[j].y })
	type row struct {
		frags []*pdfFragment
		y     float64 // baseline of the largest text
		size  float64
	}
	var rows []*row
	for _, f := range frags {
		var best *row
		bestD := math.Inf(1)
		for k := len(rows) - 1; k >= 0 && k >= len(rows)-16; k-- {
			r := rows[k]
			d := math.Abs(f.y - r.y)
			slack := pdfBaselineSlack
			if math.Min(f.size, r.size) < 0.85*math.Max(f.size, r.size) {
				slack = pdfScriptSlack // a superscript or subscript
			}
			if d <= slack*math.Max(f.size, r.size) && d < bestD {
				best, bestD = r, d
			}
		}
		if best == nil {
			best = &row{y: f.y, size: f.size}
			rows = append(rows, best)
		} else if f.size > best.size*1.05 {
			best.y, best.size = f.y, f.size
		}
		best.frags = append(best.frags, f)
	}
	var lines []pdfLine
	for _, r := range rows {
		slices.SortStableFunc(r.frags, func(a, b *pdfFragment) int {
			switch {
			case a.x0 < b.x0:
				return -1
			case a.x0 > b.x0:
				return 1
			}
			return 0
		})
		start := 0
		end := math.Inf(-1)
		for i, f := range r.frags {
			if i > start && f.x0-end > pdfFragmentGap*math.Max(f.size, r.size*0.8) {
				lines = pdfAppendRow(lines, r.frags[start:i], r.y)
				start = i
			}
			if i == start {
				end = f.x1
			} else {
				end = math.Max(end, f.x1)
			}
		}
		lines = pdfAppendRow(lines, r.frags[start:], r.y)
	}
	return lines
}

// pdfAppendRow joins fragments sorted by x into one line.
func pdfAppendRow(lines []pdfLine, frags []*pdfFragment, y float64) []pdfLine {
	if len(frags) == 0 {
		return lines
	}
	var sb strings.Builder
	bold, chars := 0, 0
	sizes := map[float64]int{}
	x0, x1 := math.Inf(1), math.Inf(-1)
	prevEnd := math.Inf(-1)
	for _, f := range frags {
		if sb.Len() > 0 && f.x0-prevEnd > pdfWordGap*f.size {
			sb.WriteByte(' ')
		}
		sb.WriteString(f.sb.String())
		prevEnd = math.Max(prevEnd, f.x1)
		x0, x1 = math.Min(x0, f.x0), math.Max(x1, f.x1)
		bold += f.bold
		chars += f.chars
		sizes[math.Round(f.size*2)/2] += f.chars
	}
	text := docCleanText(sb.String())
	if text == "" {
		return lines
	}
	for _, f := range frags {
		if f.combining {
			text = pdfCompose(text)
			break
		}
	}
	size, best := 0.0, -1
	for s, n := range sizes {
		if n > best || (n == best && s > size) {
			size, best = s, n
		}
	}
	return append(lines, pdfLine{x0: x0, x1: x1, y: y, size: size, bold: bold*10 >= chars*7, text: text})
}

// pdfLayoutPage turns a page's glyphs into lines in reading order.
func pdfLayoutPage(glyphs []pdfGlyph, box [4]float64) pdfPageLines {
	page := pdfPageLines{height: box[3] - box[1], bottom: box[1]}
	lines := pdfLinesOf(pdfFragments(glyphs))
	if len(lines) == 0 {
		return page
	}
	// Top to bottom, then left to right.
	sort.SliceStable(lines, func(i, j int) bool {
		if math.Abs(lines[i].y-lines[j].y) > 0.3*math.Min(lines[i].size, lines[j].size) {
			return lines[i].y > lines[j].y
		}
		return lines[i].x0 < lines[j].x0
	})
	body := pdfBodySize(lines)
	left, right := pdfExtent(lines)
	// Lines wider than a column (titles, full-width figures and captions,
	// single-column text) cut the page into bands; each band is checked
	// for columns on its own.
	var out, band []pdfLine
	for _, ln := range lines {
		if ln.x1-ln.x0 <= pdfWideLine*(right-left) {
			band = append(band, ln)
			continue
		}
		out = pdfLayoutBand(out, band, body, left, right)
		band = nil
		ln.colLeft, ln.colRight = left, right
		ln.newBlock = len(out) == 0 || out[len(out)-1].x1-out[len(out)-1].x0 <= pdfWideLine*(right-left)
		out = append(out, ln)
	}
	page.lines = pdfLayoutBand(out, band, body, left, right)
	return page
}

// pdfLayoutBand appends the lines of one band in reading order: with a
// column gutter, the left column before the right one, lines crossing the
// gutter cutting the band further; else top to bottom.
func pdfLayoutBand(out, lines []pdfLine, body, left, right float64) []pdfLine {
	if len(lines) == 0 {
		return out
	}
	gutter, ok := pdfFindGutter(lines, body, left, right)
	if !ok {
		l, r := pdfExtent(lines)
		l, r = math.Min(l, left+0.05*(right-left)), math.Max(r, right-0.05*(right-left))
		for i := range lines {
			lines[i].colLeft, lines[i].colRight = l, r
		}
		lines[0].newBlock = true
		return append(out, lines...)
	}
	var lcol, rcol []pdfLine
	flush := func() {
		for _, col := range [][]pdfLine{lcol, rcol} {
			if len(col) == 0 {
				continue
			}
			l, r := pdfExtent(col)
			for i := range col {
				col[i].colLeft, col[i].colRight = l, r
			}
			col[0].newBlock = true
			out = append(out, col...)
		}
		lcol, rcol = nil, nil
	}
	for _, ln := range lines {
		switch {
		case ln.x1 <= gutter:
			lcol = append(lcol, ln)
		case ln.x0 >= gutter:
			rcol = append(rcol, ln)
		default:
			flush()
			ln.colLeft, ln.colRight = left, right
			ln.newBlock = true
			out = append(out, ln)
		}
	}
	flush()
	return out
}

// short reports whether the line ends well before the right edge of its
// column, as headings do.
func (l pdfLine) short() bool {
	return l.x1 < l.colRight-0.3*(l.colRight-l.colLeft) || l.x1-l.x0 < 0.5*(l.colRight-l.colLeft)
}

// pdfExtent returns the smallest x0 and largest x1 of lines.
func pdfExtent(lines []pdfLine) (left, right float64) {
	left, right = math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		left = math.Min(left, l.x0)
		right = math.Max(right, l.x1)
	}
	return left, right
}

// pdfBodySize returns the font size carrying the most characters.
func pdfBodySize(lines []pdfLine) float64 {
	count := map[float64]int{}
	for _, l := range lines {
		count[l.size] += utf8.RuneCountInString(l.text)
	}
	best, n := 10.0, -1
	for s, c := range count {
		if c > n || (c == n && s < best) {
			best, n = s, c
		}
	}
	return best
}

// pdfFindGutter looks for the empty vertical strip between two columns:
// in the middle half of the text area, the widest x range that no
// column-wide line crosses, with enough lines on both sides.
func pdfFindGutter(lines []pdfLine, body, left, right float64) (float64, bool) {
	width := right - left
	if width < 20*body || width > 2*pdfMaxCoord || len(lines) < 2*pdfColumnMinLine {
		return 0, false
	}
	lo, hi := left+0.25*width, left+0.75*width
	n := int(hi-lo) + 1
	cover := make([]int, n)
	narrow := 0
	for _, l := range lines {
		if l.x1-l.x0 > pdfWideLine*width {
			continue // spans the page: a title, a full-width paragraph
		}
		narrow++
		a := max(0, int(l.x0-lo))
		b := min(n-1, int(l.x1-lo))
		for x := a; x <= b; x++ {
			cover[x]++
		}
	}
	// The gutter is the longest run of least covered positions; a few
	// short centred lines (affiliations, captions) may cross it and
	// become bands of their own.
	least := narrow + 1
	for _, c := range cover {
		least = min(least, c)
	}
	if least > narrow/6 {
		return 0, false
	}
	bestStart, bestLen, start := -1, 0, -1
	for x := 0; x <= n; x++ {
		if x < n && cover[x] == least {
			if start < 0 {
				start = x
			}
			continue
		}
		if start >= 0 && x-start > bestLen {
			bestStart, bestLen = start, x-start
		}
		start = -1
	}
	if bestStart < 0 || float64(bestLen) < pdfGutterMin*body {
		return 0, false
	}
	g := lo + float64(bestStart) + float64(bestLen)/2
	var nl, nr int
	for _, l := range lines {
		if l.x1 <= g {
			nl++
		} else if l.x0 >= g {
			nr++
		}
	}
	if nl < pdfColumnMinLine || nr < pdfColumnMinLine || nl+nr < len(lines)*2/5 || nl+nr < narrow/2 {
		return 0, false
	}
	return g, true
}

// pdfMarkSmall flags the trailing lines of a column set in a font
// clearly smaller than the body text: footnotes and notices that
// interrupt the flow of a paragraph running on into the next column.
func pdfMarkSmall(col []pdfLine, body float64) {
	i := len(col)
	for i > 0 && col[i-1].size < 0.92*body {
		i--
	}
	if i == 0 || i == len(col) {
		return
	}
	for k := i; k < len(col); k++ {
		col[k].small = true
	}
}

// pdfPara is a paragraph under construction.
type pdfPara struct {
	sb     strings.Builder
	size   float64
	bold   bool
	lines  int
	typ    string // "" (to be decided), "li" or "footnote"
	page   int
	last   pdfLine
	maxLen int
}

// pdfAssemble turns the laid-out pages into a Document.
func pdfAssemble(pages []pdfPageLines) Document {
	pdfDropRepeated(pages)
	var all []pdfLine
	for _, p := range pages {
		all = append(all, p.lines...)
	}
	body := pdfBodySize(all)
	spacing := pdfLineSpacing(pages, body)
	for pi := range pages {
		lines := pages[pi].lines
		start := 0
		for i := 1; i <= len(lines); i++ {
			if i == len(lines) || lines[i].newBlock {
				pdfMarkSmall(lines[start:i], body)
				start = i
			}
		}
		pages[pi].lines = pdfRows(lines)
	}

	var paras []*pdfPara
	var notes []*pdfPara // small trailing lines waiting for the open paragraph
	var cur *pdfPara
	closePara := func() {
		if cur != nil {
			paras = append(paras, cur)
			cur = nil
		}
		paras = append(paras, notes...)
		notes = nil
	}
	for pi, p := range pages {
		var note *pdfPara
		for i, ln := range p.lines {
			if ln.small {
				if note == nil || ln.y < note.last.y-pdfParaGapFactor*1.3*ln.size || ln.newBlock {
					note = &pdfPara{typ: "footnote", size: ln.size, page: pi}
					notes = append(notes, note)
				}
				pdfAppendLine(note, ln)
				continue
			}
			note = nil
			if cur != nil && !pdfContinues(cur, ln, i == 0, spacing, body) {
				closePara()
			}
			if cur == nil {
				cur = &pdfPara{size: ln.size, bold: ln.bold, page: pi}
				if ln.table {
					cur.typ = "table"
				} else if rest, ok := pdfBullet(ln.text); ok {
					cur.typ = "li"
					ln.text = rest
				}
			}
			pdfAppendLine(cur, ln)
		}
	}
	closePara()
	return pdfSections(paras, body)
}

// pdfAppendLine adds a line to a paragraph, joining hyphenated words.
func pdfAppendLine(p *pdfPara, ln pdfLine) {
	if p.sb.Len() > 0 {
		s := p.sb.String()
		r, _ := utf8.DecodeRuneInString(ln.text)
		if strings.HasSuffix(s, "-") && len(s) >= 2 && unicode.IsLetter(pdfLastRuneBefore(s)) && unicode.IsLower(r) {
			p.sb.Reset()
			p.sb.WriteString(s[:len(s)-1])
		} else {
			p.sb.WriteByte(' ')
		}
	}
	p.sb.WriteString(ln.text)
	p.lines++
	p.maxLen = max(p.maxLen, len(ln.text))
	p.last = ln
}

// pdfLastRuneBefore returns the rune before the final hyphen of s.
func pdfLastRuneBefore(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s[:len(s)-1])
	return r
}

// pdfContinues decides whether line ln continues paragraph p.
func pdfContinues(p *pdfPara, ln pdfLine, pageStart bool, spacing, body float64) bool {
	prev := p.last
	if ln.table || p.typ == "table" || ln.cellBreak || prev.cellBreak {
		return false
	}
	if p.typ == "li" {
		if _, ok := pdfBullet(ln.text); ok {
			return false
		}
	} else if _, ok := pdfBullet(ln.text); ok {
		return false
	}
	sizeChange := math.Abs(ln.size-prev.size) > 0.1*math.Max(ln.size, prev.size)
	if sizeChange || ln.bold != p.bold && (p.size > body*1.05 || ln.size > body*1.05 || p.lines <= 2 && len(prev.text) < 80 && pdfHeadingText(prev.text) && prev.short()) {
		return false
	}
	gap := prev.y - ln.y
	if ln.newBlock && !pageStart && gap > 0 && gap <= pdfParaGapFactor*spacing*ln.size/body && math.Abs(ln.x0-prev.x0) < 0.5*(prev.colRight-prev.colLeft) {
		// A new band right below the previous line (a centred title line
		// after a wide one) reads on like any next line.
	} else if ln.newBlock || pageStart {
		// A paragraph runs on into the next column or page when it does
		// not end a sentence and the new block starts in lower case.
		end, _ := utf8.DecodeLastRuneInString(prev.text)
		first, _ := utf8.DecodeRuneInString(ln.text)
		return !strings.ContainsRune(".!?:", end) && (unicode.IsLower(first) || strings.ContainsRune("(,;", first))
	}
	if gap < 0 || gap > pdfParaGapFactor*spacing*ln.size/body {
		return false
	}
	if math.Abs(gap) < 0.3*ln.size {
		return true // same baseline: pieces of one row
	}
	indent := ln.x0 - ln.colLeft
	prevIndent := prev.x0 - prev.colLeft
	if indent > pdfIndent*ln.size && indent < 6*ln.size && prevIndent < 0.5*ln.size && prev.x1 > prev.colRight-3*ln.size {
		return false // first-line indent after a full line
	}
	end, _ := utf8.DecodeLastRuneInString(prev.text)
	colWidth := prev.colRight - prev.colLeft
	if strings.ContainsRune(".!?:", end) && prev.x1 < prev.colRight-0.25*colWidth && colWidth > 15*body {
		return false // a short line ending a sentence ends its paragraph
	}
	if colWidth > 15*body && prev.x1-prev.colLeft < 0.6*colWidth && ln.x1-ln.colLeft < 0.6*colWidth {
		return false // short lines one after another: list items, addresses
	}
	return true
}

// pdfLineSpacing returns the usual baseline distance of body lines.
func pdfLineSpacing(pages []pdfPageLines, body float64) float64 {
	var d []float64
	for _, p := range pages {
		for i := 1; i < len(p.lines); i++ {
			a, b := p.lines[i-1], p.lines[i]
			if a.newBlock || b.newBlock || math.Abs(a.size-body) > 0.5 || math.Abs(b.size-body) > 0.5 {
				continue
			}
			if g := a.y - b.y; g > 0.5*body && g < 3*body {
				d = append(d, g)
			}
		}
	}
	if len(d) == 0 {
		return 1.2 * body
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// pdfBullet recognizes a list item line and returns its text without the
// bullet.
func pdfBullet(s string) (string, bool) {
	// "1)", "12)", "a)" numbering.
	if i := strings.IndexByte(s, ')'); i > 0 && i <= 3 && i+1 < len(s) && s[i+1] == ' ' {
		if pdfAllDigits(s[:i]) || (i == 1 && s[0] >= 'a' && s[0] <= 'z') {
			return strings.TrimSpace(s[i+1:]), true
		}
	}
	r, n := utf8.DecodeRuneInString(s)
	switch r {
	case '•', '●', '▪', '■', '◦', '○', '‣', '∙', '·', '–', '-', '*':
		rest := strings.TrimSpace(s[n:])
		if rest != "" && (len(s) > n && s[n] == ' ' || r == '•' || r == '●' || r == '▪' || r == '■' || r == '◦' || r == '∙') {
			return rest, true
		}
	}
	return s, false
}

// pdfDropRepeated removes running headers, footers and page numbers: lines
// in the top or bottom margin whose text, digits ignored, recurs on at
// least half the pages, and margin lines that are just a page number.
func pdfDropRepeated(pages []pdfPageLines) {
	key := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return '#'
			}
			return unicode.ToLower(r)
		}, s)
	}
	inMargin := func(p pdfPageLines, l pdfLine) bool {
		m := pdfMarginShare * p.height
		return l.y > p.bottom+p.height-m || l.y < p.bottom+m
	}
	count := map[string]int{}
	for _, p := range pages {
		seen := map[string]bool{}
		for _, l := range p.lines {
			if inMargin(p, l) {
				k := key(l.text)
				if !seen[k] {
					seen[k] = true
					count[k]++
				}
			}
		}
	}
	minPages := max(2, (len(pages)+1)/2)
	for pi := range pages {
		p := &pages[pi]
		kept := p.lines[:0]
		for _, l := range p.lines {
			if inMargin(*p, l) && (count[key(l.text)] >= minPages && len(pages) >= 2 || pdfPageNumber(l.text)) {
				continue
			}
			kept = append(kept, l)
		}
		if len(kept) > 0 && (len(p.lines) == 0 || !kept[0].newBlock) {
			kept[0].newBlock = true
		}
		p.lines = kept
	}
}

// pdfPageNumber reports whether s is only a page number ("12", "- 3 -",
// "Page 4", "4 of 10", "iv").
func pdfPageNumber(s string) bool {
	t := strings.ToLower(strings.Trim(s, " -–—|"))
	t = strings.TrimPrefix(t, "page ")
	t = strings.TrimPrefix(t, "strana ")
	if a, b, ok := strings.Cut(t, " of "); ok {
		return pdfAllDigits(a) && pdfAllDigits(b)
	}
	if a, b, ok := strings.Cut(t, "/"); ok {
		return pdfAllDigits(strings.TrimSpace(a)) && pdfAllDigits(strings.TrimSpace(b))
	}
	if pdfAllDigits(t) {
		return true
	}
	return t != "" && len(t) <= 6 && strings.Trim(t, "ivxlc") == ""
}

// pdfAllDigits reports whether s is a non-empty run of ASCII digits.
func pdfAllDigits(s string) bool {
	if s == "" || len(s) > 6 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// pdfSections types the paragraphs and returns the document: paragraphs
// in a font clearly larger than the body text are headings ranked by size
// (the largest on the first page, when larger than all later headings, is
// the title), short bold paragraphs at body size are the lowest heading
// level.
func pdfSections(paras []*pdfPara, body float64) Document {
	isHeadingShape := func(p *pdfPara) bool {
		return p.typ == "" && p.lines <= 3 && p.sb.Len() <= 200
	}
	var sizes []float64
	for _, p := range paras {
		if isHeadingShape(p) && p.size >= pdfHeadingRatio*body {
			sizes = append(sizes, math.Round(p.size*2)/2)
		}
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	slices.Reverse(sizes)
	var b docBuilder
	var title string
	titleSize := 0.0
	if len(sizes) > 0 {
		for _, p := range paras {
			if p.page == 0 && isHeadingShape(p) && math.Round(p.size*2)/2 == sizes[0] && p.size >= 1.3*body {
				titleSize = sizes[0]
				break
			}
		}
	}
	levelOf := func(size float64) int {
		rank := slices.Index(sizes, math.Round(size*2)/2)
		if titleSize > 0 {
			rank--
		}
		return min(rank+1, 3)
	}
	boldLevel := min(len(sizes)+1, 3)
	if titleSize > 0 {
		boldLevel = min(len(sizes), 3)
	}
	for _, p := range paras {
		text := p.sb.String()
		typ := p.typ
		if typ == "" {
			typ = "p"
			rs := math.Round(p.size*2) / 2
			switch {
			case isHeadingShape(p) && titleSize > 0 && rs == titleSize && title == "" && p.page == 0:
				typ = "title"
				title = docCleanText(text)
			case isHeadingShape(p) && p.size >= pdfHeadingRatio*body:
				typ = "h" + string(rune('0'+max(1, levelOf(p.size))))
			case p.bold && p.lines == 1 && len(text) <= 80 && math.Abs(p.size-body) <= 0.15*body && pdfHeadingText(text) && p.last.short():
				typ = "h" + string(rune('0'+max(1, boldLevel)))
			}
		}
		b.add(typ, text)
	}
	b.doc.Title = title
	return b.doc
}

// pdfHeadingText reports whether a bold line reads like a heading rather
// than a bold sentence: no final period (unless it is a section number
// alone) and a letter in it.
func pdfHeadingText(s string) bool {
	s = strings.TrimSpace(s)
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < 3 {
		return false
	}
	end, _ := utf8.DecodeLastRuneInString(s)
	return !strings.ContainsRune(".,;-", end)
}

// pdfCompose joins letters and combining marks (NFC); a dotless i under
// a mark becomes i, as TeX builds "ï" from "ı" and "¨".
func pdfCompose(s string) string {
	if strings.ContainsRune(s, 'ı') {
		var sb strings.Builder
		rs := []rune(s)
		for i, r := range rs {
			if r == 'ı' && i+1 < len(rs) && unicode.Is(unicode.Mn, rs[i+1]) {
				r = 'i'
			}
			sb.WriteRune(r)
		}
		s = sb.String()
	}
	return norm.NFC.String(s)
}

// pdfRows finds table rows: runs of at least two consecutive rows of
// lines sharing a baseline, each with two or more cells, become single
// table lines with their cells joined by " | ". A lone row of several
// lines keeps them as separate blocks.
func pdfRows(lines []pdfLine) []pdfLine {
	type row struct{ start, end int }
	var rows []row
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && !lines[j].newBlock && math.Abs(lines[j].y-lines[i].y) < 0.3*lines[i].size && lines[j].x0 >= lines[j-1].x1 {
			j++
		}
		rows = append(rows, row{i, j})
		i = j
	}
	multi := func(k int) bool { return k >= 0 && k < len(rows) && rows[k].end-rows[k].start >= 2 }
	out := lines[:0:0]
	for k, r := range rows {
		if !multi(k) {
			out = append(out, lines[r.start])
			continue
		}
		if multi(k-1) || multi(k+1) {
			ln := lines[r.start]
			cells := make([]string, 0, r.end-r.start)
			for _, c := range lines[r.start:r.end] {
				cells = append(cells, c.text)
				ln.x1 = math.Max(ln.x1, c.x1)
			}
			ln.text = strings.Join(cells, " | ")
			ln.table = true
			out = append(out, ln)
			continue
		}
		for i := r.start; i < r.end; i++ {
			ln := lines[i]
			ln.cellBreak = i > r.start
			out = append(out, ln)
		}
	}
	return out
}
