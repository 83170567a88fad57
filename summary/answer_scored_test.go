package summary_test

import (
	"context"
	"strings"
	"testing"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/rerank"
	"github.com/najdi/najdi/summary"
)

// countryRecord is a record as the engine hands it to summaries: one
// section per field, the field name as the section type.
func countryRecord(id string, fields ...string) summary.Doc {
	d := summary.Doc{ID: id}
	for i := 0; i+1 < len(fields); i += 2 {
		d.Sections = append(d.Sections, summary.Section{Type: fields[i], Content: fields[i+1]})
	}
	return d
}

// TestExtractiveScored picks answer sentences with the real cross-encoder:
// a record field's value is found by what the question asks for (its
// field name) about whom (the anchor field), though it shares no term
// with the question; without a scorer the answer is Extractive's; a
// question sharing no term gets NoAnswer.
func TestExtractiveScored(t *testing.T) {
	docs := []summary.Doc{
		countryRecord("cz", "name.common", "Czechia", "cca2", "CZ", "tld", ".cz", "capital", "Prague", "currencies.CZK.name", "Czech koruna", "region", "Europe"),
		countryRecord("sk", "name.common", "Slovakia", "cca2", "SK", "tld", ".sk", "capital", "Bratislava", "currencies.EUR.name", "Euro", "region", "Europe"),
	}
	cfg := summary.Config{}
	ctx := context.Background()
	for _, q := range []string{"What is the capital of the country with code CZ?", "zzz qqq"} {
		res, err := summary.Summarize(q, docs, cfg, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := summary.ExtractiveScored(ctx, q, res, docs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := summary.Extractive(q, res, docs); got.Answer != want.Answer {
			t.Errorf("%q without a scorer: %q, want Extractive's %q", q, got.Answer, want.Answer)
		}
	}

	_, lib := embed.CachePaths(embed.DefaultCacheDir())
	ce, err := rerank.Load(rerank.DefaultDir(embed.DefaultCacheDir()), rerank.Options{LibraryPath: lib})
	if err != nil {
		t.Fatalf("%v (run make models)", err)
	}
	t.Cleanup(func() { ce.Close() })
	for _, tc := range []struct{ q, want, source string }{
		{"What is the capital of the country with code CZ?", "capital: Prague", "cz"},
		{"Which currency is used in Czechia?", "Czech koruna", "cz"},
		{"What is the capital of Slovakia?", "capital: Bratislava", "sk"},
		{"zzz qqq", summary.NoAnswer, ""},
	} {
		res, err := summary.Summarize(tc.q, docs, cfg, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := summary.ExtractiveScored(ctx, tc.q, res, docs, ce)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got.Answer, tc.want) || (tc.source != "" && (len(got.Sources) == 0 || got.Sources[0].DocumentID != tc.source)) {
			t.Errorf("%q: %q (sources %v), want one holding %q from %q", tc.q, got.Answer, got.Sources, tc.want, tc.source)
		}
	}
}
