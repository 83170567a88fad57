package engine_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/internal/testutil"
)

// TestRecordsSemantic checks that records keep their semantic evidence
// when embedded as packed values (engine/records.go): the 249 rows × 56
// columns of country-codes.csv, searched by the vector side alone (keyword
// weight 0) with questions naming a country's capital or its currency,
// find the country in the top 5. Measured (2-core AMD EPYC): capital 0.983
// and currency 0.762 when every cell was embedded alone (commit c0a7f0e);
// 0.867 and 0.651 with one pack of up to 256 tokens per record; 0.967 and
// 0.746 with packs of 16 tokens and two short values alone (records.go).
// The floors sit below the last figures with a margin for other machines;
// a regression in what records embed fails them.
func TestRecordsSemantic(t *testing.T) {
	path := filepath.Join(testutil.SharedData(t), "docs", "country-codes.csv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(mustOpen(t, path)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	e, prov, dir := openModels(t)
	ctx := context.Background()
	if _, _, err := e.PutCollection(ctx, "", "countries", engine.CollectionConfig{}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Ingest(ctx, "", "countries", engine.IngestRequest{Format: "csv", Data: data, IDField: "ISO3166-1-Alpha-3"})
	if err != nil || len(res.Errors) > 0 || len(res.Documents) != 249 {
		t.Fatalf("ingest: %v, %d errors, %d documents", err, len(res.Errors), len(res.Documents))
	}
	e.Close()
	ed := openRanked(t, dir, prov, func(rk *engine.RankerConfig) { rk.KeywordWeight = 0 })
	for _, c := range []struct {
		name, column, question string
		floor                  float64
	}{
		{"capital", "Capital", "Which country has its capital in %s?", 0.9},
		{"currency", "ISO4217-currency_name", "Which country pays with the %s?", 0.68},
	} {
		found, asked := 0, 0
		for i, r := range rows[1:] {
			v, id := r[col[c.column]], r[col["ISO3166-1-Alpha-3"]]
			if i%4 != 0 || v == "" || id == "" {
				continue
			}
			asked++
			for _, got := range rank(t, ed, []string{"countries"}, sprintf(c.question, v), 5) {
				if got == id {
					found++
					break
				}
			}
		}
		rate := float64(found) / float64(asked)
		t.Logf("%s: dense recall@5 %.3f (%d of %d)", c.name, rate, found, asked)
		if rate < c.floor {
			t.Errorf("%s questions: dense recall@5 %.3f below the floor %.2f", c.name, rate, c.floor)
		}
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// TestRecordsWithoutMeaningfulValues ingests records that embed nothing
// (numbers, codes, dates): the segment has no chunks, and the records stay
// searchable by keyword, alone and next to records that embed.
func TestRecordsWithoutMeaningfulValues(t *testing.T) {
	prov := modelProvider(t)
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Embedders: prov})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, _, err := e.PutCollection(ctx, "", "n", engine.CollectionConfig{}); err != nil {
		t.Fatal(err)
	}
	for _, csvText := range []string{
		"id,code,amount,date\nr1,AB-12,42,2024-01-05\nr2,CD-34,43.5,2024-02-06\n",
		"id,code,name\nr3,EF-56,harbour bridge\n",
	} {
		res, err := e.Ingest(ctx, "", "n", engine.IngestRequest{Format: "csv", Data: []byte(csvText)})
		if err != nil || len(res.Errors) > 0 {
			t.Fatalf("ingest: %v %v", err, res.Errors)
		}
	}
	for q, want := range map[string]string{"AB-12": "r1", "43.5": "r2", "harbour bridge": "r3"} {
		got := rank(t, e, []string{"n"}, q, 3)
		if len(got) == 0 || got[0] != want {
			t.Errorf("query %q: %v, want %s first", q, got, want)
		}
	}
	if err := e.MergeNow("", "n"); err != nil {
		t.Fatal(err)
	}
	if got := rank(t, e, []string{"n"}, "AB-12", 3); len(got) == 0 || got[0] != "r1" {
		t.Errorf("after merge: %v, want r1 first", got)
	}
}
