package cluster

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// mixedDocs are the documents of the mixed-language search: English ones
// for an `en` collection, Czech ones for a `cs` collection, some on the
// same topics, some sharing words across the languages (vitamin, Praha).
var mixedDocs = map[string][]string{
	"en": {
		"Vitamin D supplements and bone density in older women",
		"Coffee drinking in the evening shortens deep sleep",
		"Prague is the capital of the Czech Republic",
		"Regular running lowers resting heart rate",
		"Vitamin C does not prevent the common cold",
		"Hospital infections with antibiotic resistant bacteria",
		"Night shifts disturb sleep and raise blood pressure",
		"Bone fractures heal more slowly in smokers",
	},
	"cs": {
		"Vitamín D a hustota kostí u starších žen",
		"Pití kávy večer zkracuje hluboký spánek",
		"Praha je hlavní město České republiky",
		"Pravidelný běh snižuje klidovou tepovou frekvenci",
		"Vitamín C nechrání před nachlazením",
		"Nemocniční infekce bakteriemi odolnými vůči antibiotikům",
		"Noční směny narušují spánek a zvyšují krevní tlak",
		"Zlomeniny kostí se u kuřáků hojí pomaleji",
	},
}

// mixedQueries are English, Czech and mixed queries.
var mixedQueries = []string{
	"vitamin D bone density",
	"vitamín D a kosti",
	"coffee and sleep",
	"spánek a káva",
	"Praha Prague",
	"antibiotic resistance",
	"krevní tlak",
}

// mixedScenario creates an `en` and a `cs` collection on n, ingests
// mixedDocs and searches both collections in one request per query
// (keyword only and hybrid collections, with passages): the answers.
func mixedScenario(t *testing.T, n *najdi, model string) []step {
	var out []step
	for _, lang := range []string{"en", "cs"} {
		coll := "mixed-" + model + "-" + lang
		s, b := n.json(t, "PUT", "/v1/collections/"+coll, map[string]any{
			"search_config": map[string]any{"language": lang}, "embedding_config": map[string]any{"model": model}})
		if s != 201 {
			t.Fatalf("create %s: HTTP %d %v", coll, s, b)
		}
		var docs []map[string]any
		for i, text := range mixedDocs[lang] {
			docs = append(docs, map[string]any{"document_id": fmt.Sprintf("%s%d", lang, i), "sections": []map[string]string{{"type": "body", "content": text}}})
		}
		body, _ := json.Marshal(map[string]any{"documents": docs})
		if s, b := n.call(t, "POST", "/v1/collections/"+coll+"/documents", "application/json", body); s != 200 {
			t.Fatalf("ingest %s: HTTP %d %v", coll, s, b)
		}
	}
	yes := true
	path := fmt.Sprintf("/v1/collections/mixed-%s-en,mixed-%s-cs/search", model, model)
	for _, q := range mixedQueries {
		s, b := n.json(t, "POST", path, map[string]any{"query": q, "highlight": yes, "max_results": 10})
		if s != 200 {
			t.Fatalf("search %q: HTTP %d %v", q, s, b)
		}
		out = append(out, step{fmt.Sprintf("%s %q", model, q), s, normalize(b)})
	}
	return out
}

// TestServeMixedLanguages searches an English and a Czech collection in
// one request (the engine analyzes the query once per language and, on a
// cluster, sends one request per retriever and language group) through
// the real najdi serve on the embedded store and on each node: the same
// documents in the same order (near-tied ones may trade places), the same
// passages, scores within 0.02, as the differential suite compares them.
// Each query finds documents of both languages in at least one case.
func TestServeMixedLanguages(t *testing.T) {
	var embedded []step
	en := startNajdi(t, "")
	for _, model := range []string{"none", "default"} {
		embedded = append(embedded, mixedScenario(t, en, model)...)
	}
	both := 0
	for _, st := range embedded {
		langs := map[string]bool{}
		for _, d := range st.body.(map[string]any)["documents"].([]any) {
			langs[d.(map[string]any)["document_id"].(string)[:2]] = true
		}
		if langs["en"] && langs["cs"] {
			both++
		}
	}
	if both == 0 {
		t.Fatal("no mixed-language search found documents of both languages")
	}
	for _, f := range testFlavours() {
		t.Run(string(f), func(t *testing.T) {
			n := startNajdi(t, "", clusterArgs(t, f, uniquePrefix())...)
			var got []step
			for _, model := range []string{"none", "default"} {
				got = append(got, mixedScenario(t, n, model)...)
			}
			for i := range got {
				if d := diff("", embedded[i].body, got[i].body); d != "" {
					t.Errorf("%s: differs (embedded vs %s) at %s\nembedded: %s\n%s: %s", got[i].name, f, d, ids(embedded[i].body), f, ids(got[i].body))
				}
			}
			t.Logf("%s: %d mixed-language searches compared, %d of them with documents of both languages on the embedded store", f, len(got), both)
		})
	}
}

// ids lists a search answer's document ids and scores.
func ids(body any) string {
	var out []string
	for _, d := range body.(map[string]any)["documents"].([]any) {
		m := d.(map[string]any)
		out = append(out, fmt.Sprintf("%s:%v", m["document_id"], m["score"]))
	}
	return strings.Join(out, " ")
}
