package entity

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

type numKind int

const (
	kUnit numKind = iota + 1
	kTens
	kHundred
	kScale
)

type numWord struct {
	v float64
	k numKind
}

var enNumbers = map[string]numWord{
	"zero": {0, kUnit}, "one": {1, kUnit}, "two": {2, kUnit}, "three": {3, kUnit}, "four": {4, kUnit}, "five": {5, kUnit},
	"six": {6, kUnit}, "seven": {7, kUnit}, "eight": {8, kUnit}, "nine": {9, kUnit}, "ten": {10, kUnit}, "eleven": {11, kUnit},
	"twelve": {12, kUnit}, "thirteen": {13, kUnit}, "fourteen": {14, kUnit}, "fifteen": {15, kUnit}, "sixteen": {16, kUnit},
	"seventeen": {17, kUnit}, "eighteen": {18, kUnit}, "nineteen": {19, kUnit},
	"twenty": {20, kTens}, "thirty": {30, kTens}, "forty": {40, kTens}, "fifty": {50, kTens}, "sixty": {60, kTens},
	"seventy": {70, kTens}, "eighty": {80, kTens}, "ninety": {90, kTens},
	"hundred": {100, kHundred}, "thousand": {1e3, kScale}, "million": {1e6, kScale}, "billion": {1e9, kScale},
	"dozen": {12, kUnit},
}

var csNumbers = func() map[string]numWord {
	m := map[string]numWord{}
	add := func(v float64, k numKind, forms ...string) {
		for _, f := range forms {
			m[f] = numWord{v, k}
		}
	}
	add(0, kUnit, "nula", "nuly", "nulou")
	add(1, kUnit, "jeden", "jedna", "jedno", "jednoho", "jedne", "jednu", "jednom", "jednomu", "jednou", "jednim")
	add(2, kUnit, "dva", "dve", "dvou", "dvema")
	add(3, kUnit, "tri", "trech", "trem", "tremi")
	add(4, kUnit, "ctyri", "ctyr", "ctyrech", "ctyrem", "ctyrmi")
	units := []string{"pet", "sest", "sedm", "osm", "devet", "deset", "jedenact", "dvanact", "trinact", "ctrnact", "patnact", "sestnact", "sedmnact", "osmnact", "devatenact"}
	for i, u := range units {
		add(float64(5+i), kUnit, u, u+"i")
	}
	add(9, kUnit, "deviti")
	add(10, kUnit, "deseti")
	tens := []string{"dvacet", "tricet", "ctyricet", "padesat", "sedesat", "sedmdesat", "osmdesat", "devadesat"}
	for i, t := range tens {
		add(float64(20+10*i), kTens, t, t+"i")
	}
	add(100, kHundred, "sto", "sta", "set", "ste", "stech", "stum", "stem")
	add(1e3, kScale, "tisic", "tisice", "tisicu", "tisici", "tisicich", "tis")
	add(1e6, kScale, "milion", "miliony", "milionu", "milionech", "mil")
	add(1e9, kScale, "miliarda", "miliardy", "miliard", "miliardu", "mld")
	return m
}()

func (d *doc) numWords() map[string]numWord {
	if d.lang == "cs" {
		return csNumbers
	}
	return enNumbers
}

type numSpan struct {
	i, j  int // tokens [i, j)
	value float64
	words bool // spelled out
}

// numValue returns float values as JSON-friendly numbers: integers stay
// integral.
func numValue(v float64) any {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return int64(v)
	}
	return v
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseDigits parses a digit token with decimal or thousands separators.
func (d *doc) parseDigits(s string) (float64, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && c != '.' && c != ',' {
			return 0, false
		}
	}
	// Thousands groups: "1,000,000" (en) or "1.000.000" (cs).
	sep := ","
	dec := "."
	if d.lang == "cs" {
		sep, dec = ".", ","
	}
	if parts := strings.Split(s, sep); len(parts) > 1 && !strings.Contains(s, dec) {
		ok := len(parts[0]) <= 3
		for _, p := range parts[1:] {
			ok = ok && len(p) == 3
		}
		if ok {
			s = strings.ReplaceAll(s, sep, "")
		}
	}
	s = strings.ReplaceAll(s, ",", ".")
	if strings.Count(s, ".") > 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// numbers finds numbers in digits ("125", "3,5", "20 000") and words
