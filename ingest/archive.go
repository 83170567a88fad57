package ingest

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/xml"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
)

// Limits of the ZIP-based formats (DOCX, XLSX, ODS) against decompression
// bombs and XML blowups. Every one is enforced while the file is read, so
// that a hostile file is refused in bounded time and memory with an error
// wrapping ErrTooLarge (a lying archive with one wrapping ErrCorrupt).
// Sizes declared in the archive are checked first, before anything is
// inflated, and bytes are also counted as they leave the decompressor:
// nothing inflates past its declared size.
const (
	// MaxArchiveEntries caps the entries of an archive, counted before its
	// directory is read.
	MaxArchiveEntries = 10000
	// MaxInflatedSize caps the bytes inflated from the parts a reader
	// reads (a part read twice counts twice; parts the reader skips, such
	// as images, do not count). DOCX also caps one part at 256 MiB, as
	// its text is held in memory.
	MaxInflatedSize = 1 << 30
	// MaxCompressionRatio caps how many times its compressed size an entry
	// may inflate to, and how many times the archive's size the entries
	// read may inflate to in all. 100 is Apache POI's default
	// (ZipSecureFile.MIN_INFLATE_RATIO). Entries the reader skips (images,
	// embedded objects and archives) are not inflated and not checked.
	MaxCompressionRatio = 100
	// CompressionRatioGrace is the size up to which an entry, or an
	// archive, may inflate at any ratio: small XML parts compress well.
	CompressionRatioGrace = 1 << 20
	// MaxXMLDepth caps the nesting depth of the XML elements of a part,
	// as MaxRecordDepth does for JSON.
	MaxXMLDepth = 512
	// MaxXMLTokenSize caps the bytes of one XML token: a start tag with
	// its attributes, a run of text, a comment. (A start tag of 1 MiB of
	// five-byte attributes costs encoding/xml about 50 MiB.)
	MaxXMLTokenSize = 1 << 20
	// MaxSheetCells caps the cells a spreadsheet expands to: every
	// non-empty row counts as wide as the widest row of its sheet so far
	// (empty cells padding a row count: each record has a property per
	// header column), a repeated ODS row or cell once per copy, charged
	// when the repeat is read. 2M cells are 100,000 rows of 20 columns;
	// each costs about 100 bytes until the engine flushes its batch. CSV,
	// which cannot expand, has no such limit.
	MaxSheetCells = 1 << 21
	// MaxSheetText caps the bytes of cell text a spreadsheet expands to:
	// an XLSX shared string counts once per cell that uses it, a repeated
	// ODS cell once per copy.
	MaxSheetText = 256 << 20
	// MaxCellSize caps the text of one spreadsheet cell or XLSX shared
	// string (Excel allows 32,767 characters).
	MaxCellSize = 1 << 20
	// MaxSharedStringsSize caps the XLSX shared strings table, which is
	// held in memory while the sheets are read: its text plus 16 bytes a
	// string.
	MaxSharedStringsSize = 128 << 20
)

// limitSet is a set of the limits above.
type limitSet struct {
	entries         int
	inflated, entry int64 // entry: one part, MaxInflatedSize by default
	ratio, grace    int64
	depth           int
	token           int64
	cells, text     int64
	cell            int
	sharedStrings   int64
}

// limits are the limits in force: defaultLimits, lowered by tests.
var limits = defaultLimits

// defaultLimits are the constants above.
var defaultLimits = limitSet{
	entries:       MaxArchiveEntries,
	inflated:      MaxInflatedSize,
	entry:         MaxInflatedSize,
	ratio:         MaxCompressionRatio,
	grace:         CompressionRatioGrace,
	depth:         MaxXMLDepth,
	token:         MaxXMLTokenSize,
	cells:         MaxSheetCells,
	text:          MaxSheetText,
	cell:          MaxCellSize,
	sharedStrings: MaxSharedStringsSize,
}

// zipFile is a ZIP-based file opened under the limits: the entries a reader
// reads are reserved first, from their declared sizes, and inflated through
// a meter.
type zipFile struct {
	what  string // "docx", "xlsx" or "ods": prefixes errors
	size  int64
	files []*zip.File
	lim   limitSet

	planned  int64 // declared bytes of the entries reserved so far
	inflated int64 // bytes inflated so far
	reserved map[*zip.File]int
}

// tooLarge returns an error wrapping ErrTooLarge prefixed with the format.
func (z *zipFile) tooLarge(format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", z.what, fmt.Sprintf(format, args...), ErrTooLarge)
}

// corrupt returns an error wrapping ErrCorrupt prefixed with the format.
func (z *zipFile) corrupt(format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", z.what, fmt.Sprintf(format, args...), ErrCorrupt)
}

