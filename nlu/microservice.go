package nlu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// microservice delegates to an annotation microservice:
// POST {url}/annotate {"text", "language", "model", "config", "annotations",
// "intents"} → {"intents": [...], "annotations": [...]}. The request also
// carries the annotations and intents produced so far by earlier members of
// a sequential pipeline.
type microservice struct {
	url      string
	model    string
	language string
	config   json.RawMessage
	client   *http.Client
	timeout  time.Duration
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
	endpoint := m.url + "/annotate"
	body, err := json.Marshal(annotateRequest{Text: in.text, Language: m.language, Model: m.model, Config: m.config, Annotations: nonNil(in.prior), Intents: nonNilIntents(in.priorIntent)})
	if err != nil {
		return nil, nil, fmt.Errorf("annotation service %s: encode request: %w", endpoint, err)
	}
	cctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrUpstream, endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := m.client.Do(req)
	if err != nil {
		return nil, nil, m.callError(ctx, cctx, endpoint, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, nil, m.callError(ctx, cctx, endpoint, err)
	}
	if resp.StatusCode != http.StatusOK {
		snippet := raw
		if len(snippet) > 200 {
			snippet = snippet[:200]
		}
		return nil, nil, fmt.Errorf("%w: %s answered %d: %s", ErrUpstream, endpoint, resp.StatusCode, bytes.TrimSpace(snippet))
	}
	if len(raw) > maxResponseBytes {
		return nil, nil, fmt.Errorf("%w: %s: response larger than %d bytes", ErrUpstream, endpoint, maxResponseBytes)
	}
	var ar annotateResponse
	if err := json.Unmarshal(raw, &ar); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: malformed response: %v", ErrUpstream, endpoint, err)
	}
	runes := []rune(in.text)
	var anns []Annotation
	for i, a := range ar.Annotations {
		if a.Name == "" {
			return nil, nil, fmt.Errorf("%w: %s: annotations[%d] has no name", ErrUpstream, endpoint, i)
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
				return nil, nil, fmt.Errorf("%w: %s: annotations[%d] offsets [%d, %d) outside the text", ErrUpstream, endpoint, i, *a.Start, *a.End)
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
			return nil, nil, fmt.Errorf("%w: %s: intents[%d] has no intent name", ErrUpstream, endpoint, i)
		}
	}
	return ar.Intents, anns, nil
}

func (m *microservice) callError(parent, cctx context.Context, endpoint string, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("annotation service %s: %w", endpoint, parent.Err())
	}
	var ne net.Error
	if errors.Is(cctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("%w: %s did not answer within %v", ErrUpstreamTimeout, endpoint, m.timeout)
	}
	return fmt.Errorf("%w: %s: %v", ErrUpstream, endpoint, err)
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
