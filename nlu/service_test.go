package nlu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/najdi/najdi/nlu/intent"
)

func newTestService(t *testing.T, opts Options) (*Service, *MemStore) {
	t.Helper()
	st := &MemStore{}
	s, err := NewService(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

func mustCreate(t *testing.T, s *Service, owner, body string) Model {
	t.Helper()
	m, err := s.CreateModel(context.Background(), owner, []byte(body))
	if err != nil {
		t.Fatalf("CreateModel(%s): %v", body, err)
	}
	return m
}

func mustSet(t *testing.T, s *Service, owner, body string) PhraseSet {
	t.Helper()
	ps, err := s.CreatePhraseSet(context.Background(), owner, []byte(body))
	if err != nil {
		t.Fatalf("CreatePhraseSet: %v", err)
	}
	return ps
}

const regexBody = `{"name": "digits", "description": "numbers", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"num": "[0-9]+"}}}}`

func TestCreateAssignsIDAndOwner(t *testing.T) {
	s, _ := newTestService(t, Options{})
	m := mustCreate(t, s, "alice", regexBody)
	if m.ModelID == "" || m.Owner != "alice" || m.Name != "digits" || m.Type != TypeAnnotator {
		t.Fatalf("created %+v", m)
	}
	got, err := s.GetModel(context.Background(), "alice", m.ModelID)
	if err != nil || got.ModelID != m.ModelID || got.Description != "numbers" {
		t.Fatalf("GetModel = %+v, %v", got, err)
	}
	raw, _ := json.Marshal(got)
	for _, want := range []string{`"model_id":`, `"owner":"alice"`, `"annotator":{"service":"builtin","model":"regex"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("JSON %s lacks %s", raw, want)
		}
	}
}

func TestValidation(t *testing.T) {
	s, _ := newTestService(t, Options{})
	ps := mustSet(t, s, "alice", `{"name": "city", "language": "cs", "phrases": [{"text": "Praha"}]}`)
	tests := []struct {
		name, body, field string
	}{
		{"model_id sent", `{"model_id": "x", "name": "a", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"a": "a"}}}}`, "model_id"},
		{"owner sent", `{"owner": "bob", "name": "a", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"a": "a"}}}}`, "owner"},
		{"unknown field", `{"name": "a", "typo": 1, "type": "annotator"}`, `"typo"`},
		{"unknown type", `{"name": "a", "type": "classifier"}`, "type"},
		{"missing type", `{"name": "a"}`, "type"},
		{"missing name", `{"type": "pipeline", "mode": "parallel", "pipeline": {"models": ["x"]}}`, "name"},
		{"mode missing", `{"name": "p", "type": "pipeline", "pipeline": {"models": [{"name": "builtin-ner", "language": "en"}]}}`, "mode"},
		{"mode invalid", `{"name": "p", "type": "pipeline", "mode": "random", "pipeline": {"models": [{"name": "builtin-ner", "language": "en"}]}}`, "mode"},
		{"member missing", `{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": ["nope"]}}`, "pipeline.models[0]"},
		{"no members", `{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": []}}`, "pipeline.models"},
		{"closed-ner without sets", `{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [{"name": "closed-ner"}]}}`, "phrase_set_ids"},
		{"closed-ner unknown set", `{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [{"name": "closed-ner", "phrase_set_ids": ["nope"]}]}}`, "phrase_set_ids[0]"},
		{"builtin-ner language", `{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [{"name": "builtin-ner", "language": "de"}]}}`, "language"},
		{"unknown builtin", `{"name": "a", "type": "annotator", "annotator": {"service": "builtin", "model": "magic"}}`, "annotator.model"},
		{"bad service", `{"name": "a", "type": "annotator", "annotator": {"service": "ftp://x"}}`, "annotator.service"},
		{"bad regex", `{"name": "a", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"x": "("}}}}`, "annotator.config.patterns.x"},
		{"intent no examples", `{"name": "a", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": {"examples": {}}}}`, "annotator.config.examples"},
		{"intent bad threshold", `{"name": "a", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": {"examples": {"a": ["x"]}, "threshold": 2}}}`, "annotator.config.threshold"},
		{"inline other model", `{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [{"name": "regex"}]}}`, "pipeline.models[0].name"},
		{"malformed", `{"name": `, "JSON"},
		{"mode on annotator", `{"name": "a", "type": "annotator", "mode": "parallel", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"a": "a"}}}}`, "mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.CreateModel(context.Background(), "alice", []byte(tt.body))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Errorf("err %q does not name %q", err, tt.field)
			}
		})
	}
	if ms, _ := s.ListModels(context.Background(), "alice"); len(ms) != 0 {
		t.Errorf("failed creates left %d models", len(ms))
	}
	_ = ps
}