// ("sto dvacet pět", "one hundred twenty-five"), with scale words
// ("20 tisíc", "5 million").
func (d *doc) numbers() []numSpan {
	var out []numSpan
	words := d.numWords()
	for i := 0; i < len(d.toks); {
		if v, ok := d.parseDigits(d.toks[i].Text); ok {
			j := i + 1
			// Space-grouped thousands: "20 000", "1 250 000".
			if isDigits(d.toks[i].Text) && len(d.toks[i].Text) <= 3 {
				for j < len(d.toks) && len(d.toks[j].Text) == 3 && isDigits(d.toks[j].Text) && d.thinSpace(j-1) {
					v = v*1000 + mustAtoi(d.toks[j].Text)
					j++
				}
			}
			if j < len(d.toks) {
				if w, ok := words[d.f[j]]; ok && (w.k == kScale || w.k == kHundred) {
					v *= w.v
					j++
					if j < len(d.toks) && d.toks[j].Text == "." && (d.f[j-1] == "mil" || d.f[j-1] == "mld" || d.f[j-1] == "tis") {
						j++
					}
				}
			}
			out = append(out, numSpan{i, j, v, false})
			i = j
			continue
		}
		if v, j := d.parseWords(i, words); j > i {
			out = append(out, numSpan{i, j, v, true})
			i = j
			continue
		}
		i++
	}
	return out
}

// thinSpace reports whether tokens i and i+1 are separated by exactly one
// space (ordinary, no-break or thin).
func (d *doc) thinSpace(i int) bool {
	gap := d.text[d.toks[i].ByteEnd:d.toks[i+1].ByteStart]
	return gap == " " || gap == "\u00a0" || gap == "\u202f"
}

func mustAtoi(s string) float64 {
	v, _ := strconv.Atoi(s)
	return float64(v)
}

// parseWords parses a spelled-out number starting at token i; it returns
// the value and the end token (i when there is none). A word may join
// number words with hyphens ("twenty-five"); English "and" is skipped
// after a hundred or a scale word ("one hundred and five").
func (d *doc) parseWords(i int, words map[string]numWord) (float64, int) {
	var acc spelledNumber
	j := i
	for j < len(d.toks) {
		w := d.f[j]
		if d.lang == "en" && w == "and" && j > i && j+1 < len(d.toks) {
			if _, ok := words[d.f[j+1]]; ok && (acc.last == kHundred || acc.last == kScale) {
				j++
				continue
			}
		}
		parts, ok := numberWordParts(w, words)
		if !ok || !acc.addAll(parts, words) {
			break
		}
		j++
	}
	if j == i {
		return 0, i
	}
	// A lone abbreviation ("mil", "tis") is not a number.
	if j == i+1 && (d.f[i] == "mil" || d.f[i] == "tis" || d.f[i] == "mld") {
		return 0, i
	}
	return acc.total + acc.current, j
}

// numberWordParts splits the folded word w at hyphens and reports whether
// every part is a number word.
func numberWordParts(w string, words map[string]numWord) ([]string, bool) {
	var parts []string
	if strings.Contains(w, "-") {
		parts = strings.Split(w, "-")
	} else {
		parts = []string{w}
	}
	for _, p := range parts {
		if _, ok := words[p]; !ok {
			return nil, false
		}
	}
	return parts, true
}

// spelledNumber accumulates the number words of a spelled-out number:
// total holds what the scale words closed ("two thousand"), current the
// group being read ("three hundred twenty"), last the kind of the last
// word.
type spelledNumber struct {
	total, current float64
	last           numKind
}

// addAll adds the number words parts, in order; it reports false at the
// first that cannot continue the number (a unit after a unit, a hundred
// after a hundred, …), leaving the words before it added.
func (a *spelledNumber) addAll(parts []string, words map[string]numWord) bool {
	for _, p := range parts {
		nw := words[p]
		switch nw.k {
		case kUnit:
			if a.last == kUnit || (a.last == kTens && nw.v >= 10) {
				return false
			}
			a.current += nw.v
		case kTens:
			if a.last == kUnit || a.last == kTens {
				return false
			}
			a.current += nw.v
		case kHundred:
			if a.last == kHundred {
				return false
			}
			if a.current == 0 {
				a.current = 1
			}
			a.current *= 100
		case kScale:
			if a.last == kScale && a.current == 0 {
				return false
			}
			if a.current == 0 {
				a.current = 1
			}
			a.total += a.current * nw.v
			a.current = 0
		}
		a.last = nw.k
	}
	return true
}

