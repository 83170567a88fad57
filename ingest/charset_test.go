package ingest

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/najdi/najdi/internal/testutil"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

const charsetCzechPangram = "Příliš žluťoučký kůň úpěl ďábelské ódy. Šťastný Ťuk, Źdźbło, ŠŤASTNÝ ŽÁK."

func charsetEncode(t *testing.T, cm *charmap.Charmap, s string) []byte {
	t.Helper()
	b, err := cm.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeBytes(t *testing.T) {
	utf16le, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(charsetCzechPangram))
	utf16be, _ := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(charsetCzechPangram))
	utf16leNoBOM, _ := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder().Bytes([]byte("Hello world, plain text"))
	french := "Le café était très agréable, où l'on mangeait des crêpes à la française."
	tests := []struct {
		name     string
		data     []byte
		declared string
		want     string
	}{
		{"ascii", []byte("hello"), "", "hello"},
		{"utf8", []byte(charsetCzechPangram), "", charsetCzechPangram},
		{"utf8 bom", append([]byte{0xEF, 0xBB, 0xBF}, charsetCzechPangram...), "", charsetCzechPangram},
		{"utf16le bom", utf16le, "", charsetCzechPangram},
		{"utf16be bom", utf16be, "", charsetCzechPangram},
		{"utf16le no bom", utf16leNoBOM, "", "Hello world, plain text"},
		{"windows-1250", charsetEncode(t, charmap.Windows1250, charsetCzechPangram), "", charsetCzechPangram},
		{"iso-8859-2", charsetEncode(t, charmap.ISO8859_2, charsetCzechPangram), "", charsetCzechPangram},
		{"slovak 1250", charsetEncode(t, charmap.Windows1250, "Ľudia v ďalekom kraji čítajú knihy a pôjdu domov, ôsmy ráz."), "", "Ľudia v ďalekom kraji čítajú knihy a pôjdu domov, ôsmy ráz."},
		{"polish latin2", charsetEncode(t, charmap.ISO8859_2, "Zażółć gęślą jaźń, świętość."), "", "Zażółć gęślą jaźń, świętość."},
		{"german 1252", charsetEncode(t, charmap.Windows1252, "Größe und Übermut, schön süß."), "", "Größe und Übermut, schön süß."},
		{"windows-1252", charsetEncode(t, charmap.Windows1252, french), "", french},
		{"declared latin2", charsetEncode(t, charmap.ISO8859_2, "Šťastný"), "latin2", "Šťastný"},
		{"declared cp1250 wins", charsetEncode(t, charmap.Windows1250, "žluťoučký"), "windows-1250", "žluťoučký"},
		// The bytes are Czech windows-1250 but the label says windows-1252: the label wins.
		{"declared 1252 wins", charsetEncode(t, charmap.Windows1250, "č"), "windows-1252", "è"},
		{"declared utf8 contradicted", charsetEncode(t, charmap.Windows1250, charsetCzechPangram), "utf-8", charsetCzechPangram},
		{"unknown label ignored", charsetEncode(t, charmap.Windows1250, charsetCzechPangram), "x-klingon", charsetCzechPangram},
		{"crlf kept", []byte("a\r\nb"), "", "a\r\nb"},
		{"empty", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeBytes(tt.data, tt.declared)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("DecodeBytes = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecodeBytesCzechFile(t *testing.T) {
	data := testutil.ReadDoc(t, "czech-cac-excerpt-cp1250.txt")
	if got := DetectCharset(data); got != CharsetWindows1250 {
		t.Errorf("DetectCharset = %q, want %q", got, CharsetWindows1250)
	}
	s, err := DecodeBytes(data, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Kolektivní", "socialistický", "závazek", "pracovníků", "Výzkumného", "ústavu", "říjnové"} {
		if !strings.Contains(s, w) {
			t.Errorf("decoded text lacks %q", w)
		}
	}
	if strings.ContainsRune(s, utf8.RuneError) {
		t.Error("decoded text contains U+FFFD")
	}
}

func TestDecodingReader(t *testing.T) {
	czech := strings.Repeat(charsetCzechPangram+"\n", 3000) // > 64 KiB once encoded
	tests := []struct {
		name     string
		data     []byte
		declared string
		want     string
	}{
		{"utf8 bom", append([]byte{0xEF, 0xBB, 0xBF}, "a,b\n1,2\n"...), "", "a,b\n1,2\n"},
		{"windows-1250 long", charsetEncode(t, charmap.Windows1250, czech), "", czech},
		{"iso-8859-2 declared", charsetEncode(t, charmap.ISO8859_2, czech), "iso-8859-2", czech},
		{"utf8 long", []byte(czech), "", czech},
		{"short", []byte("x"), "", "x"},
		{"empty", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodingReader(bytes.NewReader(tt.data), tt.declared)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("read %d bytes, want %d; prefix %q", len(got), len(tt.want), string(got[:min(len(got), 60)]))
			}
		})
	}
}

// TestDecodingReaderCutRune checks that a UTF-8 sequence cut by the 64 KiB
// peek does not flip detection to a single-byte charset.
func TestDecodingReaderCutRune(t *testing.T) {
	s := strings.Repeat("a", charsetPeekSize-1) + "ž" + "konec"
	r, err := DecodingReader(bytes.NewReader([]byte(s)), "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != s {
		t.Errorf("cut rune decoded wrongly: tail %q", string(got[len(got)-10:]))
	}
}

func FuzzDecodeBytes(f *testing.F) {
	f.Add(testutil.ReadDoc(f, "czech-cac-excerpt-cp1250.txt"), "")
	f.Add([]byte(charsetCzechPangram), "utf-8")
	f.Add([]byte{0xFF, 0xFE, 0x41, 0x00, 0x00}, "")
	f.Add([]byte{0xFE, 0xFF, 0x00}, "utf-16be")
	f.Add([]byte("\x9a\xb9"), "latin2")
	f.Fuzz(func(t *testing.T, data []byte, declared string) {
		s, err := DecodeBytes(data, declared)
		if err != nil {
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 out of DecodeBytes(%q, %q)", data, declared)
		}
		r, err := DecodingReader(bytes.NewReader(data), declared)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(got) {
			t.Fatalf("invalid UTF-8 out of DecodingReader(%q, %q)", data, declared)
		}
	})
}
