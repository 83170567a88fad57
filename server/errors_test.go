package server

import (
	"errors"
	"fmt"
	"testing"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/nlu"
	"github.com/najdi/najdi/summary"
)

// TestClassify checks the status of the errors engine, nlu and summary
// return, which share one vocabulary of kinds (internal/errs).
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
	}{
		{"engine invalid", &engine.Error{Kind: engine.ErrInvalid, Message: "max_results: bad", Details: map[string]any{"field": "max_results"}}, 400},
		{"nlu invalid", fmt.Errorf("%w: text is empty", nlu.ErrInvalid), 400},
		{"summary invalid", fmt.Errorf("tokenizer %q: %w", "x", summary.ErrInvalid), 400},
		{"nlu not found", fmt.Errorf("model %q: %w", "m", nlu.ErrNotFound), 404},
		{"engine not found", &engine.Error{Kind: engine.ErrNotFound, Message: "no"}, 404},
		{"nlu conflict", fmt.Errorf("%w: used by a pipeline", nlu.ErrConflict), 409},
		{"engine too large", &engine.Error{Kind: engine.ErrTooLarge, Message: "big"}, 413},
		{"engine unsupported", &engine.Error{Kind: engine.ErrUnsupportedMedia, Message: "zip"}, 415},
		{"engine busy", &engine.Error{Kind: engine.ErrBusy, Message: "queue full"}, 429},
		{"nlu upstream", fmt.Errorf("ner: %w", nlu.ErrUpstream), 502},
		{"summary upstream", fmt.Errorf("llm: %w", summary.ErrUpstream), 502},
		{"engine closed", engine.ErrClosed, 503},
		{"nlu upstream timeout", fmt.Errorf("ner: %w", nlu.ErrUpstreamTimeout), 504},
		{"summary upstream timeout", fmt.Errorf("llm: %w", summary.ErrUpstreamTimeout), 504},
		{"an engine error's kind wins over its cause's", &engine.Error{Kind: engine.ErrInvalid, Message: "x", Cause: summary.ErrUpstream}, 400},
		{"no kind", errors.New("disk full"), 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, details := classify(tc.err)
			if status != tc.status {
				t.Errorf("status = %d, want %d", status, tc.status)
			}
			var ee *engine.Error
			if errors.As(tc.err, &ee) && fmt.Sprint(details) != fmt.Sprint(ee.Details) {
				t.Errorf("details = %v, want %v", details, ee.Details)
			}
		})
	}
}