// currencies maps folded currency words and symbols to ISO 4217 codes.
var currencies = func() map[string]string {
	m := map[string]string{"$": "USD", "€": "EUR", "£": "GBP", "kc": "CZK", "czk": "CZK", "eur": "EUR", "usd": "USD", "gbp": "GBP"}
	for _, f := range []string{"korun", "koruna", "koruny", "korunu", "korunami", "korune", "korunach", "korunou", "korunam"} {
		m[f] = "CZK"
	}
	for _, f := range []string{"euro", "eura", "eurum", "eurech", "euros"} {
		m[f] = "EUR"
	}
	for _, f := range []string{"dollar", "dollars", "dolar", "dolary", "dolaru", "dolarech", "dolarum"} {
		m[f] = "USD"
	}
	for _, f := range []string{"pound", "pounds", "libra", "libry", "liber", "librach"} {
		m[f] = "GBP"
	}
	return m
}()

// durationUnits maps folded unit words to ISO 8601 designators ("H" for
// hours, "TM" for minutes...).
var durationUnits = func() map[string]string {
	m := map[string]string{}
	add := func(u string, forms ...string) {
		for _, f := range forms {
			m[f] = u
		}
	}
	add("S", "second", "seconds", "sec", "secs", "sekunda", "sekundy", "sekund", "sekundu", "sekundach", "sekundami", "s")
	add("TM", "minute", "minutes", "min", "mins", "minuta", "minuty", "minut", "minutu", "minutach", "minutami")
	add("H", "hour", "hours", "hr", "hrs", "h", "hodina", "hodiny", "hodin", "hodinu", "hodinach", "hodinami", "hod")
	add("D", "day", "days", "den", "dne", "dny", "dni", "dnu", "dnech", "dnem")
	add("W", "week", "weeks", "tyden", "tydny", "tydnu", "tydnech", "tydne")
	add("M", "month", "months", "mesic", "mesice", "mesicu", "mesicich", "mesici")
	add("Y", "year", "years", "rok", "roky", "let", "roku", "letech", "rokem")
	return m
}()

// unitAbbrev holds the abbreviated duration units, which spelled-out
// fractions ("a půl", "and a half") do not take.
var unitAbbrev = map[string]bool{"s": true, "h": true, "min": true, "mins": true, "sec": true, "secs": true, "hr": true, "hrs": true, "hod": true}

// isoDuration formats v units as an ISO 8601 duration; a fraction of an
// hour, minute or day is carried to the next smaller unit ("PT2H30M" for
// 2.5 hours) when that comes out whole.
func isoDuration(v float64, unit string) string {
	if whole, frac := math.Modf(v); frac > 0 && v > 0 {
		w := strconv.FormatFloat(whole, 'f', -1, 64)
		carry := func(per float64) (string, bool) {
			x := frac * per
			if math.Abs(x-math.Round(x)) > 1e-9 {
				return "", false
			}
			return strconv.FormatFloat(math.Round(x), 'f', -1, 64), true
		}
		switch unit {
		case "H":
			if m, ok := carry(60); ok {
				if whole == 0 {
					return "PT" + m + "M"
				}
				return "PT" + w + "H" + m + "M"
			}
		case "TM":
			if sec, ok := carry(60); ok {
				if whole == 0 {
					return "PT" + sec + "S"
				}
				return "PT" + w + "M" + sec + "S"
			}
		case "D":
			if h, ok := carry(24); ok {
				if whole == 0 {
					return "PT" + h + "H"
				}
				return "P" + w + "DT" + h + "H"
			}
		}
	}
	n := strconv.FormatFloat(v, 'f', -1, 64)
	switch unit {
	case "S":
		return "PT" + n + "S"
	case "TM":
		return "PT" + n + "M"
	case "H":
		return "PT" + n + "H"
	}
	return "P" + n + unit
}

var timePreps = []string{"v", "ve", "od", "do", "kolem", "okolo", "at", "by", "until", "till", "from"}

// dayParts shift a 1-12 hour: true for afternoon/evening.
var dayParts = map[string]bool{"rano": false, "dopoledne": false, "odpoledne": true, "vecer": true, "morning": false, "evening": true, "afternoon": true, "night": true, "tonight": true}

