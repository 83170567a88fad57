package entity

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	isoDateRE = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	// d. m. yyyy and d.m.yyyy (Czech, German); year optional.
	dmyRE = regexp.MustCompile(`\b(\d{1,2})\.\s?(\d{1,2})\.(?:\s?(\d{4})\b)?`)
	// m/d/yyyy (English) or d/m/yyyy (Czech).
	slashRE = regexp.MustCompile(`\b(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b`)
	// HH:MM, optional :SS.
	clockRE = regexp.MustCompile(`\b([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?:\s?([ap])\.?\s?m\b\.?|\b)`)
)

func validDate(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t.Day() == d
}

func isoDate(y, m, d int) string { return fmt.Sprintf("%04d-%02d-%02d", y, m, d) }

// yearFor picks the year of a day and month given without one: the
// reference year.
func (d *doc) yearFor(m, day int) int { return d.now.Year() }

func atoi(s string) int { v, _ := strconv.Atoi(s); return v }

func (d *doc) numericDates() {
	for _, m := range isoDateRE.FindAllStringSubmatchIndex(d.text, -1) {
		y, mo, dd := atoi(d.text[m[2]:m[3]]), atoi(d.text[m[4]:m[5]]), atoi(d.text[m[6]:m[7]])
		if validDate(y, mo, dd) {
			d.addBytes(tierTyped, m[0], m[1], Date, isoDate(y, mo, dd), 0.99)
		}
	}
	for _, m := range dmyRE.FindAllStringSubmatchIndex(d.text, -1) {
		dd, mo := atoi(d.text[m[2]:m[3]]), atoi(d.text[m[4]:m[5]])
		y := 0
		end := m[1]
		if m[6] >= 0 {
			y = atoi(d.text[m[6]:m[7]])
		} else {
			y = d.yearFor(mo, dd)
			// Without a year, "3. 4." must not be followed by more digits.
			if end < len(d.text) && d.text[end] >= '0' && d.text[end] <= '9' {
				continue
			}
		}
		if validDate(y, mo, dd) {
			conf := 0.95
			if m[6] < 0 {
				conf = 0.8
			}
			d.addBytes(tierTyped, m[0], end, Date, isoDate(y, mo, dd), conf)
		}
	}
	for _, m := range slashRE.FindAllStringSubmatchIndex(d.text, -1) {
		a, b, y := atoi(d.text[m[2]:m[3]]), atoi(d.text[m[4]:m[5]]), atoi(d.text[m[6]:m[7]])
		if y < 100 {
			y += 2000
		}
		mo, dd := a, b
		if d.lang == "cs" || a > 12 {
			mo, dd = b, a
		}
		if validDate(y, mo, dd) {
			d.addBytes(tierTyped, m[0], m[1], Date, isoDate(y, mo, dd), 0.9)
		}
	}
}

var enMonths = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
	"september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

// csMonths holds the folded case forms of the Czech month names.
var csMonths = func() map[string]int {
	m := map[string]int{}
	forms := [][]string{
		{"leden", "ledna", "lednu", "lednem"},
		{"unor", "unora", "unoru", "unorem"},
		{"brezen", "brezna", "breznu", "breznem"},
		{"duben", "dubna", "dubnu", "dubnem"},
		{"kveten", "kvetna", "kvetnu", "kvetnem"},
		{"cerven", "cervna", "cervnu", "cervnem"},
		{"cervenec", "cervence", "cervenci", "cervencem"},
		{"srpen", "srpna", "srpnu", "srpnem"},
		{"zari", "zarim"},
		{"rijen", "rijna", "rijnu", "rijnem"},
		{"listopad", "listopadu", "listopadem"},
		{"prosinec", "prosince", "prosinci", "prosincem"},
	}
	for i, fs := range forms {
		for _, f := range fs {
			m[f] = i + 1
		}
	}
	return m
}()

var enWeekdays = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday, "thursday": time.Thursday,
	"friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
	"mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday, "thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday, "sun": time.Sunday,
}

