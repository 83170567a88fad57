package ingest

import (
	"errors"
	"io"
	"math"

	"github.com/ledongthuc/pdf"
)

// Work limits of the content interpreter, so that hostile files cost
// bounded time and memory.
const (
	pdfMaxOps        = 20_000_000 // content operators per document
	pdfMaxGlyphs     = 5_000_000  // glyphs per document
	pdfMaxStreamSize = 64 << 20   // decompressed bytes of one content stream
	pdfMaxFormDepth  = 8          // nested form XObjects
	pdfMaxForms      = 10_000     // form XObjects drawn per document
	pdfMaxGStack     = 256        // q/Q nesting
)

// errPDFBudget aborts interpretation when a work limit is hit.
var errPDFBudget = errors.New("pdf work limit exceeded")

// pdfMatrix is an affine transform [a b c d e f].
type pdfMatrix [6]float64

// pdfIdentity is the identity transform.
var pdfIdentity = pdfMatrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: m applied first, then n.
func (m pdfMatrix) mul(n pdfMatrix) pdfMatrix {
	return pdfMatrix{
		m[0]*n[0] + m[1]*n[2],
		m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2],
		m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4],
		m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// pdfGlyph is one shown character in page space.
type pdfGlyph struct {
	x, y  float64 // origin of the glyph on the baseline
	w     float64 // advance width
	size  float64 // font size in page space
	text  string  // Unicode text, "" when unknown
	font  int32   // index into pdfInterp.fonts
	space bool    // the glyph is white space
	bold  bool
}

// pdfGState is the part of the graphics and text state text needs.
type pdfGState struct {
	ctm     pdfMatrix
	font    *pdfFont
	fontIdx int32
	fsize   float64
	tc      float64 // character spacing
	tw      float64 // word spacing
	th      float64 // horizontal scaling (1 = 100%)
	tl      float64 // leading
	rise    float64
}

// pdfInterp runs page content streams and collects glyphs.
type pdfInterp struct {
	ops    int
	forms  int
	glyphs []pdfGlyph
	// fonts caches loaded fonts by their dictionary text.
	fontCache map[string]int32
	fonts     []*pdfFont
	// glyphCount and badCount count, per font, shown glyphs and glyphs
	// with no usable text, to drop broken fonts.
	glyphCount []int
	badCount   []int
}

// font returns the font named name in resources, loading it once.
func (in *pdfInterp) font(resources pdf.Value, name string) (*pdfFont, int32) {
	v := resources.Key("Font").Key(name)
	if v.Kind() != pdf.Dict {
		return nil, -1
	}
	key := v.String()
	if i, ok := in.fontCache[key]; ok {
		return in.fonts[i], i
	}
	f := pdfLoadFont(v)
	i := int32(len(in.fonts))
	in.fonts = append(in.fonts, f)
	in.glyphCount = append(in.glyphCount, 0)
	in.badCount = append(in.badCount, 0)
	in.fontCache[key] = i
	return f, i
}

// pdfStreamCheck returns the decompressed size of a content stream (or
// array of streams), capped just above pdfMaxStreamSize, and whether the
// library would hang on it: its lexer loops forever on a hex string left
// open at the end of the data (see pdfHexTail).
func pdfStreamCheck(v pdf.Value) (size int64, hang bool) {
	var tail pdfHexTail
	count := func(s pdf.Value) {
		rc := s.Reader()
		n, _ := io.Copy(&tail, io.LimitReader(rc, pdfMaxStreamSize+1-size))
		rc.Close()
		size += n
	}
	if v.Kind() == pdf.Array {
		for i := range v.Len() {
			if size > pdfMaxStreamSize {
				break
			}
			count(v.Index(i))
		}
	} else {
		count(v)
	}
	return size, tail.open()
}

// pdfHexTail watches bytes for a hex string the library's lexer would
// never leave: a '<' followed by nothing but hex digits and white space up
// to the end of the data (at the end its reader returns end-of-line bytes
// forever). It errs on the side of caution: a '<' in a comment or a
// literal string counts too.
type pdfHexTail struct {
	lt, clean bool // a '<' was seen; nothing but hex digits and spaces since the last one
}