func TestUpdateIsFullReplacement(t *testing.T) {
	s, _ := newTestService(t, Options{})
	m := mustCreate(t, s, "alice", regexBody)
	up, err := s.UpdateModel(context.Background(), "alice", m.ModelID, []byte(`{"name": "digits2", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"word": "[a-z]+"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if up.Description != "" || up.Name != "digits2" || up.ModelID != m.ModelID {
		t.Errorf("updated = %+v, want description gone and same id", up)
	}
	a, err := s.Analyze(context.Background(), "alice", m.ModelID, "abc 123")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Annotations) != 1 || a.Annotations[0].Name != "word" {
		t.Errorf("after update annotations = %+v, want only the new pattern", a.Annotations)
	}
	if _, err := s.UpdateModel(context.Background(), "alice", "nope", []byte(regexBody)); !errors.Is(err, ErrNotFound) {
		t.Errorf("update missing = %v, want ErrNotFound", err)
	}
	if _, err := s.UpdateModel(context.Background(), "alice", m.ModelID, []byte(`{"model_id": "other", "name": "x", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"a": "a"}}}}`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("update with other model_id = %v, want ErrInvalid", err)
	}
}

func TestDeleteAndConflicts(t *testing.T) {
	s, _ := newTestService(t, Options{})
	ctx := context.Background()
	r := mustCreate(t, s, "alice", regexBody)
	p := mustCreate(t, s, "alice", fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [%q]}}`, r.ModelID))
	err := s.DeleteModel(ctx, "alice", r.ModelID)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), p.ModelID) {
		t.Fatalf("delete used model = %v, want ErrConflict naming %s", err, p.ModelID)
	}
	// A cycle through an update.
	p2 := mustCreate(t, s, "alice", fmt.Sprintf(`{"name": "p2", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [%q]}}`, p.ModelID))
	_, err = s.UpdateModel(ctx, "alice", p.ModelID, []byte(fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [%q]}}`, p2.ModelID)))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("cycle = %v, want ErrInvalid naming a cycle", err)
	}
	_, err = s.UpdateModel(ctx, "alice", p.ModelID, []byte(fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [%q]}}`, p.ModelID)))
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("self member = %v, want ErrInvalid", err)
	}
	for _, id := range []string{p2.ModelID, p.ModelID, r.ModelID} {
		if err := s.DeleteModel(ctx, "alice", id); err != nil {
			t.Fatalf("delete %s: %v", id, err)
		}
	}
	if _, err := s.GetModel(ctx, "alice", r.ModelID); !errors.Is(err, ErrNotFound) {
		t.Errorf("get deleted = %v", err)
	}
	if err := s.DeleteModel(ctx, "alice", r.ModelID); !errors.Is(err, ErrNotFound) {
		t.Errorf("delete twice = %v", err)
	}
}