var csWeekdays = func() map[string]time.Weekday {
	m := map[string]time.Weekday{}
	add := func(w time.Weekday, forms ...string) {
		for _, f := range forms {
			m[f] = w
		}
	}
	add(time.Monday, "pondeli", "pondelim", "pondelka", "pondelky")
	add(time.Tuesday, "utery", "uterek", "uterku", "uterkem", "uterka")
	add(time.Wednesday, "streda", "stredu", "strede", "stredy", "stredou")
	add(time.Thursday, "ctvrtek", "ctvrtku", "ctvrtkem", "ctvrtka")
	add(time.Friday, "patek", "patku", "patkem", "patka")
	add(time.Saturday, "sobota", "sobotu", "sobote", "soboty", "sobotou")
	add(time.Sunday, "nedele", "nedeli", "nedelí", "nedeli")
	return m
}()

var (
	enRelative = map[string]int{"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}
	csRelative = map[string]int{"dnes": 0, "dneska": 0, "dnesek": 0, "zitra": 1, "zitrek": 1, "pozitri": 2, "vcera": -1, "predevcirem": -2}
	nextWords  = []string{"next", "pristi", "pristim", "pristiho", "pristi"}
	thisWords  = []string{"this", "tento", "tuto", "toto", "tenhle", "tuhle", "letos"}
	lastWords  = []string{"last", "minuly", "minulou", "minule", "minulem", "minuleho", "previous"}
)

func (d *doc) months() map[string]int {
	if d.lang == "cs" {
		return csMonths
	}
	return enMonths
}

func (d *doc) day(days int) string {
	t := d.now.AddDate(0, 0, days)
	return isoDate(t.Year(), int(t.Month()), t.Day())
}

// dayNum parses a day of month token: "15", "15th" (en).
func (d *doc) dayNum(i int) (int, bool) {
	if i < 0 || i >= len(d.f) {
		return 0, false
	}
	s := d.f[i]
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if d.lang == "en" && strings.HasSuffix(s, suf) && isDigits(s[:len(s)-2]) {
			s = s[:len(s)-2]
		}
	}
	if !isDigits(s) || len(s) > 2 {
		return 0, false
	}
	v := atoi(s)
	return v, v >= 1 && v <= 31
}

// dayAt parses a day of month at token i, as digits ("15", "15th") or as
// an ordinal word in any case ("prvního", "dvacátého prvního", "first",
// "twenty-first"); it returns the day and the token after it.
func (d *doc) dayAt(i int) (int, int, bool) {
	if v, ok := d.dayNum(i); ok {
		return v, i + 1, true
	}
	if i < 0 || i >= len(d.f) {
		return 0, i, false
	}
	if d.lang == "en" {
		f := d.f[i]
		if v, ok := enOrdinals[f]; ok && v <= 31 {
			return v, i + 1, true
		}
		if k := strings.IndexByte(f, '-'); k > 0 {
			if t, ok := enTensPrefix[f[:k]]; ok && t <= 30 {
				if v, ok := enOrdinals[f[k+1:]]; ok && v < 10 && t+v <= 31 {
					return t + v, i + 1, true
				}
			}
		}
		return 0, i, false
	}
	v, ok := csOrdinals[d.f[i]]
	if !ok || v > 31 {
		return 0, i, false
	}
	// "dvacátého prvního", "třicátého prvního": tens then units.
	if v == 20 || v == 30 {
		if u, ok := csOrdinals[d.f[min(i+1, len(d.f)-1)]]; ok && i+1 < len(d.f) && u < 10 && v+u <= 31 {
			return v + u, i + 2, true
		}
	}
	return v, i + 1, true
}

func (d *doc) yearAt(i int) (int, bool) {
	if i < 0 || i >= len(d.f) || len(d.f[i]) != 4 || !isDigits(d.f[i]) {
		return 0, false
	}
	y := atoi(d.f[i])
	return y, y >= 1000 && y <= 2999
}

// dates adds textual and relative dates.
func (d *doc) dates() {
	months := d.months()
	for i := range d.toks {
		// Czech "15. března 2025", English "15 March 2025", "15th of March".
		if dd, j, ok := d.dayAt(i); ok {
			if d.lang == "cs" && d.is(j, ".") {
				j++
			}
			if d.is(j, "of") {
				j++
			}
			if mo, ok := months[d.f[min(j, len(d.f)-1)]]; ok && j < len(d.f) {
				j++
				y, hasY := d.yearAt(j)
				if hasY {
					j++
				} else {
					y = d.yearFor(mo, dd)
				}
				if validDate(y, mo, dd) {
					d.addTok(tierTyped, i, j, Date, isoDate(y, mo, dd), 0.95)
				}
			}
		}
		// English "March 15, 2025", "March 15th".
		if mo, ok := months[d.f[i]]; ok && d.lang == "en" {
			if dd, j, ok := d.dayAt(i + 1); ok {
				k := j
				if d.is(k, ",") {
					k++
				}
				y, hasY := d.yearAt(k)
				if hasY {
					j = k + 1
				} else {
					y = d.yearFor(mo, dd)
				}
				if validDate(y, mo, dd) {
					d.addTok(tierTyped, i, j, Date, isoDate(y, mo, dd), 0.95)
				}
			}
		}
		d.relative(i)
		d.weekday(i)
	}
}