func (h *pdfHexTail) Write(p []byte) (int, error) {
	for _, c := range p {
		switch {
		case c == '<':
			h.lt, h.clean = true, true
		case h.clean && !pdfIsSpace(c):
			_, hex := pdfUnhex(c)
			h.clean = hex
		}
	}
	return len(p), nil
}

// open reports whether the data written ends inside such a hex string.
func (h *pdfHexTail) open() bool { return h.lt && h.clean }

// run interprets the content stream contents with the given resources
// and initial CTM.
func (in *pdfInterp) run(contents, resources pdf.Value, ctm pdfMatrix, depth int) {
	if depth > pdfMaxFormDepth {
		return
	}
	if size, hang := pdfStreamCheck(contents); size > pdfMaxStreamSize || hang {
		return
	}
	r := &pdfRun{in: in, resources: resources, depth: depth, g: pdfGState{ctm: ctm, th: 1, fontIdx: -1}, tm: pdfIdentity, tlm: pdfIdentity}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		in.ops++
		if in.ops > pdfMaxOps {
			panic(errPDFBudget)
		}
		n := stk.Len()
		var args [6]pdf.Value
		var extra pdf.Value // an operand beyond the sixth (TJ arrays are single)
		for i := n - 1; i >= 0; i-- {
			v := stk.Pop()
			if i < len(args) {
				args[i] = v
			} else {
				extra = v
			}
		}
		_ = extra
		r.op(op, &args, n)
	})
}

// pdfRun is the state of one run of a content stream: the graphics state
// and its stack, and the text and text-line matrices.
type pdfRun struct {
	in        *pdfInterp
	resources pdf.Value // the stream's resources (fonts, forms)
	depth     int       // form nesting depth
	g         pdfGState
	gstack    []pdfGState
	tm, tlm   pdfMatrix
}

// op applies the operator op to its n operands args.
func (r *pdfRun) op(op string, args *[6]pdf.Value, n int) {
	num := func(i int) float64 { return args[i].Float64() }
	switch op {
	case "q":
		if len(r.gstack) < pdfMaxGStack {
			r.gstack = append(r.gstack, r.g)
		}
	case "Q":
		if len(r.gstack) > 0 {
			r.g = r.gstack[len(r.gstack)-1]
			r.gstack = r.gstack[:len(r.gstack)-1]
		}
	case "cm":
		if n == 6 {
			r.g.ctm = pdfMatrix{num(0), num(1), num(2), num(3), num(4), num(5)}.mul(r.g.ctm)
		}
	case "BT":
		r.tm, r.tlm = pdfIdentity, pdfIdentity
	case "Tc":
		r.g.tc = num(0)
	case "Tw":
		r.g.tw = num(0)
	case "Tz":
		r.g.th = num(0) / 100
	case "TL":
		r.g.tl = num(0)
	case "Ts":
		r.g.rise = num(0)
	case "Tf":
		if n == 2 {
			r.g.font, r.g.fontIdx = r.in.font(r.resources, args[0].Name())
			r.g.fsize = num(1)
		}
	case "Td":
		if n == 2 {
			r.tlm = pdfMatrix{1, 0, 0, 1, num(0), num(1)}.mul(r.tlm)
			r.tm = r.tlm
		}
	case "TD":
		if n == 2 {
			r.g.tl = -num(1)
			r.tlm = pdfMatrix{1, 0, 0, 1, num(0), num(1)}.mul(r.tlm)
			r.tm = r.tlm
		}
	case "Tm":
		if n == 6 {
			r.tlm = pdfMatrix{num(0), num(1), num(2), num(3), num(4), num(5)}
			r.tm = r.tlm
		}
	case "T*":
		r.nextLine()
	case "Tj":
		if n == 1 {
			r.show(args[0].RawString())
		}
	case "'":
		if n == 1 {
			r.nextLine()
			r.show(args[0].RawString())
		}
	case "\"":
		if n == 3 {
			r.g.tw, r.g.tc = num(0), num(1)
			r.nextLine()
			r.show(args[2].RawString())
		}
	case "TJ":
		if n == 1 {
			r.textArray(args[0])
		}
	case "Do":
		if n == 1 {
			r.form(args[0].Name())
		}
	}
}

