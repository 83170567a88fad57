package nlu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/najdi/najdi/internal/outbound"
)

// microservice delegates to an annotation microservice:
// POST {url}/annotate {"text", "language", "model", "config", "annotations",
// "intents"} → {"intents": [...], "annotations": [...]}. The request also
// carries the annotations and intents produced so far by earlier members of
// a sequential pipeline.
//
// The URL was checked against the allow-list (Options.AllowOutbound) and
// the client dials through it. A failure of any kind — refused connection,
// error status, malformed or inconsistent answer — answers the same
// ErrUpstream message naming the endpoint, and a timeout after connecting
// ErrUpstreamTimeout: what the service answered, or whether a port is
// open, never reaches the client. The cause goes to the log.
type microservice struct {
	endpoint string // {url}/annotate
	model    string
	language string
	config   json.RawMessage
	client   *http.Client
	timeout  time.Duration
	log      *slog.Logger
}

type annotateRequest struct {
	Text        string          `json:"text"`
	Language    string          `json:"language,omitempty"`
	Model       string          `json:"model,omitempty"`
	Config      json.RawMessage `json:"config,omitempty"`
	Annotations []Annotation    `json:"annotations"`
	Intents     []Intent        `json:"intents"`
}

type annotateResponse struct {
	Intents     []Intent `json:"intents"`
	Annotations []struct {
		Name       string   `json:"name"`
		Type       string   `json:"type"`
		Confidence *float64 `json:"confidence"`
		Start      *int     `json:"start"`
		End        *int     `json:"end"`
		Text       string   `json:"text"`
		Value      any      `json:"value"`
	} `json:"annotations"`
}

const maxResponseBytes = 16 << 20

func (m *microservice) annotate(ctx context.Context, in *input) ([]Intent, []Annotation, error) {
	body, err := json.Marshal(annotateRequest{Text: in.text, Language: m.language, Model: m.model, Config: m.config, Annotations: nonNil(in.prior), Intents: nonNilIntents(in.priorIntent)})
	if err != nil {
		return nil, nil, fmt.Errorf("annotation service %s: encode request: %w", m.endpoint, err)
	}
	cctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	intents, anns, err := m.call(cctx, in, body)
	if err == nil {
		return intents, anns, nil
	}
	if ctx.Err() != nil {
		return nil, nil, fmt.Errorf("annotation service %s: %w", m.endpoint, ctx.Err())
	}
	var ce *outbound.CallError
	if !errors.As(err, &ce) {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrUpstream, m.endpoint, err)
	}
	m.log.Warn("annotation service call failed", "endpoint", m.endpoint, "detail", ce.Detail)
	if ce.Timeout {
		return nil, nil, fmt.Errorf("%w: %s did not answer within %v", ErrUpstreamTimeout, m.endpoint, m.timeout)
	}
	return nil, nil, fmt.Errorf("%w: %s gave no usable answer", ErrUpstream, m.endpoint)
}

// call makes the request; every failure is an *outbound.CallError.
func (m *microservice) call(ctx context.Context, in *input, body []byte) ([]Intent, []Annotation, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, outbound.Malformed("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := outbound.Do(m.client, req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, nil, outbound.ReadError(ctx, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, outbound.StatusError(resp, raw)
	}
	if len(raw) > maxResponseBytes {
		return nil, nil, outbound.Malformed("response larger than %d bytes", maxResponseBytes)
	}
	var ar annotateResponse
	if err := json.Unmarshal(raw, &ar); err != nil {
		return nil, nil, outbound.Malformed("malformed response: %v: %s", err, outbound.Summarize(raw))
	}
	runes := []rune(in.text)
	var anns []Annotation
	for i, a := range ar.Annotations {
		if a.Name == "" {
			return nil, nil, outbound.Malformed("annotations[%d] has no name", i)
		}
		out := Annotation{Name: a.Name, Type: a.Type, Confidence: 1, Text: a.Text, Value: a.Value}
		if out.Type == "" {
			out.Type = AnnotationEntity
		}
		if a.Confidence != nil {
			out.Confidence = *a.Confidence
		}
		switch {
		case a.Start != nil && a.End != nil:
			if *a.Start < 0 || *a.End < *a.Start || *a.End > len(runes) {
				return nil, nil, outbound.Malformed("annotations[%d] offsets [%d, %d) outside the text", i, *a.Start, *a.End)
			}
			out.Start, out.End = *a.Start, *a.End
			out.Text = string(runes[out.Start:out.End])
		default:
			out.End = len(runes)
			if out.Text == "" {
				out.Text = in.text
			}
		}
		if out.Type == AnnotationIntent {
			// Intents are reported through ar.Intents; the runner adds
			// their annotations.
			continue
		}
		anns = append(anns, out)
	}
	for i, it := range ar.Intents {
		if it.Intent == "" {
			return nil, nil, outbound.Malformed("intents[%d] has no intent name", i)
		}
	}
	return ar.Intents, anns, nil
}

func nonNil(a []Annotation) []Annotation {
	if a == nil {
		return []Annotation{}
	}
	return a
}

func nonNilIntents(a []Intent) []Intent {
	if a == nil {
		return []Intent{}
	}
	return a
}