func TestOwnerIsolation(t *testing.T) {
	s, _ := newTestService(t, Options{})
	ctx := context.Background()
	m := mustCreate(t, s, "alice", regexBody)
	ps := mustSet(t, s, "alice", `{"name": "city", "phrases": [{"text": "Praha"}]}`)
	if _, err := s.GetModel(ctx, "bob", m.ModelID); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob get = %v", err)
	}
	if _, err := s.Analyze(ctx, "bob", m.ModelID, "1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob analyze = %v", err)
	}
	if err := s.DeleteModel(ctx, "bob", m.ModelID); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob delete = %v", err)
	}
	if _, err := s.UpdateModel(ctx, "bob", m.ModelID, []byte(regexBody)); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob update = %v", err)
	}
	if ms, _ := s.ListModels(ctx, "bob"); len(ms) != 0 {
		t.Errorf("bob sees %d models", len(ms))
	}
	if _, err := s.GetPhraseSet(ctx, "bob", ps.PhraseSetID); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob get set = %v", err)
	}
	_, err := s.CreateModel(ctx, "bob", []byte(fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [%q]}}`, m.ModelID)))
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("bob pipeline over alice's model = %v, want ErrInvalid", err)
	}
	_, err = s.CreateModel(ctx, "bob", []byte(fmt.Sprintf(`{"name": "closed-ner", "phrase_set_ids": [%q]}`, ps.PhraseSetID)))
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("bob closed-ner over alice's set = %v, want ErrInvalid", err)
	}
}

func TestInlineMembersAndPhraseSets(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC)
	s, st := newTestService(t, Options{Now: func() time.Time { return now }})
	city := mustSet(t, s, "alice", `{"name": "city", "language": "cs", "phrases": [{"text": "Praha", "value": "Prague", "synonyms": ["hlavní město"]}, {"text": "Karlín"}]}`)
	p := mustCreate(t, s, "alice", fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [{"name": "builtin-ner", "language": "cs"}, {"name": "closed-ner", "phrase_set_ids": [%q]}]}}`, city.PhraseSetID))
	if len(p.Pipeline.Models) != 2 {
		t.Fatalf("pipeline members = %v", p.Pipeline.Models)
	}
	ner, err := s.GetModel(ctx, "alice", p.Pipeline.Models[0])
	if err != nil || ner.Name != ModelBuiltinNER || ner.Language != "cs" {
		t.Fatalf("inline builtin-ner = %+v, %v", ner, err)
	}
	closed, err := s.GetModel(ctx, "alice", p.Pipeline.Models[1])
	if err != nil || closed.Name != ModelClosedNER || len(closed.PhraseSetIDs) != 1 {
		t.Fatalf("inline closed-ner = %+v, %v", closed, err)
	}
	text := "Sejdeme se v Praze, pak s Karlínem."
	a, err := s.Analyze(ctx, "alice", p.ModelID, text)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	runes := []rune(text)
	for _, an := range a.Annotations {
		if string(runes[an.Start:an.End]) != an.Text {
			t.Errorf("annotation %+v: offsets do not match text", an)
		}
		if an.Name == "city" {
			if an.SourceID != closed.ModelID || an.Source != closed.Name || an.Type != AnnotationEntity {
				t.Errorf("city annotation %+v: want source %s (id %s), type entity", an, closed.Name, closed.ModelID)
			}
			found = append(found, fmt.Sprintf("%s=%v", an.Text, an.Value))
		}
	}
	if got := strings.Join(found, ","); got != "Praze=Prague,Karlínem=Karlín" {
		t.Errorf("closed-ner found %q", got)
	}
	// Deleting a set in use is a conflict; the model stays usable.
	if err := s.DeletePhraseSet(ctx, "alice", city.PhraseSetID); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), closed.ModelID) {
		t.Errorf("delete set in use = %v", err)
	}
	// Updating the set changes matching.
	if _, err := s.UpdatePhraseSet(ctx, "alice", city.PhraseSetID, []byte(`{"name": "town", "language": "cs", "phrases": [{"text": "Brno"}]}`)); err != nil {
		t.Fatal(err)
	}
	a, _ = s.Analyze(ctx, "alice", p.ModelID, "v Praze a v Brně")
	var names []string
	for _, an := range a.Annotations {
		if an.SourceID == closed.ModelID {
			names = append(names, an.Name+":"+an.Text)
		}
	}
	if strings.Join(names, ",") != "town:Brně" {
		t.Errorf("after set update: %v", names)
	}
	// A restarted service over the same store answers the same.
	s2, err := NewService(st, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	a2, err := s2.Analyze(ctx, "alice", p.ModelID, "v Praze a v Brně")
	if err != nil {
		t.Fatal(err)
	}
	j1, _ := json.Marshal(a)
	j2, _ := json.Marshal(a2)
	if string(j1) != string(j2) {
		t.Errorf("after restart:\n%s\nbefore:\n%s", j2, j1)
	}
	// Deleting the pipeline deletes its inline members, then the set can go.
	if err := s.DeleteModel(ctx, "alice", p.ModelID); err != nil {
		t.Fatal(err)
	}
	if ms, _ := s.ListModels(ctx, "alice"); len(ms) != 0 {
		t.Errorf("inline members left: %+v", ms)
	}
	if err := s.DeletePhraseSet(ctx, "alice", city.PhraseSetID); err != nil {
		t.Errorf("delete unused set = %v", err)
	}
}