// typed turns number spans followed or preceded by a unit into money,
// percent, duration and time candidates (typedNumber), then adds the
// durations without digits ("half an hour", "hodinu a půl": wordDurations).
func (d *doc) typed(nums []numSpan) {
	for k := range nums {
		d.typedNumber(nums, k)
	}
	d.wordDurations()
}

// typedNumber types the number span nums[k], trying in order: the lower
// bound of a range, a fraction of a unit, a currency, percent or unit
// around it, and an hour before a part of the day.
func (d *doc) typedNumber(nums []numSpan, k int) {
	n := nums[k]
	if d.rangeLowerBound(nums, k) || d.fractionDuration(n) || d.measured(n) {
		return
	}
	d.dayPartTime(n)
}

// rangeLowerBound types the lower bound of a range with the upper bound's
// unit: "2–3 dny", "dva až tři dny", "2 to 3 hours" give P2D and P3D.
func (d *doc) rangeLowerBound(nums []numSpan, k int) bool {
	i, j := nums[k].i, nums[k].j
	if k+1 < len(nums) && nums[k+1].i == j+1 && d.is(j, "-", "–", "—", "az", "to") && nums[k+1].j < len(d.toks) {
		if u, ok := durationUnits[d.f[nums[k+1].j]]; ok && !unitAbbrev[d.f[nums[k+1].j]] {
			d.addTok(tierTyped, i, j, Duration, isoDuration(nums[k].value, u), 0.85)
			return true
		}
	}
	return false
}

// fractionDuration types a number and a fraction of a unit: "dvě a půl
// hodiny", "two and a half hours", "tři čtvrtě hodiny".
func (d *doc) fractionDuration(n numSpan) bool {
	i, j := n.i, n.j
	if d.lang == "cs" && d.is(j, "a") && d.is(j+1, "pul") && j+2 < len(d.toks) {
		if u, ok := durationUnits[d.f[j+2]]; ok && !unitAbbrev[d.f[j+2]] {
			d.addTok(tierTyped, i, j+3, Duration, isoDuration(n.value+0.5, u), 0.9)
			return true
		}
	}
	if d.lang == "en" && d.is(j, "and") && d.is(j+1, "a") && d.is(j+2, "half") && j+3 < len(d.toks) {
		if u, ok := durationUnits[d.f[j+3]]; ok && !unitAbbrev[d.f[j+3]] {
			d.addTok(tierTyped, i, j+4, Duration, isoDuration(n.value+0.5, u), 0.9)
			return true
		}
	}
	if d.lang == "cs" && d.is(j, "ctvrte", "ctvrti", "ctvrt") && n.value >= 1 && n.value <= 3 && j+1 < len(d.toks) {
		if u, ok := durationUnits[d.f[j+1]]; ok && !unitAbbrev[d.f[j+1]] {
			d.addTok(tierTyped, i, j+2, Duration, isoDuration(n.value/4, u), 0.9)
			return true
		}
	}
	return false
}

// measured types a number by the word after it (or a currency before
// it): money, percent, an hour after a preposition ("v 8 hodin"), or a
// duration. It reports whether the number is settled: a Czech "5 s" is,
// untyped (in prose usually the preposition).
func (d *doc) measured(n numSpan) bool {
	i, j := n.i, n.j
	next := ""
	if j < len(d.toks) {
		next = d.f[j]
	}
	prev := ""
	if i > 0 {
		prev = d.f[i-1]
	}
	if c, ok := currencies[next]; ok {
		d.addTok(tierTyped, i, j+1, Money, MoneyValue{n.value, c}, 0.95)
		return true
	}
	if c, ok := currencies[prev]; ok {
		d.addTok(tierTyped, i-1, j, Money, MoneyValue{n.value, c}, 0.95)
		return true
	}
	if next == "%" || hasPrefixAny(next, "procent", "percent") {
		d.addTok(tierTyped, i, j+1, Percent, numValue(n.value), 0.95)
		return true
	}
	if next == "per" && j+1 < len(d.toks) && d.f[j+1] == "cent" {
		d.addTok(tierTyped, i, j+2, Percent, numValue(n.value), 0.95)
		return true
	}
	u, ok := durationUnits[next]
	if !ok {
		return false
	}
	if u == "H" && d.is(i-1, timePreps...) && n.value == math.Trunc(n.value) && n.value <= 24 {
		d.addTok(tierTyped, i-1, j+1, Time, fmt.Sprintf("%02d:00", int(n.value)), 0.9)
		return true
	}
	if (next == "s" || next == "h" || next == "min") && !d.adjacent(j-1) && next != "min" {
		// "5 s" in prose is usually the preposition.
		if d.lang == "cs" {
			return true
		}
	}
	d.addTok(tierTyped, i, j+1, Duration, isoDuration(n.value, u), 0.9)
	return true
}

