package peers

import (
	"path/filepath"
	"testing"

	"github.com/najdi/najdi/embed"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestStaticEmbeddings reads the real model's word embeddings: vectors are
// unit length, deterministic, and texts sharing vocabulary are closer than
// unrelated ones.
func TestStaticEmbeddings(t *testing.T) {
	models, _ := embed.CachePaths(embed.DefaultCacheDir())
	s, err := LoadStatic(filepath.Join(models, "bge-small-en-v1.5"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Dims() != 384 {
		t.Fatalf("dims %d, want 384", s.Dims())
	}
	a := s.Embed("Tumour cells grow in breast cancer patients.")
	b := s.Embed("breast cancer tumor growth")
	c := s.Embed("The railway timetable changes on Sunday.")
	if n := dot(a, a); n < 0.999 || n > 1.001 {
		t.Fatalf("|a|² = %f, want 1", n)
	}
	if ab, ac := dot(a, b), dot(a, c); ab <= ac {
		t.Fatalf("related texts cos %.3f <= unrelated %.3f", ab, ac)
	}
	if a2 := s.Embed("Tumour cells grow in breast cancer patients."); dot(a, a2) < 0.99999 {
		t.Fatal("not deterministic")
	}
	t.Logf("related %.3f unrelated %.3f", dot(a, b), dot(a, c))
}
