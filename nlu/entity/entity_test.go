package entity

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// ref is Monday 10 March 2025, 09:00 UTC.
var ref = time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC)

func find(ents []Entity, class string) []string {
	var out []string
	for _, e := range ents {
		if e.Class == class {
			v, _ := json.Marshal(e.Value)
			out = append(out, fmt.Sprintf("%s=%s", e.Text, v))
		}
	}
	return out
}

func TestExtract(t *testing.T) {
	tests := []struct {
		lang, text, class, want string
	}{
		// numbers
		{"cs", "stálo to sto dvacet pět korun", "money", `sto dvacet pět korun={"amount":125,"currency":"CZK"}`},
		{"cs", "jich bylo sto dvacet pět", "number", `sto dvacet pět=125`},
		{"en", "one hundred twenty-five people", "number", `one hundred twenty-five=125`},
		{"en", "two thousand and five", "number", `two thousand and five=2005`},
		{"cs", "dvě stě tisíc", "number", `dvě stě tisíc=200000`},
		{"cs", "průměr 3,5 bodu", "number", `3,5=3.5`},
		{"en", "it costs 1,250 units", "number", `1,250=1250`},
		{"cs", "přišlo 20 000 lidí", "number", `20 000=20000`},
		// money
		{"cs", "dvacet tisíc korun", "money", `dvacet tisíc korun={"amount":20000,"currency":"CZK"}`},
		{"cs", "za 250 Kč", "money", `250 Kč={"amount":250,"currency":"CZK"}`},
		{"cs", "stojí 1 500 Kč", "money", `1 500 Kč={"amount":1500,"currency":"CZK"}`},
		{"en", "it was $20", "money", `$20={"amount":20,"currency":"USD"}`},
		{"en", "pay €15.50 now", "money", `€15.50={"amount":15.5,"currency":"EUR"}`},
		{"cs", "2,5 mil. Kč", "money", `2,5 mil. Kč={"amount":2500000,"currency":"CZK"}`},
		{"en", "ten dollars", "money", `ten dollars={"amount":10,"currency":"USD"}`},
		// percent
		{"cs", "sleva 15 %", "percent", `15 %=15`},
		{"cs", "o deset procent", "percent", `deset procent=10`},
		{"en", "up 3.5% today", "percent", `3.5%=3.5`},
		// ordinals
		{"en", "the 21st time", "ordinal", `21st=21`},
		{"en", "twenty-first century", "ordinal", `twenty-first=21`},
		{"cs", "první místo", "ordinal", `první=1`},
		{"cs", "ve třetím patře", "ordinal", `třetím=3`},
		{"cs", "3. patro", "ordinal", `3.=3`},
		// dates
		{"cs", "15. března 2025", "date", `15. března 2025="2025-03-15"`},
		// issue 14: ordinal words as the day, month names in every case
		{"cs", "narodil se prvního ledna 1990", "date", `prvního ledna 1990="1990-01-01"`},
		{"cs", "dvacátého prvního června", "date", `dvacátého prvního června="2025-06-21"`},
		{"cs", "třicátého prvního prosince 1999", "date", `třicátého prvního prosince 1999="1999-12-31"`},
		{"cs", "k třetímu březnu 2024", "date", `třetímu březnu 2024="2024-03-03"`},
		{"cs", "1. ledna", "date", `1. ledna="2025-01-01"`},
		{"cs", "5. září 2025", "date", `5. září 2025="2025-09-05"`},
		{"cs", "po 28. únoru", "date", `28. únoru="2025-02-28"`},
		{"cs", "před 2. květnem 2020", "date", `2. květnem 2020="2020-05-02"`},
		{"en", "the first of January 1990", "date", `first of January 1990="1990-01-01"`},
		{"en", "on January twenty-first", "date", `January twenty-first="2025-01-21"`},
		{"cs", "od pondělí do středy", "date", `pondělí="2025-03-17"; středy="2025-03-19"`},
		{"en", "from Friday to Monday", "date", `Friday="2025-03-14"; Monday="2025-03-17"`},
		{"cs", "do 1. 4. 2025", "date", `1. 4. 2025="2025-04-01"`},
		{"cs", "sejdeme se zítra", "date", `zítra="2025-03-11"`},
		{"cs", "pozítří", "date", `pozítří="2025-03-12"`},
		{"cs", "v pondělí", "date", `pondělí="2025-03-17"`},
		{"cs", "ve středu", "date", `středu="2025-03-12"`},
		{"cs", "příští středu", "date", `příští středu="2025-03-19"`},
		{"cs", "minulý pátek", "date", `minulý pátek="2025-03-07"`},
		{"en", "on March 15, 2025", "date", `March 15, 2025="2025-03-15"`},
		{"en", "the 4th of July", "date", `4th of July="2025-07-04"`},
		{"en", "next Friday", "date", `next Friday="2025-03-21"`},
		{"en", "see you tomorrow", "date", `tomorrow="2025-03-11"`},
		{"en", "the day after tomorrow", "date", `the day after tomorrow="2025-03-12"`},
		{"en", "due 2025-12-31", "date", `2025-12-31="2025-12-31"`},
		// times
		{"cs", "ve 20 hodin", "time", `ve 20 hodin="20:00"`},
		{"cs", "v 8 večer", "time", `v 8 večer="20:00"`},
		{"cs", "začátek v 18:30", "time", `18:30="18:30"`},
		{"en", "at 8 pm", "time", `8 pm="20:00"`},
		{"en", "at 7:45am", "time", `7:45am="07:45"`},
		{"en", "at noon", "time", `noon="12:00"`},
		// durations
		{"cs", "trvá 20 hodin", "duration", `20 hodin="PT20H"`},
		{"cs", "dvě hodiny", "duration", `dvě hodiny="PT2H"`},
		{"cs", "půl hodiny", "duration", `půl hodiny="PT30M"`},
		{"en", "for 3 days", "duration", `3 days="P3D"`},
		{"en", "half an hour", "duration", `half an hour="PT30M"`},
		{"en", "1.5 hours", "duration", `1.5 hours="PT1H30M"`},
		// issue 14: halves and quarters
		{"cs", "trvalo to dvě a půl hodiny", "duration", `dvě a půl hodiny="PT2H30M"`},
		{"cs", "za 3 a půl minuty", "duration", `3 a půl minuty="PT3M30S"`},
		{"cs", "hodinu a půl", "duration", `hodinu a půl="PT1H30M"`},
		{"cs", "čtvrt hodiny", "duration", `čtvrt hodiny="PT15M"`},
		{"cs", "tři čtvrtě hodiny", "duration", `tři čtvrtě hodiny="PT45M"`},
		{"cs", "dva a půl dne", "duration", `dva a půl dne="P2DT12H"`},
		{"en", "two and a half hours", "duration", `two and a half hours="PT2H30M"`},
		// ranges: each bound a duration
		{"cs", "trvá to 2–3 dny", "duration", `2="P2D"; 3 dny="P3D"`},
		{"cs", "dva až tři týdny", "duration", `dva="P2W"; tři týdny="P3W"`},
		{"en", "2 to 3 hours", "duration", `2="PT2H"; 3 hours="PT3H"`},
		{"en", "an hour and a half", "duration", `an hour and a half="PT1H30M"`},
		{"en", "a quarter of an hour", "duration", `a quarter of an hour="PT15M"`},
		{"en", "three quarters of an hour", "duration", `three quarters of an hour="PT45M"`},
		{"cs", "na dva týdny", "duration", `dva týdny="P2W"`},
		// email, url, phone
		{"cs", "pište na jan.novak@example.cz.", "email", `jan.novak@example.cz="jan.novak@example.cz"`},
		{"en", "see https://najdi.dev/docs?x=1.", "url", `https://najdi.dev/docs?x=1="https://najdi.dev/docs?x=1"`},
		{"cs", "web www.seznam.cz", "url", `www.seznam.cz="www.seznam.cz"`},
		{"cs", "volejte 603 123 456", "phone", `603 123 456="+420603123456"`},
		{"cs", "tel. +420 603 123 456", "phone", `+420 603 123 456="+420603123456"`},
		{"en", "call +44 20 7946 0958", "phone", `+44 20 7946 0958="+442079460958"`},
		{"en", "call (555) 123-4567", "phone", `(555) 123-4567="+15551234567"`},
		// names
		{"en", "John Smith works for Microsoft in Seattle.", "person", `John Smith="John Smith"`},
		{"en", "John Smith works for Microsoft in Seattle.", "organization", `Microsoft="Microsoft"`},
		{"en", "John Smith works for Microsoft in Seattle.", "location", `Seattle="Seattle"`},
		{"en", "Microsoft's chief met U.S. officials in London.", "organization", `Microsoft="Microsoft"`},
		{"en", "Microsoft's chief met U.S. officials in London.", "location", `U.S.="U.S."; London="London"`},
		// initials and hyphenated scores tokenized as in CoNLL-2003
		{"en", "Somerset 83 and 174 (P. Simmons 4-38), Leicestershire 296.", "person", `P. Simmons="P. Simmons"`},
		{"cs", "Petr Novák a Jana Dvořáková přijeli do Brna.", "person", `Petr Novák="Petr Novák"; Jana Dvořáková="Jana Dvořáková"`},
		{"cs", "Petr Novák a Jana Dvořáková přijeli do Brna.", "location", `Brna="Brna"`},
		{"cs", "Univerzita Karlova a Komerční banka sídlí v Praze.", "organization", `Univerzita Karlova="Univerzita Karlova"; Komerční banka="Komerční banka"`},
		{"cs", "Univerzita Karlova a Komerční banka sídlí v Praze.", "location", `Praze="Praze"`},
		{"cs", "Jednali jsme s ředitelem Tomkou a firmou Alfa Beta s.r.o.", "person", `Tomkou="Tomkou"`},
		{"cs", "Jednali jsme s ředitelem Tomkou a firmou Alfa Beta s.r.o.", "organization", `Alfa Beta s.r.o.="Alfa Beta s.r.o."`},
	}
	for _, tt := range tests {
		got := strings.Join(find(Extract(tt.text, tt.lang, ref), tt.class), "; ")
		if got != tt.want {
			t.Errorf("%s %q %s: got %q, want %q", tt.lang, tt.text, tt.class, got, tt.want)
		}
	}
}

func TestOffsetsAndNoOverlap(t *testing.T) {
	text := "Zítra ve 20 hodin zaplatím 500 Kč na účet, volejte 603 123 456 nebo pište na a@b.cz."
	ents := Extract(text, "cs", ref)
	runes := []rune(text)
	end := 0
	for _, e := range ents {
		if string(runes[e.Start:e.End]) != e.Text {
			t.Errorf("%+v: offsets give %q", e, string(runes[e.Start:e.End]))
		}
		if e.Start < end {
			t.Errorf("%+v overlaps the previous entity", e)
		}
		end = e.End
	}
	var classes []string
	for _, e := range ents {
		classes = append(classes, e.Class)
	}
	if got := strings.Join(classes, ","); got != "date,time,money,phone,email" {
		t.Errorf("classes = %s", got)
	}
}
