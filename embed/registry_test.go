package embed

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestRegistry(t *testing.T) {
	modelDir(t, DefaultModel)
	models, lib := CachePaths(cacheDir(t))
	r := NewRegistry(models, lib)
	if got := r.Installed(); !slices.Contains(got, DefaultModel) {
		t.Fatalf("Installed() = %v, want %s among them", got, DefaultModel)
	}
	a, err := r.Get("default")
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Get(DefaultModel)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a.Name() != DefaultModel || a.Dims() != 384 || a.MaxTokens() != 512 {
		t.Errorf("default: %v %s dims %d max %d; shared %v", a, a.Name(), a.Dims(), a.MaxTokens(), a == b)
	}
	for _, name := range []string{"no-such-model", "../models", "none"} {
		if _, err := r.Get(name); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("Get(%q) err %v, want ErrUnknownModel", name, err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.EmbedQueries(context.Background(), []string{"x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: err %v, want ErrClosed", err)
	}
}