func TestPhraseSetValidation(t *testing.T) {
	s, _ := newTestService(t, Options{})
	tests := []struct{ body, field string }{
		{`{"phrases": [{"text": "a"}]}`, "name"},
		{`{"name": "x", "phrases": []}`, "phrases"},
		{`{"name": "x", "phrases": [{"text": ""}]}`, "phrases[0].text"},
		{`{"name": "x", "language": "de", "phrases": [{"text": "a"}]}`, "language"},
		{`{"name": "x", "phrase_set_id": "p", "phrases": [{"text": "a"}]}`, "phrase_set_id"},
		{`{"name": "x", "phrases": [{"text": "a", "syn": []}]}`, `unknown field "phrases[0].syn"`},
		{`{"name": "x", "phrases": [{"text": "a", "synonyms": [null]}]}`, "phrases[0].synonyms[0]"},
		{`{"name": "x", "phrases": [{"text": "a"}, {"text": "b", "synonyms": ["c", " "]}]}`, "phrases[1].synonyms[1]"},
	}
	for _, tt := range tests {
		_, err := s.CreatePhraseSet(context.Background(), "alice", []byte(tt.body))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("CreatePhraseSet(%s) = %v, want ErrInvalid naming %s", tt.body, err, tt.field)
		}
	}
}

// echoService is a real annotation microservice: it tags capitalized words
// as "cap" and reports, as an annotation named "seen", how many annotations
// the request carried.
func echoService(t *testing.T, hook func(r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/annotate" || r.Method != http.MethodPost {
			http.Error(w, "not found", 404)
			return
		}
		var req annotateRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if hook != nil {
			hook(r)
		}
		type ann struct {
			Name  string `json:"name"`
			Start int    `json:"start"`
			End   int    `json:"end"`
			Value any    `json:"value"`
		}
		var out []ann
		pos := 0
		for _, w := range strings.Split(req.Text, " ") {
			n := utf8.RuneCountInString(w)
			if n > 0 && strings.ToUpper(w[:1]) == w[:1] && strings.ToLower(w[:1]) != w[:1] {
				out = append(out, ann{Name: "cap", Start: pos, End: pos + n})
			}
			pos += n + 1
		}
		out = append(out, ann{Name: "seen", Start: 0, End: 0, Value: len(req.Annotations)})
		json.NewEncoder(w).Encode(map[string]any{"intents": []Intent{{Intent: "greet", Confidence: 0.8}}, "annotations": out})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func microBody(name, url string) string {
	return fmt.Sprintf(`{"name": %q, "type": "annotator", "annotator": {"service": %q, "model": "caps", "config": {"x": 1}}}`, name, url)
}

// local allows the test microservices, which run on loopback.
var local = []string{"127.0.0.1"}

func TestSequentialMembersSeeEarlierAnnotations(t *testing.T) {
	s, _ := newTestService(t, Options{AllowOutbound: local})
	srv := echoService(t, nil)
	a1 := mustCreate(t, s, "alice", microBody("m1", srv.URL))
	a2 := mustCreate(t, s, "alice", microBody("m2", srv.URL))
	p := mustCreate(t, s, "alice", fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [%q, %q]}}`, a1.ModelID, a2.ModelID))
	a, err := s.Analyze(context.Background(), "alice", p.ModelID, "Ahoj Karle")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]any{}
	for _, an := range a.Annotations {
		if an.Name == "seen" {
			seen[an.SourceID] = an.Value
		}
	}
	// m1 saw nothing; m2 saw m1's two caps, its seen and its intent annotation.
	if fmt.Sprint(seen[a1.ModelID]) != "0" || fmt.Sprint(seen[a2.ModelID]) != "4" {
		t.Errorf("seen = %v, want m1 0, m2 4", seen)
	}
	if len(a.Intents) != 2 || a.Intents[0].Intent != "greet" {
		t.Errorf("intents = %+v, want greet from both members", a.Intents)
	}
	// Parallel members see only the text.
	par := mustCreate(t, s, "alice", fmt.Sprintf(`{"name": "par", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [%q, %q]}}`, a1.ModelID, a2.ModelID))
	a, err = s.Analyze(context.Background(), "alice", par.ModelID, "Ahoj Karle")
	if err != nil {
		t.Fatal(err)
	}
	for _, an := range a.Annotations {
		if an.Name == "seen" && fmt.Sprint(an.Value) != "0" {
			t.Errorf("parallel member %s saw %v annotations", an.Source, an.Value)
		}
	}
}

func TestParallelIsConcurrent(t *testing.T) {
	s, _ := newTestService(t, Options{AllowOutbound: local})
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	srv := echoService(t, func(*http.Request) {
		mu.Lock()
		arrived++
		if arrived == 2 {
			close(both)
		}
		mu.Unlock()
		select { // each request waits for the other one
		case <-both:
		case <-time.After(3 * time.Second):
		}
	})
	a1 := mustCreate(t, s, "alice", microBody("m1", srv.URL))
	a2 := mustCreate(t, s, "alice", microBody("m2", srv.URL))
	p := mustCreate(t, s, "alice", fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [%q, %q]}}`, a1.ModelID, a2.ModelID))
	if _, err := s.Analyze(context.Background(), "alice", p.ModelID, "Ahoj"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-both:
	default:
		t.Fatal("the two members never ran at the same time")
	}
}

