package entity

import (
	"regexp"
	"strings"
)

var (
	emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	urlRE   = regexp.MustCompile(`(?i)\b(?:https?://|www\.)[^\s<>"]+|\b[a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)*\.(?:cz|sk|com|org|net|eu|io|de|uk|gov|edu|info)\b(?:/[^\s<>"]*)?`)
	// International: + or 00, country code, then groups.
	phoneIntlRE = regexp.MustCompile(`(?:\+|\b00)\d{1,3}(?:[ \-]?\(?\d{1,4}\)?){1,5}\b`)
	// Czech national: 9 digits in groups of three (or together).
	phoneCSRE = regexp.MustCompile(`\b[2-9]\d{2}[ ]?\d{3}[ ]?\d{3}\b`)
	// North American: (555) 123-4567, 555-123-4567.
	phoneUSRE = regexp.MustCompile(`(?:\(\d{3}\)\s?|\b\d{3}[\-.])\d{3}[\-.]\d{4}\b`)
)

func digitsOf(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// patterns adds email, url and phone candidates.
func (d *doc) patterns() {
	for _, loc := range emailRE.FindAllStringIndex(d.text, -1) {
		d.addBytes(tierPattern, loc[0], loc[1], Email, strings.ToLower(d.text[loc[0]:loc[1]]), 0.99)
	}
	for _, loc := range urlRE.FindAllStringIndex(d.text, -1) {
		// Not the domain of an email address.
		if loc[0] > 0 && d.text[loc[0]-1] == '@' {
			continue
		}
		e := loc[1]
		for e > loc[0] && strings.IndexByte(".,;:!?)]}'\"", d.text[e-1]) >= 0 {
			e--
		}
		d.addBytes(tierPattern, loc[0], e, URL, d.text[loc[0]:e], 0.95)
	}
	for _, loc := range phoneIntlRE.FindAllStringIndex(d.text, -1) {
		s := d.text[loc[0]:loc[1]]
		dg := digitsOf(s)
		if strings.HasPrefix(s, "00") {
			dg = dg[2:]
		}
		if len(dg) < 8 || len(dg) > 15 {
			continue
		}
		d.addBytes(tierPattern, loc[0], loc[1], Phone, "+"+dg, 0.95)
	}
	if d.lang == "cs" {
		for _, loc := range phoneCSRE.FindAllStringIndex(d.text, -1) {
			if loc[0] > 0 && (d.text[loc[0]-1] == '+' || d.text[loc[0]-1] == '.' || d.text[loc[0]-1] == ',') {
				continue
			}
			d.addBytes(tierPattern, loc[0], loc[1], Phone, "+420"+digitsOf(d.text[loc[0]:loc[1]]), 0.85)
		}
	}
	for _, loc := range phoneUSRE.FindAllStringIndex(d.text, -1) {
		d.addBytes(tierPattern, loc[0], loc[1], Phone, "+1"+digitsOf(d.text[loc[0]:loc[1]]), 0.85)
	}
}