// openZip opens data as the ZIP archive of a what file. It counts the
// entries before archive/zip reads the directory, whose every entry costs
// memory.
func openZip(what string, data []byte) (*zipFile, error) {
	z := &zipFile{what: what, size: int64(len(data)), lim: limits, reserved: map[*zip.File]int{}}
	// Every directory entry starts with this signature: counting it bounds
	// the entries archive/zip would read, at memchr speed.
	if n := bytes.Count(data, []byte("PK\x01\x02")); n > z.lim.entries {
		return nil, z.tooLarge("more than %d entries in the archive (the limit on archive entries)", z.lim.entries)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", what, ErrCorrupt, err)
	}
	if len(zr.File) > z.lim.entries {
		return nil, z.tooLarge("more than %d entries in the archive (the limit on archive entries)", z.lim.entries)
	}
	z.files = zr.File
	return z, nil
}

// satAdd adds without wrapping around.
func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// checkOverall checks n bytes inflated (or declared) from the whole
// archive against the overall compression ratio.
func (z *zipFile) checkOverall(n uint64, verb string) error {
	if n > uint64(z.lim.grace) && n/uint64(z.lim.ratio) > uint64(z.size) {
		return z.tooLarge("the archive %s over %d times its size (the compression ratio limit)", verb, z.lim.ratio)
	}
	return nil
}

// reserve checks the declared sizes of entries a reader is about to read,
// before any is inflated: each against the per-entry limits, all of them
// (with the entries reserved before) against MaxInflatedSize and the
// overall compression ratio. An entry read twice is reserved twice.
func (z *zipFile) reserve(fs ...*zip.File) error {
	for _, f := range fs {
		u, c := f.UncompressedSize64, f.CompressedSize64
		switch f.Method {
		case zip.Store:
			if u != c {
				return z.corrupt("%s: declared size %d, stored in %d bytes", f.Name, u, c)
			}
		case zip.Deflate:
			// DEFLATE grows incompressible data by a few bytes per 64 KiB
			// block (12.5% for a careless encoder) and shrinks nothing
			// more than 1032 times: other declared sizes are lies.
			if c > u+u/8+1024 || u/1032 > c+1024 {
				return z.corrupt("%s: declared size %d, impossible for %d compressed bytes", f.Name, u, c)
			}
		default:
			return z.corrupt("%s: unsupported compression method %d", f.Name, f.Method)
		}
		if u > uint64(z.lim.grace) && u/uint64(z.lim.ratio) > c {
			return z.tooLarge("%s decompresses to over %d times its compressed size (the compression ratio limit)", f.Name, z.lim.ratio)
		}
		if u > uint64(z.lim.entry) {
			return z.tooLarge("%s decompresses to over %d bytes (the limit on decompressed bytes of a part)", f.Name, z.lim.entry)
		}
		z.planned = int64(satAdd(uint64(z.planned), u) & math.MaxInt64)
		if z.planned > z.lim.inflated {
			return z.tooLarge("the parts to read decompress to over %d bytes (the limit on decompressed bytes)", z.lim.inflated)
		}
		if err := z.checkOverall(uint64(z.planned), "decompresses to"); err != nil {
			return err
		}
		z.reserved[f]++
	}
	return nil
}

// open returns a metered reader of entry f's content, reserving f first
// unless a reservation for it is pending.
func (z *zipFile) open(f *zip.File) (*entryReader, error) {
	if z.reserved[f] == 0 {
		if err := z.reserve(f); err != nil {
			return nil, err
		}
	}
	z.reserved[f]--
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, z.corrupt("%s: %v", f.Name, err)
	}
	cr := &countingReader{r: bufio.NewReader(raw)}
	e := &entryReader{z: z, f: f, raw: cr, crc: crc32.NewIEEE()}
	switch f.Method {
	case zip.Store:
		e.r = cr
	case zip.Deflate:
		fr := flate.NewReader(cr)
		e.r, e.closer = fr, fr
	}
	return e, nil
}

// countingReader counts the compressed bytes the decompressor consumes;
// it is an io.ByteReader so that flate reads no further than it needs.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// entryReader inflates one entry, counting the bytes as they come out of
// the decompressor against the limits, the entry's declared size and CRC,
// and the size of the XML token being decoded.
type entryReader struct {
	z      *zipFile
	f      *zip.File
	r      io.Reader
	closer io.Closer
	raw    *countingReader
	crc    hash.Hash32
	n      int64 // bytes inflated
	tok    int64 // n when the current XML token started
	err    error // sticky
}

// Read implements io.Reader.
func (e *entryReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.r.Read(p)
	e.n += int64(n)
	e.z.inflated += int64(n)
	e.crc.Write(p[:n])
	if lerr := e.check(); lerr != nil {
		e.err = lerr
		return 0, lerr
	}
	if err == io.EOF {
		if uint64(e.n) != e.f.UncompressedSize64 {
			e.err = e.z.corrupt("%s: %d bytes, not its declared size of %d", e.f.Name, e.n, e.f.UncompressedSize64)
		} else if e.f.CRC32 != 0 && e.crc.Sum32() != e.f.CRC32 {
			e.err = e.z.corrupt("%s: checksum mismatch", e.f.Name)
		}
		if e.err != nil {
			return n, e.err
		}
	} else if err != nil {
		e.err = e.z.corrupt("%s: %v", e.f.Name, err)
		return n, e.err
	}
	return n, err
}