func TestMicroserviceErrors(t *testing.T) {
	s, _ := newTestService(t, Options{MicroserviceTimeout: 200 * time.Millisecond, AllowOutbound: local})
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "model crashed", 500)
	}))
	defer failing.Close()
	stop := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	defer close(stop)
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"annotations": [{"name": "x", "start": 5, "end": 99}]}`))
	}))
	defer garbage.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<html>model crashed</html>`))
	}))
	defer html.Close()
	tests := []struct {
		name string
		url  string
		want error
	}{
		{"500", failing.URL, ErrUpstream},
		{"timeout", slow.URL, ErrUpstreamTimeout},
		{"bad offsets", garbage.URL, ErrUpstream},
		{"not json", html.URL, ErrUpstream},
		{"refused", "http://127.0.0.1:1", ErrUpstream},
	}
	msgs := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustCreate(t, s, "alice", microBody(tt.name, tt.url))
			// Without the timeout the slow service answers an empty 200
			// after 5s, which is not ErrUpstreamTimeout.
			_, err := s.Analyze(context.Background(), "alice", m.ModelID, "Ahoj")
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.url) {
				t.Errorf("err = %v, want %v naming %s", err, tt.want, tt.url)
			}
			if err != nil && (strings.Contains(err.Error(), "crashed") || strings.Contains(err.Error(), "offsets")) {
				t.Errorf("err = %v echoes the service's answer", err)
			}
			if tt.want == ErrUpstream && err != nil {
				msgs[strings.ReplaceAll(err.Error(), tt.url, "URL")] = true
			}
		})
	}
	// Every failure but a timeout reads the same, so a client cannot tell
	// a closed port from a service that answered.
	if len(msgs) != 1 {
		t.Errorf("the failures answer %d different messages: %v", len(msgs), msgs)
	}
}

