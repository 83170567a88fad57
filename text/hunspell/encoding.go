package hunspell

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// iso88592High maps the bytes 0xA0..0xFF of ISO 8859-2 to runes; bytes
// below 0xA0 are the same as in ISO 8859-1.
const iso88592High = "\u00a0Ą˘Ł¤ĽŚ§¨ŠŞŤŹ\u00adŽŻ°ą˛ł´ľśˇ¸šşťź˝žżŔÁÂĂÄĹĆÇČÉĘËĚÍÎĎĐŃŇÓÔŐÖ×ŘŮÚŰÜÝŢßŕáâăäĺćçčéęëěíîďđńňóôőö÷řůúűüýţ˙"

// encoding is a supported character set of a dictionary.
type encoding int

const (
	encLatin1 encoding = iota // Hunspell's default
	encLatin2
	encUTF8
)

// parseEncoding maps a SET value to an encoding.
func parseEncoding(name string) (encoding, bool) {
	n := strings.ToUpper(strings.NewReplacer("-", "", "_", "").Replace(name))
	switch n {
	case "UTF8":
		return encUTF8, true
	case "ISO88591", "LATIN1":
		return encLatin1, true
	case "ISO88592", "LATIN2":
		return encLatin2, true
	}
	return 0, false
}

// findSet returns the value of the first SET directive of an .aff file, or
// "" if there is none. SET values are ASCII, so this works on raw bytes.
func findSet(aff []byte) string {
	for len(aff) > 0 {
		line := aff
		if i := bytes.IndexByte(aff, '\n'); i >= 0 {
			line, aff = aff[:i], aff[i+1:]
		} else {
			aff = nil
		}
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		f := bytes.Fields(line)
		if len(f) >= 2 && string(f[0]) == "SET" {
			return string(f[1])
		}
	}
	return ""
}

// decode converts raw file bytes in enc to a UTF-8 string, dropping a
// UTF-8 byte order mark.
func decode(raw []byte, enc encoding) string {
	if enc == encUTF8 {
		return string(bytes.TrimPrefix(raw, []byte("\uFEFF")))
	}
	var high []rune
	if enc == encLatin2 {
		high = []rune(iso88592High)
	}
	b := make([]byte, 0, len(raw)+len(raw)/8)
	for _, c := range raw {
		switch {
		case c < utf8.RuneSelf:
			b = append(b, c)
		case c >= 0xA0 && high != nil:
			b = utf8.AppendRune(b, high[c-0xA0])
		default:
			b = utf8.AppendRune(b, rune(c))
		}
	}
	return string(b)
}