// show places the glyphs of the string s shown in the current font,
// keeping upright ones, and advances the text matrix.
func (r *pdfRun) show(s string) {
	f := r.g.font
	if f == nil {
		return
	}
	step := 1
	if f.twoByte {
		step = 2
	}
	for i := 0; i+step <= len(s); i += step {
		code := int(s[i])
		if step == 2 {
			code = code<<8 | int(s[i+1])
		}
		w0 := f.width(code)
		trm := pdfMatrix{r.g.fsize * r.g.th, 0, 0, r.g.fsize, 0, r.g.rise}.mul(r.tm).mul(r.g.ctm)
		text, ok := f.text(code, step)
		space := step == 1 && code == 32
		if text == " " || text == "\u00a0" {
			space = true
		}
		if len(r.in.glyphs) >= pdfMaxGlyphs {
			panic(errPDFBudget)
		}
		// Upright text only: rotated or mirrored glyphs (margin
		// stamps, vertical labels) are left out.
		if trm[0] > 0 && math.Abs(trm[1]) < 0.05*trm[0] && math.Abs(trm[2]) < 0.05*trm[0] {
			r.in.glyphCount[r.g.fontIdx]++
			if !ok && !space {
				r.in.badCount[r.g.fontIdx]++
			}
			r.in.glyphs = append(r.in.glyphs, pdfGlyph{
				x: trm[4], y: trm[5], w: w0 * trm[0], size: math.Abs(trm[3]),
				text: text, font: r.g.fontIdx, space: space, bold: f.bold,
			})
		}
		tx := w0*r.g.fsize + r.g.tc
		if space {
			tx += r.g.tw
		}
		r.tm = pdfMatrix{1, 0, 0, 1, tx * r.g.th, 0}.mul(r.tm)
	}
}

// nextLine moves to the start of the next line (T*).
func (r *pdfRun) nextLine() {
	r.tlm = pdfMatrix{1, 0, 0, 1, 0, -r.g.tl}.mul(r.tlm)
	r.tm = r.tlm
}

// textArray shows a TJ array: strings, and numbers that move the next
// glyph left by thousandths of the font size.
func (r *pdfRun) textArray(arr pdf.Value) {
	for i := range arr.Len() {
		x := arr.Index(i)
		switch x.Kind() {
		case pdf.String:
			r.show(x.RawString())
		case pdf.Integer, pdf.Real:
			tx := -x.Float64() / 1000 * r.g.fsize * r.g.th
			r.tm = pdfMatrix{1, 0, 0, 1, tx, 0}.mul(r.tm)
		}
	}
}

// form runs the form XObject name of the resources (Do), in its own
// matrix and resources.
func (r *pdfRun) form(name string) {
	r.in.forms++
	if r.in.forms > pdfMaxForms {
		panic(errPDFBudget)
	}
	xo := r.resources.Key("XObject").Key(name)
	if xo.Kind() != pdf.Stream || xo.Key("Subtype").Name() != "Form" {
		return
	}
	ctm := r.g.ctm
	if m := xo.Key("Matrix"); m.Len() == 6 {
		ctm = pdfMatrix{m.Index(0).Float64(), m.Index(1).Float64(), m.Index(2).Float64(),
			m.Index(3).Float64(), m.Index(4).Float64(), m.Index(5).Float64()}.mul(ctm)
	}
	res := xo.Key("Resources")
	if res.Kind() != pdf.Dict {
		res = r.resources
	}
	r.in.run(xo, res, ctm, r.depth+1)
}