// TestMicroserviceAllowList: a microservice URL must be on the allow-list
// (none by default), plain (no query, fragment or user information) and,
// when a wildcard admits it, public; a stored model that is no longer
// allowed answers analysis with the reason.
func TestMicroserviceAllowList(t *testing.T) {
	srv := echoService(t, nil)
	s, _ := newTestService(t, Options{})
	_, err := s.CreateModel(context.Background(), "alice", []byte(microBody("m", srv.URL)))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "--allow-outbound") {
		t.Fatalf("no allow-list: err %v, want ErrInvalid naming --allow-outbound", err)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	s, st := newTestService(t, Options{AllowOutbound: []string{"127.0.0.1:" + port, "*"}})
	for _, u := range []string{
		srv.URL + "/x?y=", srv.URL + "/x#", "http://u:p@127.0.0.1:" + port, "http://2130706433:" + port, "http://0x7f000001:" + port,
		"http://127.0.0.1:1", "http://[::1]:" + port, "http://[::ffff:127.0.0.1]:" + port, "http://169.254.169.254", "http://10.0.0.1", "http://192.168.1.1",
	} {
		if _, err := s.CreateModel(context.Background(), "alice", []byte(microBody("m", u))); !errors.Is(err, ErrInvalid) {
			t.Errorf("CreateModel(%s): err %v, want ErrInvalid", u, err)
		}
	}
	m := mustCreate(t, s, "alice", microBody("m", srv.URL+"/"))
	if m.Annotator.Service != srv.URL+"/" {
		t.Errorf("service stored as %q", m.Annotator.Service)
	}
	if _, err := s.Analyze(context.Background(), "alice", m.ModelID, "Ahoj Karle"); err != nil {
		t.Fatal(err)
	}
	// localhost passes the wildcard as a name and is refused at its
	// loopback address.
	lm := mustCreate(t, s, "alice", microBody("l", "http://localhost:"+port))
	if _, err := s.Analyze(context.Background(), "alice", lm.ModelID, "Ahoj"); !errors.Is(err, ErrUpstream) {
		t.Errorf("localhost through a wildcard: err %v, want ErrUpstream", err)
	}
	// Reopened without the allow-list, the stored model is kept and says why it cannot run.
	s2, err := NewService(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Analyze(context.Background(), "alice", m.ModelID, "Ahoj"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "--allow-outbound") {
		t.Errorf("reopened without the allow-list: err %v", err)
	}
	if _, err := NewService(st, Options{AllowOutbound: []string{"http://x"}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad allow-list: err %v", err)
	}
}

func TestIntentClassifierModel(t *testing.T) {
	s, _ := newTestService(t, Options{})
	body := `{"name": "bot", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": {"threshold": 0.6, "examples": {
		"weather": ["what is the weather today", "will it rain tomorrow", "is it going to be sunny", "weather forecast for Prague", "how cold is it outside", "do I need an umbrella"],
		"music": ["play some jazz", "play the latest album of Adele", "put on some music", "I want to hear rock songs", "play my playlist", "start the song Yesterday"],
		"booking": ["book a table for two", "reserve a restaurant for tonight", "I need a table at 8 pm", "make a dinner reservation", "book a place for four people", "reserve a table at an Italian restaurant"]}}}}`
	m := mustCreate(t, s, "alice", body)
	tests := []struct{ text, want string }{
		{"will it be rainy in Brno tomorrow", "weather"},
		{"play something by Queen", "music"},
		{"reserve a table for six", "booking"},
		{"xylophone quantum zebra", OutOfScope},
	}
	for _, tt := range tests {
		a, err := s.Analyze(context.Background(), "alice", m.ModelID, tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Intents) == 0 || a.Intents[0].Intent != tt.want {
			t.Errorf("%q: intents %+v, want %s first", tt.text, a.Intents, tt.want)
			continue
		}
		n := 0
		for _, an := range a.Annotations {
			if an.Type == AnnotationIntent {
				n++
				if an.SourceID != m.ModelID || an.Source != m.Name || an.Start != 0 || an.End != utf8.RuneCountInString(tt.text) {
					t.Errorf("intent annotation %+v", an)
				}
			}
		}
		if n != len(a.Intents) {
			t.Errorf("%d intent annotations for %d intents", n, len(a.Intents))
		}
		for i := 1; i < len(a.Intents); i++ {
			if a.Intents[i].Confidence > a.Intents[i-1].Confidence {
				t.Errorf("intents not sorted: %+v", a.Intents)
			}
		}
	}
}

func TestRegexOffsetsAreCodePoints(t *testing.T) {
	s, _ := newTestService(t, Options{})
	m := mustCreate(t, s, "alice", regexBody)
	text := "Žluťoučký kůň 123 skáče 4"
	a, err := s.AnalyzeJSON(context.Background(), "alice", m.ModelID, []byte(`{"text": "`+text+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Annotations) != 2 || a.Annotations[0].Start != 14 || a.Annotations[0].End != 17 || a.Annotations[1].Start != 24 || a.Annotations[1].Text != "4" {
		t.Errorf("annotations = %+v", a.Annotations)
	}
	if _, err := s.AnalyzeJSON(context.Background(), "alice", m.ModelID, []byte(`{"txt": "a"}`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown analyze field = %v", err)
	}
}

func TestNestedPipelinesAndInlineCleanup(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Options{})
	r := mustCreate(t, s, "alice", regexBody)
	inner := mustCreate(t, s, "alice", fmt.Sprintf(`{"name": "inner", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [%q, {"name": "builtin-ner", "language": "en"}]}}`, r.ModelID))
	outer := mustCreate(t, s, "alice", fmt.Sprintf(`{"name": "outer", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [%q]}}`, inner.ModelID))
	a, err := s.Analyze(ctx, "alice", outer.ModelID, "Pay 20 dollars to John Smith")
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]bool{}
	for _, an := range a.Annotations {
		sources[an.SourceID] = true
	}
	if !sources[r.ModelID] || !sources[inner.Pipeline.Models[1]] || len(sources) != 2 {
		t.Errorf("sources %v, want the regex model and the inline builtin-ner", sources)
	}
	// Replacing the inner pipeline drops its old inline member.
	oldNER := inner.Pipeline.Models[1]
	if _, err := s.UpdateModel(ctx, "alice", inner.ModelID, []byte(fmt.Sprintf(`{"name": "inner", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [%q]}}`, r.ModelID))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetModel(ctx, "alice", oldNER); !errors.Is(err, ErrNotFound) {
		t.Errorf("old inline member after update: %v, want ErrNotFound", err)
	}
	if _, err := st.Get(modelKey("alice", oldNER)); !errors.Is(err, ErrNotFound) {
		t.Errorf("old inline member still stored: %v", err)
	}
	// Echoing a response's member list back keeps the same members.
	got, _ := s.GetModel(ctx, "alice", outer.ModelID)
	body, _ := json.Marshal(map[string]any{"name": "outer2", "type": "pipeline", "mode": "parallel", "pipeline": got.Pipeline})
	up, err := s.UpdateModel(ctx, "alice", outer.ModelID, body)
	if err != nil || up.Pipeline.Models[0] != inner.ModelID || up.Mode != ModeParallel {
		t.Errorf("echoed update = %+v, %v", up, err)
	}
}

// TestEmbedderForLanguage checks that an intent classifier embeds with the
// embedder of its language and falls back to Options.Embedder.
func TestEmbedderForLanguage(t *testing.T) {
	calls := map[string]int{}
	counting := func(name string) intent.Embedder {
		return func(ctx context.Context, texts []string) ([][]float32, error) {
			calls[name] += len(texts)
			out := make([][]float32, len(texts))
			for i, s := range texts {
				out[i] = []float32{float32(len(s)), 1, float32(strings.Count(s, "a"))}
			}
			return out, nil
		}
	}
	s, err := NewService(&MemStore{}, Options{Embedder: counting("default"), EmbedderFor: func(lang string) intent.Embedder {
		if lang == "cs" {
			return counting("cs")
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"name": "%s", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", %s "config": {"examples": {"a": ["ahoj", "nazdar"], "b": ["sbohem", "nashle"]}}}}`
	mustCreate(t, s, "alice", fmt.Sprintf(body, "cs", `"language": "cs",`))
	if calls["cs"] != 4 || calls["default"] != 0 {
		t.Fatalf("a cs classifier embedded %v, want 4 texts with the cs embedder", calls)
	}
	mustCreate(t, s, "alice", fmt.Sprintf(body, "any", ""))
	if calls["default"] != 4 {
		t.Fatalf("a classifier without language embedded %v, want 4 texts with the default embedder", calls)
	}
}

// TestClosedHyphenated: a closed-ner model finds a hyphenated place in
// another case (issue 14: "Praha-Karlín" was missed).
func TestClosedHyphenated(t *testing.T) {
	s, _ := newTestService(t, Options{})
	ctx := context.Background()
	ps, err := s.CreatePhraseSet(ctx, "alice", []byte(`{"name": "district", "language": "cs", "phrases": [{"text": "Praha-Karlín"}, {"text": "Frýdek-Místek"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := mustCreate(t, s, "alice", fmt.Sprintf(`{"name": "districts", "type": "annotator", "annotator": {"service": "builtin", "model": "closed-ner"}, "phrase_set_ids": [%q]}`, ps.PhraseSetID))
	a, err := s.Analyze(ctx, "alice", m.ModelID, "Bydlím v Praze-Karlíně, bratr ve Frýdku - Místku.")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, an := range a.Annotations {
		got = append(got, fmt.Sprintf("%s=%v", an.Text, an.Value))
	}
	if g := strings.Join(got, ","); g != "Praze-Karlíně=Praha-Karlín,Frýdku - Místku=Frýdek-Místek" {
		t.Errorf("found %q", g)
	}
}
