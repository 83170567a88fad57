package rerank

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/najdi/najdi/embed"
)

func TestWindows(t *testing.T) {
	many := strings.Repeat("Věta o ničem. ", 40)
	for _, tc := range []struct {
		name string
		text string
		span int
		want []string
	}{
		{"empty", "", 2, nil},
		{"one sentence", "Praha je hlavní město.", 2, []string{"Praha je hlavní město."}},
		{"sentences alone", "První věta. Druhá věta! Třetí?", 1, []string{"První věta.", "Druhá věta!", "Třetí?"}},
		{"sentences and pairs", "První věta. Druhá věta. Třetí věta.", 2,
			[]string{"První věta.", "První věta. Druhá věta.", "Druhá věta.", "Druhá věta. Třetí věta.", "Třetí věta."}},
		{"a line break ends a sentence", "Titulek\nText pod ním.", 1, []string{"Titulek", "Text pod ním."}},
		{"span 0 is 1", "Ahoj světe. Nazdar lidi.", 0, []string{"Ahoj světe.", "Nazdar lidi."}},
		{"bounded", many, 2, nil}, // checked below: MaxWindows
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Windows(tc.text, tc.span)
			if tc.name == "bounded" {
				if len(got) != MaxWindows {
					t.Fatalf("%d windows, want MaxWindows %d", len(got), MaxWindows)
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Windows(%q, %d) = %q, want %q", tc.text, tc.span, got, tc.want)
			}
		})
	}
}

func TestSimilarityScore(t *testing.T) {
	for _, tc := range []struct{ cos, want float64 }{
		{-1, 0}, {SimilarityFloor, 0}, {SimilarityCeiling, 1}, {1, 1},
		{(SimilarityFloor + SimilarityCeiling) / 2, 0.5},
	} {
		if got := SimilarityScore(tc.cos); fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", tc.want) {
			t.Errorf("SimilarityScore(%v) = %v, want %v", tc.cos, got, tc.want)
		}
	}
}

// TestSimilarityE5 scores Czech and English passages against a Czech
// question with the installed multilingual-e5-small: the passage whose one
// sentence answers it scores above passages that share only its topic,
// also when the answer is buried among unrelated sentences; an English
// answer scores above an unrelated Czech passage; scores are in 0..1 and do not depend on the other passages.
func TestSimilarityE5(t *testing.T) {
	cache := embed.DefaultCacheDir()
	models, lib := embed.CachePaths(cache)
	emb, err := embed.LoadLocal(filepath.Join(models, "multilingual-e5-small"), embed.LocalOptions{LibraryPath: lib})
	if err != nil {
		t.Fatalf("load multilingual-e5-small (run make models): %v", err)
	}
	t.Cleanup(func() { emb.Close() })
	s := &Similarity{Emb: emb}
	q := "Které město je hlavním městem České republiky?"
	passages := []string{
		"Brno je druhé největší město v Česku. Sídlí zde Ústavní soud. Město je známé veletrhy.",
		"Vltava je nejdelší česká řeka. Pramení na Šumavě. Hlavním městem České republiky je Praha. Do Labe se vlévá u Mělníka.",
		"Ostrava leží na severovýchodě země a je známá těžbou uhlí.",
		"Prague is the capital and largest city of the Czech Republic.",
		"",
	}
	ctx := context.Background()
	got, err := s.Score(ctx, q, passages)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scores %v", got)
	for i, v := range got {
		if v < 0 || v > 1 {
			t.Fatalf("score %d = %v, want 0..1", i, v)
		}
	}
	if got[1] <= got[0] || got[1] <= got[2] {
		t.Errorf("the buried answer scores %.3f, not above the other Czech cities %.3f and %.3f", got[1], got[0], got[2])
	}
	// Across languages the similarity is weaker (measured: the English
	// answer 0.547, Brno 0.607): it only beats the unrelated passage.
	if got[3] <= got[2] {
		t.Errorf("the English answer scores %.3f, not above the unrelated passage %.3f", got[3], got[2])
	}
	if got[4] != 0 {
		t.Errorf("an empty passage scores %v, want 0", got[4])
	}
	alone, err := s.Score(ctx, q, passages[1:2])
	if err != nil {
		t.Fatal(err)
	}
	if d := alone[0] - got[1]; d > 1e-6 || d < -1e-6 {
		t.Errorf("a passage scored alone %.6f, among others %.6f: scores must not depend on the other passages", alone[0], got[1])
	}
}