func (d *doc) relative(i int) {
	rel := enRelative
	if d.lang == "cs" {
		rel = csRelative
	}
	if n, ok := rel[d.f[i]]; ok {
		d.addTok(tierTyped, i, i+1, Date, d.day(n), 0.95)
		return
	}
	if d.lang == "en" && d.is(i, "day") && d.is(i+1, "after", "before") && d.is(i+2, "tomorrow", "yesterday") {
		n := 2
		if d.f[i+1] == "before" {
			n = -2
		}
		start := i
		if d.is(i-1, "the") {
			start = i - 1
		}
		d.addTok(tierTyped, start, i+3, Date, d.day(n), 0.95)
	}
}

func (d *doc) weekday(i int) {
	wds := enWeekdays
	if d.lang == "cs" {
		wds = csWeekdays
	}
	wd, ok := wds[d.f[i]]
	if !ok {
		return
	}
	if len(d.f[i]) == 3 && d.lang == "en" && !token3OK(d.toks[i].Text) {
		return
	}
	start := i
	today := int(d.now.Weekday())
	delta := (int(wd) - today + 7) % 7
	if delta == 0 {
		delta = 7
	}
	switch {
	case d.is(i-1, nextWords...):
		start = i - 1
		// The day of next week (weeks start on Monday).
		monday := (today + 6) % 7 // days since Monday
		delta = 7 - monday + (int(wd)+6)%7
	case d.is(i-1, thisWords...):
		start = i - 1
		monday := (today + 6) % 7
		delta = (int(wd)+6)%7 - monday
	case d.is(i-1, lastWords...):
		start = i - 1
		delta = -((today - int(wd) + 7) % 7)
		if delta == 0 {
			delta = -7
		}
	}
	// The end of a range ("od pondělí do středy", "from Monday to
	// Wednesday") is not before its start.
	if start == i && d.is(i-1, "do", "until", "till", "to") && d.is(i-3, "od", "from") {
		if swd, ok := wds[d.f[i-2]]; ok {
			sd := (int(swd) - today + 7) % 7
			if sd == 0 {
				sd = 7
			}
			for delta < sd {
				delta += 7
			}
		}
	}
	d.addTok(tierTyped, start, i+1, Date, d.day(delta), 0.9)
}

