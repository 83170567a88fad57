package nlu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestIntentExampleLimits: a classifier with more than MaxIntentExamples
// examples, or an utterance longer than MaxIntentExampleChars, is a 400
// answered at once, without training.
func TestIntentExampleLimits(t *testing.T) {
	s, _ := newTestService(t, Options{})
	body := func(examples map[string][]string) []byte {
		cfg, _ := json.Marshal(map[string]any{"examples": examples})
		return []byte(`{"name": "big", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": ` + string(cfg) + `}}`)
	}
	many := map[string][]string{}
	for i := 0; i <= MaxIntentExamples; i++ {
		k := fmt.Sprintf("intent%d", i%7)
		many[k] = append(many[k], fmt.Sprintf("please book ticket number %d to city %d", i, i*7))
	}
	start := time.Now()
	_, err := s.CreateModel(context.Background(), "alice", body(many))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprint(MaxIntentExamples)) {
		t.Errorf("%d examples: %v, want ErrInvalid naming the limit", MaxIntentExamples+1, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusing took %v", d)
	}
	long := map[string][]string{"a": {"short"}, "b": {strings.Repeat("ž", MaxIntentExampleChars+1)}}
	if _, err := s.CreateModel(context.Background(), "alice", body(long)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "examples.b[0]") {
		t.Errorf("an utterance of %d characters: %v, want ErrInvalid naming it", MaxIntentExampleChars+1, err)
	}
}
