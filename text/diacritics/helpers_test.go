package diacritics

import (
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// cacSentences returns the sentences of UD Czech-CAC dev and test.
func cacSentences(t testing.TB) []string { return testutil.CzechSentences(t) }