// check checks the bytes inflated so far.
func (e *entryReader) check() error {
	z, lim := e.z, &e.z.lim
	switch {
	case uint64(e.n) > e.f.UncompressedSize64:
		return z.corrupt("%s decompresses past its declared size of %d bytes", e.f.Name, e.f.UncompressedSize64)
	case e.n > lim.grace && e.n/lim.ratio > e.raw.n:
		return z.tooLarge("%s decompresses to over %d times its compressed size (the compression ratio limit)", e.f.Name, lim.ratio)
	case e.n > lim.entry:
		return z.tooLarge("%s decompresses to over %d bytes (the limit on decompressed bytes of a part)", e.f.Name, lim.entry)
	case z.inflated > lim.inflated:
		return z.tooLarge("the parts read decompress to over %d bytes (the limit on decompressed bytes)", lim.inflated)
	case e.n-e.tok > lim.token:
		return z.tooLarge("%s: an XML token over %d bytes (the XML token size limit)", e.f.Name, lim.token)
	}
	return z.checkOverall(uint64(z.inflated), "decompresses to")
}

// Close releases the decompressor.
func (e *entryReader) Close() error {
	if e.closer != nil {
		return e.closer.Close()
	}
	return nil
}

// xmlReader is an xml.Decoder over an archive entry that also refuses
// elements nested deeper than MaxXMLDepth and tokens over
// MaxXMLTokenSize. Token, RawToken and Skip are the decoder's, metered;
// the other methods of xml.Decoder must not be used to read tokens.
type xmlReader struct {
	*xml.Decoder
	e     *entryReader
	depth int
}

// openXML returns an XML decoder over entry f (see open); Close releases
// it.
func (z *zipFile) openXML(f *zip.File) (*xmlReader, error) {
	e, err := z.open(f)
	if err != nil {
		return nil, err
	}
	return &xmlReader{Decoder: xml.NewDecoder(e), e: e}, nil
}

// Token implements xml.TokenReader.
func (d *xmlReader) Token() (xml.Token, error) {
	d.e.tok = d.e.n
	return d.track(d.Decoder.Token())
}

// RawToken is xml.Decoder's RawToken, metered.
func (d *xmlReader) RawToken() (xml.Token, error) {
	d.e.tok = d.e.n
	return d.track(d.Decoder.RawToken())
}

// Skip is xml.Decoder's Skip through the metered Token.
func (d *xmlReader) Skip() error { return skipElement(d.Token) }

// skipElement reads tokens with next until the end of an element already
// started.
func skipElement(next func() (xml.Token, error)) error {
	for depth := 1; depth > 0; {
		tok, err := next()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// track follows the nesting depth.
func (d *xmlReader) track(tok xml.Token, err error) (xml.Token, error) {
	if err != nil {
		return tok, err
	}
	switch tok.(type) {
	case xml.StartElement:
		if d.depth++; d.depth > d.e.z.lim.depth {
			return nil, d.e.z.tooLarge("%s: XML nested deeper than %d elements (the XML depth limit)", d.e.f.Name, d.e.z.lim.depth)
		}
	case xml.EndElement:
		if d.depth > 0 {
			d.depth--
		}
	}
	return tok, nil
}

// Close releases the entry.
func (d *xmlReader) Close() error { return d.e.Close() }

// sheetBudget charges the rows a spreadsheet reader returns against
// MaxSheetCells and MaxSheetText.
type sheetBudget struct {
	what        string
	lim         limitSet
	cells, text int64
	width       int // widest non-empty row of the current sheet
}

func newSheetBudget(what string) sheetBudget { return sheetBudget{what: what, lim: limits} }

// newSheet starts a sheet.
func (b *sheetBudget) newSheet() { b.width = 0 }

// charge charges row, returned rep times; empty rows are free (the record
// reader skips them).
func (b *sheetBudget) charge(row []Value, rep int) error {
	var text int64
	nonEmpty := false
	for _, v := range row {
		if v.Kind != KindNull {
			nonEmpty = true
			text += int64(len(v.Str))
		}
	}
	if !nonEmpty {
		return nil
	}
	b.width = max(b.width, len(row))
	b.cells += int64(b.width) * int64(rep)
	b.text += text * int64(rep)
	if b.cells > b.lim.cells {
		return fmt.Errorf("%s: more than %d cells (the limit on the cells a spreadsheet expands to): %w", b.what, b.lim.cells, ErrTooLarge)
	}
	if b.text > b.lim.text {
		return fmt.Errorf("%s: more than %d bytes of cell text (the limit on the cell text a spreadsheet expands to): %w", b.what, b.lim.text, ErrTooLarge)
	}
	return nil
}

// cellTooLarge reports a cell over MaxCellSize.
func cellTooLarge(what string) error {
	return fmt.Errorf("%s: more than %d bytes of text in one cell (the cell size limit): %w", what, limits.cell, ErrTooLarge)
}
