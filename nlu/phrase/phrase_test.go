package phrase

import (
	"fmt"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	entries := []Entry{
		{Text: "Praha", Ref: 0}, {Text: "Prague", Ref: 0}, {Text: "hlavní město", Ref: 0},
		{Text: "Karlín", Ref: 1}, {Text: "Hradec Králové", Ref: 2}, {Text: "Hradec", Ref: 3},
		{Text: "Pivo & Basilico", Ref: 4}, {Text: "Amerika", Ref: 5},
		{Text: "Praha-Karlín", Ref: 6}, {Text: "Frýdek-Místek", Ref: 7},
	}
	m, err := Compile(entries, Options{Language: "cs"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want string // ref:start-end:exact ...
	}{
		{"v Praze", "0:2-7:false"},
		{"do Karlína a s Karlínem", "1:3-10:false 1:15-23:false"},
		{"PRAHA", "0:0-5:true"},
		{"z hlavního města", "0:2-16:false"},
		{"v Hradci Králové", "2:2-16:false"},
		{"v Hradci", "3:2-8:false"},
		{"u Piva & Basilica", "4:2-17:false"},
		{"v Americe", "5:2-9:false"},
		{"Praha. Karlín", "0:0-5:true 1:7-13:true"},
		{"nic tu není", ""},
		{"prazsky", ""},
		// issue 14: hyphenated names, each part inflected
		{"Praha-Karlín", "6:0-12:true"},
		{"v Praze-Karlíně", "6:2-15:false"},
		{"Praha - Karlín", "6:0-14:true"},
		{"ve Frýdku-Místku", "7:3-16:false"},
		{"Karlín-sever", "1:0-6:true"},
	}
	for _, tt := range tests {
		var got []string
		for _, mm := range m.Match(tt.text) {
			got = append(got, fmt.Sprintf("%d:%d-%d:%v", mm.Ref, mm.Start, mm.End, mm.Exact))
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Match(%q) = %q, want %q", tt.text, g, tt.want)
		}
	}
}

func TestCaseSensitive(t *testing.T) {
	m, err := Compile([]Entry{{Text: "Apple", Ref: 0}}, Options{Language: "en", CaseSensitive: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Match("an apple a day")); got != 0 {
		t.Errorf("case-sensitive matched lower case: %d matches", got)
	}
	if got := len(m.Match("Apple shares")); got != 1 {
		t.Errorf("case-sensitive missed: %d matches", got)
	}
}

// synthetic returns n deterministic Czech-like phrases of two or three words
// and a text of about size bytes with a phrase every ten words.
func synthetic(n, size int) ([]Entry, string) {
	syll := []string{"ka", "ro", "vě", "li", "na", "pra", "hou", "bel", "má", "ště", "ne", "do", "zá", "kop", "tře", "ví", "mu", "sla", "ře", "chy"}
	state := uint64(42)
	next := func(k int) int {
		state = state*6364136223846793005 + 1442695040888963407
		return int((state >> 33) % uint64(k))
	}
	word := func() string {
		var b strings.Builder
		for range 2 + next(3) {
			b.WriteString(syll[next(len(syll))])
		}
		return b.String()
	}
	entries := make([]Entry, n)
	for i := range entries {
		w := []string{word(), word()}
		if next(3) == 0 {
			w = append(w, word())
		}
		entries[i] = Entry{Text: strings.Join(w, " "), Ref: i}
	}
	var b strings.Builder
	for b.Len() < size {
		if next(10) == 0 {
			b.WriteString(entries[next(n)].Text)
		} else {
			b.WriteString(word())
		}
		b.WriteByte(' ')
	}
	return entries, b.String()
}

// TestLargeSet checks that sampled phrases of a 100k set are found between
// other words, exercising the trie at scale.
func TestLargeSet(t *testing.T) {
	entries, _ := synthetic(100000, 0)
	m, err := Compile(entries, Options{Language: "cs"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(entries); i += 997 {
		ms := m.Match("před " + entries[i].Text + " po")
		if len(ms) != 1 {
			t.Fatalf("phrase %d %q: %d matches", i, entries[i].Text, len(ms))
		}
	}
}

func BenchmarkCompile100k(b *testing.B) {
	entries, _ := synthetic(100000, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(entries, Options{Language: "cs"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatch100k(b *testing.B) {
	entries, text := synthetic(100000, 64<<10)
	m, err := Compile(entries, Options{Language: "cs"})
	if err != nil {
		b.Fatal(err)
	}
	short := "Chci stůl v Praze na zítra " + entries[7].Text
	for _, c := range []struct {
		name, text string
	}{{"text64KiB", text}, {"short", short}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.text)))
			n := 0
			for b.Loop() {
				n += len(m.Match(c.text))
			}
			if n == 0 {
				b.Fatal("no matches")
			}
		})
	}
}