// token3OK accepts three-letter weekday abbreviations only capitalized
// ("Mon", not "sun" or "wed").
func token3OK(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

var enHourWords = map[string]string{"noon": "12:00", "midday": "12:00", "midnight": "00:00"}
var csHourWords = map[string]string{"poledne": "12:00", "polednem": "12:00", "pulnoc": "00:00", "pulnoci": "00:00"}

// times adds clock times.
func (d *doc) times() {
	for _, m := range clockRE.FindAllStringSubmatchIndex(d.text, -1) {
		h, mi := atoi(d.text[m[2]:m[3]]), atoi(d.text[m[4]:m[5]])
		if m[8] >= 0 {
			if h > 12 {
				continue
			}
			if d.text[m[8]] == 'p' && h < 12 {
				h += 12
			}
			if d.text[m[8]] == 'a' && h == 12 {
				h = 0
			}
		}
		v := fmt.Sprintf("%02d:%02d", h, mi)
		if m[6] >= 0 {
			v += ":" + d.text[m[6]:m[7]]
		}
		d.addBytes(tierTyped, m[0], m[1], Time, v, 0.95)
	}
	words := enHourWords
	if d.lang == "cs" {
		words = csHourWords
	}
	for i, f := range d.f {
		if v, ok := words[f]; ok {
			d.addTok(tierTyped, i, i+1, Time, v, 0.9)
		}
		// "8pm", "8 pm", "8 p.m.", "8 o'clock".
		h := -1
		j := i + 1
		pm := -1
		switch {
		case len(f) > 2 && (strings.HasSuffix(f, "am") || strings.HasSuffix(f, "pm")) && isDigits(f[:len(f)-2]):
			h = atoi(f[:len(f)-2])
			pm = b2i(strings.HasSuffix(f, "pm"))
		case isDigits(f) && len(f) <= 2 && d.is(i+1, "am", "pm"):
			h, pm, j = atoi(f), b2i(d.f[i+1] == "pm"), i+2
		case isDigits(f) && len(f) <= 2 && d.is(i+1, "a", "p") && d.is(i+2, ".") && d.is(i+3, "m"):
			h, pm, j = atoi(f), b2i(d.f[i+1] == "p"), i+4
			if d.is(j, ".") {
				j++
			}
		case isDigits(f) && len(f) <= 2 && d.is(i+1, "o'clock"):
			h, j = atoi(f), i+2
		}
		if h < 0 || h > 12 {
			continue
		}
		if pm == 1 && h < 12 {
			h += 12
		}
		if pm == 0 && h == 12 {
			h = 0
		}
		d.addTok(tierTyped, i, j, Time, fmt.Sprintf("%02d:00", h), 0.9)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

var enOrdinals = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
	"eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17,
	"eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60,
	"seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100, "thousandth": 1000,
}

var enTensPrefix = map[string]int{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}

// csOrdinals holds folded case forms of Czech ordinal numerals 1-20.
var csOrdinals = func() map[string]int {
	m := map[string]int{}
	soft := []string{"i", "iho", "imu", "im", "ich", "imi"}
	hard := []string{"y", "a", "e", "eho", "emu", "em", "ym", "ou", "ych", "ymi", "ymu"}
	for stem, v := range map[string]int{"prvn": 1, "tret": 3} {
		for _, e := range soft {
			m[stem+e] = v
		}
	}
	hardStems := map[string]int{"druh": 2, "ctvrt": 4, "pat": 5, "sest": 6, "sedm": 7, "osm": 8, "devat": 9, "desat": 10,
		"jedenact": 11, "dvanact": 12, "trinact": 13, "ctrnact": 14, "patnact": 15, "sestnact": 16, "sedmnact": 17, "osmnact": 18, "devatenact": 19, "dvacat": 20, "tricat": 30}
	for stem, v := range hardStems {
		for _, e := range hard {
			m[stem+e] = v
		}
	}
	delete(m, "pata") // heel, more often than "the fifth"
	return m
}()

// ordinals adds "1st", "twenty-first", "první", "3." (Czech, before a
// lower-case word that is not a month).
func (d *doc) ordinals() {
	for i, f := range d.f {
		if d.lang == "en" {
			if len(f) > 2 && isDigits(f[:len(f)-2]) {
				suf := f[len(f)-2:]
				if suf == "st" || suf == "nd" || suf == "rd" || suf == "th" {
					d.addTok(tierTyped, i, i+1, Ordinal, int64(atoi(f[:len(f)-2])), 0.95)
					continue
				}
			}
			if v, ok := enOrdinals[f]; ok {
				d.addTok(tierTyped, i, i+1, Ordinal, int64(v), 0.9)
				continue
			}
			if k := strings.IndexByte(f, '-'); k > 0 {
				if t, ok := enTensPrefix[f[:k]]; ok {
					if v, ok := enOrdinals[f[k+1:]]; ok && v < 10 {
						d.addTok(tierTyped, i, i+1, Ordinal, int64(t+v), 0.9)
					}
				}
			}
			continue
		}
		if v, ok := csOrdinals[f]; ok {
			d.addTok(tierTyped, i, i+1, Ordinal, int64(v), 0.85)
			continue
		}
		if isDigits(f) && len(f) <= 3 && d.is(i+1, ".") && d.adjacent(i) && i+2 < len(d.toks) {
			nt := d.toks[i+2].Text
			if _, isMonth := csMonths[d.f[i+2]]; !isMonth && nt != "" && !token3OK(nt) && !isDigits(nt) && d.toks[i+2].Word() {
				d.addTok(tierTyped, i, i+2, Ordinal, int64(atoi(f)), 0.8)
			}
		}
	}
}
