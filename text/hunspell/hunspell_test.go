package hunspell

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// A made-up English-like dictionary.
const testAff = `SET UTF-8
# comment
TRY abcdefghijklmnopqrstuvwxyz
REP 1
REP f ph
FORBIDDENWORD !
NEEDAFFIX ~

SFX S Y 3
SFX S   y     ies    [^aeiou]y
SFX S   0     s      [aeiou]y
SFX S   0     s      [^y]

SFX D N 2
SFX D   0     ed     [^e]   po:past
SFX D   0     d      e

SFX G Y 1
SFX G   e     ing    e

SFX X Y 1
SFX X   é     ation  é

SFX C Y 1
SFX C   0     s/S    .

PFX U Y 1
PFX U   0     un     .

PFX R N 1
PFX R   0     re     .

PFX K Y 1
PFX K   p     qu     p
`

const testDic = `12
play/SDU
try/SD
toy/S
bake/DGRU	st:bake
kind/~U
cat/S
cats/!
café/SX
cafe/S
Cafe
plum/KS
cup/C
`

func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if r == 'é' {
			return 'e'
		}
		return r
	}, s)
}

func mustParse(t testing.TB, aff, dic string, opt Options) *Dictionary {
	t.Helper()
	d, err := Parse(strings.NewReader(aff), strings.NewReader(dic), opt)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

func TestLookup(t *testing.T) {
	d := mustParse(t, testAff, testDic, Options{})
	folded := mustParse(t, testAff, testDic, Options{Key: foldKey})
	tests := []struct {
		name string
		d    *Dictionary
		key  string
		want []string
	}{
		{"stem", d, "play", []string{"play"}},
		{"suffix after vowel+y", d, "plays", []string{"plays"}},
		{"no ies after vowel", d, "plaies", nil},
		{"strip y with [^aeiou]", d, "tries", []string{"tries"}},
		{"no plain s after consonant+y", d, "trys", nil},
		{"toy takes s", d, "toys", []string{"toys"}},
		{"condition [^e]", d, "played", []string{"played"}},
		{"condition e", d, "baked", []string{"baked"}},
		{"no eed", d, "bakeed", nil},
		{"strip e", d, "baking", []string{"baking"}},
		{"no strip when condition fails", d, "plaing", nil},
		{"flag missing", d, "toyed", nil},
		{"prefix", d, "unplay", []string{"unplay"}},
		{"prefix with strip and condition", d, "qulum", []string{"qulum"}},
		{"prefix strip + suffix", d, "qulums", []string{"qulums"}},
		{"cross Y+Y", d, "unbaking", []string{"unbaking"}},
		{"cross Y+Y strip y", d, "unplays", []string{"unplays"}},
		{"cross prefix Y suffix N", d, "unbaked", nil},
		{"cross prefix N suffix Y", d, "rebaking", nil},
		{"non-cross prefix alone", d, "rebake", []string{"rebake"}},
		{"needaffix stem alone", d, "kind", nil},
		{"needaffix with prefix", d, "unkind", []string{"unkind"}},
		{"forbidden form", d, "cats", nil},
		{"forbidden stem's base still there", d, "cat", []string{"cat"}},
		{"suffix with continuation flags alone", d, "cups", []string{"cups"}},
		{"suffix named by continuation flags", d, "cupss", []string{"cupss"}},
		{"case folded by default", d, "cafe", []string{"Cafe", "cafe"}},
		{"unknown", d, "zebra", nil},
		{"empty key", d, "", nil},
		{"fold several spellings", folded, "cafe", []string{"Cafe", "cafe", "café"}},
		{"fold with suffix", folded, "cafes", []string{"cafes", "cafés"}},
		{"fold shortens stripped text", folded, "cafation", []string{"cafation"}},
		{"exact accented key does not match folded dictionary", folded, "café", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Lookup(tt.key); !slices.Equal(got, tt.want) {
				t.Errorf("Lookup(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
	if got, want := d.Stems(), 11; got != want {
		t.Errorf("Stems() = %d, want %d (forbidden entry not indexed)", got, want)
	}
}

// A made-up dictionary with twofold suffixes (continuation flags).
const twofoldAff = `SET UTF-8
FLAG UTF-8

# SFX1: continuation flags name SFX2 rules.
SFX P Y 2
SFX P   0    ův/A    [^a]
SFX P   a    ův/AB   a

SFX A Y 5
SFX A   ův   ova     ův
SFX A   ův   ovi     ův
SFX A   0    ko      [^v]
SFX A   0    a       ín
SFX A   0    o/E     ín

SFX B Y 1
SFX B   0    x       .

SFX C Y 1
SFX C   ův   ovo     ův

SFX Q N 1
SFX Q   0    ín/A    .

SFX R Y 1
SFX R   0    ín/AE   .

SFX y Y 1
SFX y   ý    ější/E  ý

SFX S Y 1
SFX S   0    y       .

PFX N Y 1
PFX N   0    ne      .

PFX E Y 1
PFX E   0    nej     .

PFX W Y 1
PFX W   0    pra/SP  .

PFX M N 1
PFX M   0    mi      .
`

const twofoldDic = `9
petr/PCNM
jana/P
dom/A
ev/Q
id/R
pěkný/y
děd/W
mír/PN
kos/W
`

func TestTwofold(t *testing.T) {
	d := mustParse(t, twofoldAff, twofoldDic, Options{})
	folded := mustParse(t, twofoldAff, twofoldDic, Options{Key: czechKey})
	tests := []struct {
		name string
		d    *Dictionary
		key  string
		want []string
	}{
		{"SFX1 alone", d, "petrův", []string{"petrův"}},
		{"SFX1 + SFX2", d, "petrova", []string{"petrova"}},
		{"SFX1 + other SFX2", d, "petrovi", []string{"petrovi"}},
		{"SFX2 condition holds on intermediate, not stem", d, "mírova", []string{"mírova"}},
		{"SFX2 not in continuation flags, though the stem has it", d, "petrovo", nil},
		{"SFX2 alone on the stem", d, "domko", []string{"domko"}},
		{"SFX2 condition fails on intermediate", d, "petrůvko", nil},
		{"SFX2 named by another rule of the same flag only", d, "petrůvx", nil},
		{"SFX1 strip + SFX2", d, "janova", []string{"janova"}},
		{"SFX1 strip + second named SFX2", d, "janůvx", []string{"janůvx"}},
		{"SFX2 flag on stem does not skip SFX1", d, "petrx", nil},
		{"no third suffix", d, "janůvxx", nil},
		{"prefix + SFX1 + SFX2", d, "nepetrova", []string{"nepetrova"}},
		{"prefix flag missing", d, "nejanova", nil},
		{"non-cross prefix", d, "mipetrova", nil},
		{"non-cross SFX1 alone", d, "evín", []string{"evín"}},
		{"non-cross SFX1 + SFX2", d, "evína", []string{"evína"}},
		{"non-cross SFX1 blocks prefix", d, "nejevína", nil},
		{"SFX2 naming the prefix enables it", d, "nejevíno", []string{"nejevíno"}},
		{"SFX1 naming the prefix enables it", d, "nejidína", []string{"nejidína"}},
		{"SFX1 naming the prefix, single suffix", d, "nejidín", []string{"nejidín"}},
		{"prefix not named", d, "neidína", nil},
		{"suffix naming the prefix", d, "nejpěknější", []string{"nejpěknější"}},
		{"suffix without prefix", d, "pěknější", []string{"pěknější"}},
		{"prefix named by nothing", d, "nepěknější", nil},
		{"prefix naming the suffix", d, "pradědy", []string{"pradědy"}},
		{"prefix alone", d, "praděd", []string{"praděd"}},
		{"suffix named by prefix needs the prefix", d, "dědy", nil},
		{"prefix naming SFX1", d, "prakosův", []string{"prakosův"}},
		{"prefix naming SFX1 + SFX2", d, "prakosova", []string{"prakosova"}},
		{"SFX1 named by prefix needs the prefix", d, "kosova", nil},
		{"folded SFX1", folded, "petruv", []string{"petrův"}},
		{"folded SFX1 + SFX2", folded, "mirova", []string{"mírova"}},
		{"folded prefix + SFX1 + SFX2", folded, "nemirovi", []string{"nemírovi"}},
		{"folded SFX2 not named", folded, "petruvx", nil},
		{"folded strip + SFX2", folded, "januvx", []string{"janůvx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Lookup(tt.key); !slices.Equal(got, tt.want) {
				t.Errorf("Lookup(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	d := mustParse(t, testAff, testDic, Options{
		Key:    foldKey,
		Filter: func(s string) bool { return !unicode.IsUpper([]rune(s)[0]) },
	})
	if got, want := d.Lookup("cafe"), []string{"cafe", "café"}; !slices.Equal(got, want) {
		t.Errorf("Lookup(cafe) = %q, want %q", got, want)
	}
	if got, want := d.Stems(), 10; got != want {
		t.Errorf("Stems() = %d, want %d", got, want)
	}
}

func TestFlagModes(t *testing.T) {
	tests := []struct {
		name     string
		aff, dic string
		key      string
		want     []string
	}{
		{"long", "SET UTF-8\nFLAG long\nSFX Aa Y 1\nSFX Aa 0 s .\nPFX Bb Y 1\nPFX Bb 0 re .\nSFX Ab Y 1\nSFX Ab 0 ing .\n",
			"2\nwork/AaBb\nplay/Ab\n", "reworks", []string{"reworks"}},
		{"long other stem lacks flags", "SET UTF-8\nFLAG long\nSFX Aa Y 1\nSFX Aa 0 s .\nSFX Ab Y 1\nSFX Ab 0 ing .\n",
			"2\nwork/Aa\nplay/Ab\n", "plays", nil},
		{"long second flag", "SET UTF-8\nFLAG long\nSFX Aa Y 1\nSFX Aa 0 s .\nSFX Ab Y 1\nSFX Ab 0 ing .\n",
			"2\nwork/AaAb\nplay/Ab\n", "working", []string{"working"}},
		{"num", "SET UTF-8\nFLAG num\nSFX 101 Y 1\nSFX 101 0 s .\nPFX 7 Y 1\nPFX 7 0 re .\n",
			"2\nwork/101,7\nplay/7\n", "reworks", []string{"reworks"}},
		{"num prefix only", "SET UTF-8\nFLAG num\nSFX 101 Y 1\nSFX 101 0 s .\nPFX 7 Y 1\nPFX 7 0 re .\n",
			"2\nwork/101,7\nplay/7\n", "replays", nil},
		{"num needaffix", "SET UTF-8\nFLAG num\nNEEDAFFIX 3\nSFX 101 Y 1\nSFX 101 0 s .\n",
			"1\nwork/101,3\n", "work", nil},
		{"AF aliases", "SET UTF-8\nAF 2\nAF S # plural\nAF SP\nSFX S Y 1\nSFX S 0 s .\nPFX P Y 1\nPFX P 0 re .\n",
			"2\nwork/2\nplay/1\n", "reworks", []string{"reworks"}},
		{"ISO8859-2", "SET ISO8859-2\nSFX \xe8 Y 1\nSFX \xe8 0 \xf9 .\n",
			"1\n\xe8aj/\xe8\n", "čajů", []string{"čajů"}},
		{"default ISO8859-1", "SFX S Y 1\nSFX S 0 s .\n",
			"1\ncaf\xe9/S\n", "cafés", []string{"cafés"}},
		{"long continuation flags", "SET UTF-8\nFLAG long\nSFX Aa Y 1\nSFX Aa 0 er/CcBb .\nSFX Bb Y 1\nSFX Bb 0 s .\n",
			"1\nwork/Aa\n", "workers", []string{"workers"}},
		{"num continuation flags", "SET UTF-8\nFLAG num\nSFX 1 Y 1\nSFX 1 0 er/3,2 .\nSFX 2 Y 1\nSFX 2 0 s .\n",
			"1\nwork/1\n", "workers", []string{"workers"}},
		{"AF continuation flags", "SET UTF-8\nAF 2\nAF A\nAF B\nSFX A Y 1\nSFX A 0 er/2 .\nSFX B Y 1\nSFX B 0 s .\n",
			"1\nwork/1\n", "workers", []string{"workers"}},
		{"AF continuation flags name the alias", "SET UTF-8\nAF 2\nAF A\nAF B\nSFX A Y 1\nSFX A 0 er/1 .\nSFX B Y 1\nSFX B 0 s .\n",
			"1\nwork/1\n", "workers", nil},
		{"escaped slash", "SET UTF-8\nSFX S Y 1\nSFX S 0 s .\n",
			"1\nand\\/or/S\n", "and/ors", []string{"and/ors"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.aff, tt.dic, Options{})
			if got := d.Lookup(tt.key); !slices.Equal(got, tt.want) {
				t.Errorf("Lookup(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	const dic = "1\nwork/S\n"
	tests := []struct {
		name     string
		aff, dic string
		wantMsg  string
	}{
		{"bad cross field", "SFX S X 1\nSFX S 0 s .\n", dic, "line 1"},
		{"bad count", "SET UTF-8\nSFX S Y many\n", dic, "line 2"},
		{"short header", "SFX S Y\n", dic, "line 1"},
		{"block ends early", "SFX S Y 2\nSFX S 0 s .\nTRY abc\n", dic, "line 3"},
		{"block ends at EOF", "SFX S Y 2\nSFX S 0 s .\n", dic, "early"},
		{"rule of other flag", "SFX S Y 2\nSFX S 0 s .\nSFX T 0 s .\n", dic, "line 3"},
		{"short rule", "SFX S Y 1\nSFX S 0\n", dic, "line 2"},
		{"bad condition", "SFX S Y 1\nSFX S 0 s [ab\n", dic, "condition"},
		{"unsupported SET", "SET KOI8-R\n", dic, "KOI8-R"},
		{"unknown FLAG", "FLAG weird\n", dic, "weird"},
		{"dic without count", "SFX S Y 1\nSFX S 0 s .\n", "work/S\n", "word count"},
		{"empty dic", "", "", "empty"},
		{"long flags odd", "FLAG long\n", "1\nwork/Aab\n", "line 2"},
		{"num flag not a number", "FLAG num\n", "1\nwork/1,x\n", "bad flags"},
		{"bad AF index", "AF 1\nAF S\n", "1\nwork/2\n", "bad flags"},
		{"bad continuation flags", "FLAG num\nSFX 1 Y 1\nSFX 1 0 s/x .\n", dic, "continuation"},
		{"bad AF continuation index", "AF 1\nAF S\nSFX S Y 1\nSFX S 0 s/7 .\n", dic, "continuation"},
		{"invalid UTF-8", "SET UTF-8\n", "1\nw\xffrk\n", "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.aff), strings.NewReader(tt.dic), Options{})
			if !errors.Is(err, ErrBadDictionary) {
				t.Fatalf("err = %v, want ErrBadDictionary", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %q, want it to mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestOpenMissingFile(t *testing.T) {
	_, err := Open(t.TempDir()+"/none.aff", t.TempDir()+"/none.dic", Options{})
	if err == nil || errors.Is(err, ErrBadDictionary) {
		t.Fatalf("err = %v, want a file error", err)
	}
}

func TestConcurrentLookup(t *testing.T) {
	d := mustParse(t, testAff, testDic, Options{Key: foldKey})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if got := d.Lookup("cafes"); !slices.Equal(got, []string{"cafes", "cafés"}) {
					errs <- fmt.Errorf("Lookup(cafes) = %q", got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