// dayPartTime types an hour after a preposition and before a part of the
// day: "v 8 ráno", "v osm večer", "at 7 in the evening".
func (d *doc) dayPartTime(n numSpan) {
	i, j := n.i, n.j
	if !d.is(i-1, timePreps...) || n.value < 0 || n.value > 12 || n.value != math.Trunc(n.value) || j >= len(d.toks) {
		return
	}
	if pm, ok := dayParts[d.f[j]]; ok {
		h := int(n.value)
		if pm && h < 12 {
			h += 12
		}
		d.addTok(tierTyped, i-1, j+1, Time, fmt.Sprintf("%02d:00", h), 0.9)
	}
}

// wordDurations adds durations without digits: "half an hour", "půl
// hodiny", "an hour", "a week", "hodinu" after za/na.
func (d *doc) wordDurations() {
	for i := range d.toks {
		switch {
		case d.is(i, "half") && d.is(i+1, "an", "a") && i+2 < len(d.toks):
			if u, ok := durationUnits[d.f[i+2]]; ok {
				d.addTok(tierTyped, i, i+3, Duration, halfDuration(u), 0.9)
			}
		case d.lang == "cs" && d.is(i, "ctvrt") && i+1 < len(d.toks) && !d.is(i-1, "tri", "dve", "dva", "jedna"):
			// "čtvrt hodiny"
			if u, ok := durationUnits[d.f[i+1]]; ok && !unitAbbrev[d.f[i+1]] {
				d.addTok(tierTyped, i, i+2, Duration, isoDuration(0.25, u), 0.9)
			}
		case d.lang == "en" && d.is(i, "quarter", "quarters") && d.is(i+1, "of") && d.is(i+2, "an", "a") && i+3 < len(d.toks):
			// "a quarter of an hour", "three quarters of an hour"
			if u, ok := durationUnits[d.f[i+3]]; ok {
				start, q := i, 0.25
				if d.is(i-1, "three") {
					start, q = i-1, 0.75
				} else if d.is(i-1, "a") {
					start = i - 1
				}
				d.addTok(tierTyped, start, i+4, Duration, isoDuration(q, u), 0.9)
			}
		case d.lang == "cs" && d.is(i, "hodinu", "minutu", "den", "tyden", "rok", "mesic") && d.is(i+1, "a") && d.is(i+2, "pul"):
			// "hodinu a půl"
			d.addTok(tierTyped, i, i+3, Duration, isoDuration(1.5, durationUnits[d.f[i]]), 0.9)
		case d.lang == "en" && d.is(i, "an", "a", "one") && i+1 < len(d.toks) && d.is(i+2, "and") && d.is(i+3, "a") && d.is(i+4, "half"):
			// "an hour and a half"
			if u, ok := durationUnits[d.f[i+1]]; ok && !unitAbbrev[d.f[i+1]] {
				d.addTok(tierTyped, i, i+5, Duration, isoDuration(1.5, u), 0.9)
			}
		case d.is(i, "pul") && i+1 < len(d.toks):
			if u, ok := durationUnits[d.f[i+1]]; ok && !d.is(i+1, "s", "h", "min", "hod") {
				d.addTok(tierTyped, i, i+2, Duration, halfDuration(u), 0.9)
			}
		case d.is(i, "an", "a") && i+1 < len(d.toks) && d.lang == "en":
			if u, ok := durationUnits[d.f[i+1]]; ok && len(d.f[i+1]) > 3 && !strings.HasSuffix(d.f[i+1], "s") {
				d.addTok(tierTyped, i, i+2, Duration, isoDuration(1, u), 0.85)
			}
		case d.is(i, "za", "na", "po") && i+1 < len(d.toks) && d.lang == "cs":
			if d.is(i+1, "hodinu", "minutu", "tyden", "mesic", "rok", "den", "sekundu") {
				d.addTok(tierTyped, i+1, i+2, Duration, isoDuration(1, durationUnits[d.f[i+1]]), 0.85)
			}
		}
	}
}

func halfDuration(u string) string { return isoDuration(0.5, u) }
