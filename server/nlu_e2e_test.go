package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/najdi/najdi/internal/testutil"
)

// The NLU end-to-end tests drive /models, /models/{id}/analyze and
// /phrase-sets of a real najdi process over HTTP, following
// shared/spec/nlu-interface.md and the "NLU models" and "Closed-entity
// phrase sets" sections of shared/API.md.

type nluModel struct {
	ModelID      string          `json:"model_id"`
	Owner        *string         `json:"owner"`
	Name         string          `json:"name"`
	Description  *string         `json:"description"`
	Type         string          `json:"type"`
	Mode         string          `json:"mode"`
	Language     string          `json:"language"`
	PhraseSetIDs []string        `json:"phrase_set_ids"`
	Annotator    json.RawMessage `json:"annotator"`
	Pipeline     *struct {
		Models []string `json:"models"`
	} `json:"pipeline"`
}

type nluAnnotation struct {
	Name       string   `json:"name"`
	Type       string   `json:"type"`
	Source     string   `json:"source"`
	SourceID   string   `json:"source_id"`
	Confidence *float64 `json:"confidence"`
	Start      *int     `json:"start"`
	End        *int     `json:"end"`
	Text       *string  `json:"text"`
	Value      any      `json:"value"`
}

type nluAnalysis struct {
	Text    string `json:"text"`
	Intents []struct {
		Intent     string   `json:"intent"`
		Confidence *float64 `json:"confidence"`
	} `json:"intents"`
	Annotations []nluAnnotation `json:"annotations"`
}

// nluNode starts a server with users alice and bob and returns alice's and
// bob's clients.
func nluNode(t *testing.T, extra ...string) (alice, bob *node) {
	t.Helper()
	users := testutil.UsersFile(t, "alice:wonderland", "bob:builder")
	n := start(t, "", append([]string{"--no-embeddings", "--users", users}, extra...)...)
	return n.as("alice", "wonderland"), n.as("bob", "builder")
}

func decodeModel(t *testing.T, r resp) nluModel {
	t.Helper()
	var m nluModel
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("model body: %v: %s", err, r.body)
	}
	return m
}

func createModel(t *testing.T, n *node, body string) nluModel {
	t.Helper()
	return decodeModel(t, must(t, n.postJSON("/models", body), 201))
}

func createPhraseSet(t *testing.T, n *node, body string) string {
	t.Helper()
	m := must(t, n.postJSON("/phrase-sets", body), 201).json(t)
	id, _ := m["phrase_set_id"].(string)
	if id == "" {
		t.Fatalf("no phrase_set_id in %v", m)
	}
	return id
}

// analyze posts text to a model and checks the invariants of every
// analysis: text echoed, intents sorted by confidence, every annotation
// complete with code-point offsets that slice text exactly, sorted by
// start, intents mirrored as whole-text annotations of type intent.
func analyze(t *testing.T, n *node, modelID, text string) nluAnalysis {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"text": text})
	r := must(t, n.postJSON("/models/"+modelID+"/analyze", string(body)), 200)
	var a nluAnalysis
	if err := json.Unmarshal(r.body, &a); err != nil {
		t.Fatal(err)
	}
	if a.Text != text {
		t.Fatalf("text %q echoed as %q", text, a.Text)
	}
	if a.Intents == nil || a.Annotations == nil {
		t.Fatalf("intents and annotations must be arrays: %s", r.body)
	}
	runes := []rune(text)
	for i, it := range a.Intents {
		if it.Intent == "" || it.Confidence == nil || *it.Confidence < 0 || *it.Confidence > 1 {
			t.Fatalf("bad intent %d: %s", i, r.body)
		}
		if i > 0 && *it.Confidence > *a.Intents[i-1].Confidence {
			t.Fatalf("intents not sorted by confidence: %s", r.body)
		}
		found := slices.ContainsFunc(a.Annotations, func(an nluAnnotation) bool {
			return an.Type == "intent" && an.Name == it.Intent && *an.Start == 0 && *an.End == len(runes) && *an.Text == text
		})
		if !found {
			t.Fatalf("intent %q has no whole-text annotation of type intent: %s", it.Intent, r.body)
		}
	}
	for i, an := range a.Annotations {
		if an.Name == "" || an.Type == "" || an.Source == "" || an.Confidence == nil || an.Start == nil || an.End == nil || an.Text == nil {
			t.Fatalf("annotation %d lacks name/type/source/confidence/start/end/text: %s", i, r.body)
		}
		if *an.Confidence < 0 || *an.Confidence > 1 {
			t.Fatalf("annotation %d confidence %v outside 0..1", i, *an.Confidence)
		}
		if *an.Start < 0 || *an.End < *an.Start || *an.End > len(runes) {
			t.Fatalf("annotation %d offsets [%d,%d) outside the text of %d code points", i, *an.Start, *an.End, len(runes))
		}
		if got := string(runes[*an.Start:*an.End]); got != *an.Text {
			t.Fatalf("annotation %d: text %q but text[%d:%d] in code points is %q", i, *an.Text, *an.Start, *an.End, got)
		}
		if i > 0 && *an.Start < *a.Annotations[i-1].Start {
			t.Fatalf("annotations not sorted by start: %s", r.body)
		}
	}
	return a
}

func findAnnotation(a nluAnalysis, name, text string) (nluAnnotation, bool) {
	for _, an := range a.Annotations {
		if an.Name == name && (text == "" || *an.Text == text) {
			return an, true
		}
	}
	return nluAnnotation{}, false
}

func mustAnnotation(t *testing.T, a nluAnalysis, name, text string) nluAnnotation {
	t.Helper()
	an, ok := findAnnotation(a, name, text)
	if !ok {
		raw, _ := json.Marshal(a.Annotations)
		t.Fatalf("no %s annotation %q in %q: %s", name, text, a.Text, raw)
	}
	return an
}

// errorMentions asserts an error status, code and a message naming want.
func errorMentions(t *testing.T, r resp, status int, code, want string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, truncate(r.body, 600))
	}
	if c := r.errorCode(t); c != code {
		t.Fatalf("error code %q, want %q", c, code)
	}
	msg := r.json(t)["error"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, want) {
		t.Fatalf("error message %q does not name %q", msg, want)
	}
}

const regexModel = `{"name": "codes", "description": "order codes", "type": "annotator",
	"annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"order": "OBJ-[0-9]+"}}}}`

func TestNLUModelLifecycle(t *testing.T) {
	alice, bob := nluNode(t)

	m := createModel(t, alice, regexModel)
	if m.ModelID == "" || m.Owner == nil || *m.Owner != "alice" {
		t.Fatalf("model_id/owner not assigned: %+v", m)
	}
	if m.Name != "codes" || m.Description == nil || *m.Description != "order codes" || m.Type != "annotator" || len(m.Annotator) == 0 {
		t.Fatalf("created model %+v", m)
	}

	t.Run("create with model_id or owner", func(t *testing.T) {
		errorMentions(t, alice.postJSON("/models", `{"model_id": "mine", "name": "x", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"a": "a"}}}}`), 400, "invalid_request", "model_id")
		errorMentions(t, alice.postJSON("/models", `{"owner": "alice", "name": "x", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"a": "a"}}}}`), 400, "invalid_request", "owner")
	})
	t.Run("invalid bodies", func(t *testing.T) {
		for _, tc := range []struct{ body, want string }{
			{`{"name": "x", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"a": "a"}}}, "typo": 1}`, "typo"},
			{`{"name": "x", "type": "classifier"}`, "type"},
			{`{"name": "x", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"a": "(unclosed"}}}}`, "patterns"},
			{`{"name": "x", "type": "annotator", "annotator": {"service": "ftp://example.com"}}`, "annotator.service"},
			{`{"name": "x", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": {"examples": {}}}}`, "examples"},
			{`{"type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"a": "a"}}}}`, "name"},
			{`not json`, "JSON"},
		} {
			errorMentions(t, alice.postJSON("/models", tc.body), 400, "invalid_request", tc.want)
		}
	})
	t.Run("list and get", func(t *testing.T) {
		other := createModel(t, alice, `{"name": "other", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"x": "x"}}}}`)
		list := must(t, alice.getJSON("/models"), 200)
		var l struct {
			Models []nluModel `json:"models"`
		}
		if err := json.Unmarshal(list.body, &l); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, x := range l.Models {
			ids = append(ids, x.ModelID)
		}
		if !slices.Contains(ids, m.ModelID) || !slices.Contains(ids, other.ModelID) {
			t.Fatalf("GET /models lists %v, want %s and %s", ids, m.ModelID, other.ModelID)
		}
		got := decodeModel(t, must(t, alice.getJSON("/models/"+m.ModelID), 200))
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("GET returned %+v, created %+v", got, m)
		}
		// Another owner sees nothing of alice's.
		must(t, bob.getJSON("/models/"+m.ModelID), 404)
		bl := must(t, bob.getJSON("/models"), 200).json(t)
		if ms, _ := bl["models"].([]any); len(ms) != 0 {
			t.Fatalf("bob lists alice's models: %v", bl)
		}
		must(t, bob.do("DELETE", "/models/"+other.ModelID, "", nil), 404)
		must(t, alice.do("DELETE", "/models/"+other.ModelID, "", nil), 204)
	})
	t.Run("update is a full replacement", func(t *testing.T) {
		if a := analyze(t, alice, m.ModelID, "order OBJ-42 and OBJ-7"); len(a.Annotations) != 2 {
			t.Fatalf("before update: %+v", a.Annotations)
		}
		u := decodeModel(t, must(t, alice.putJSON("/models/"+m.ModelID, `{"name": "tickets", "type": "annotator",
			"annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"ticket": "T#[0-9]+"}}}}`), 200))
		if u.ModelID != m.ModelID || *u.Owner != "alice" || u.Name != "tickets" {
			t.Fatalf("updated %+v", u)
		}
		got := decodeModel(t, must(t, alice.getJSON("/models/"+m.ModelID), 200))
		if got.Description == nil || *got.Description != "" {
			t.Fatalf("description omitted in the update survived: %+v", got)
		}
		if strings.Contains(string(got.Annotator), "OBJ") {
			t.Fatalf("old annotator config survived: %s", got.Annotator)
		}
		a := analyze(t, alice, m.ModelID, "order OBJ-42, ticket T#9")
		if len(a.Annotations) != 1 || a.Annotations[0].Name != "ticket" || *a.Annotations[0].Text != "T#9" {
			t.Fatalf("after update: %+v", a.Annotations)
		}
		// Sending the model's own id and owner in an update is allowed;
		// another id or owner is not.
		must(t, alice.putJSON("/models/"+m.ModelID, fmt.Sprintf(`{"model_id": %q, "owner": "alice", "name": "tickets", "type": "annotator",
			"annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"ticket": "T#[0-9]+"}}}}`, m.ModelID)), 200)
		errorMentions(t, alice.putJSON("/models/"+m.ModelID, `{"owner": "bob", "name": "t", "type": "annotator",
			"annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"ticket": "T#[0-9]+"}}}}`), 400, "invalid_request", "owner")
		errorMentions(t, alice.putJSON("/models/nope", regexModel), 404, "not_found", "nope")
	})
	t.Run("analyze errors", func(t *testing.T) {
		errorMentions(t, alice.postJSON("/models/"+m.ModelID+"/analyze", `{}`), 400, "invalid_request", "text")
		errorMentions(t, alice.postJSON("/models/"+m.ModelID+"/analyze", `{"text": "a", "lang": "en"}`), 400, "invalid_request", "lang")
		errorMentions(t, alice.postJSON("/models/nope/analyze", `{"text": "a"}`), 404, "not_found", "nope")
		if r := alice.getJSON("/models/" + m.ModelID + "/analyze"); r.status != 405 || r.errorCode(t) != "method_not_allowed" {
			t.Fatalf("GET analyze: %d %s", r.status, r.body)
		}
	})
	t.Run("delete", func(t *testing.T) {
		must(t, alice.do("DELETE", "/models/"+m.ModelID, "", nil), 204)
		errorMentions(t, alice.getJSON("/models/"+m.ModelID), 404, "not_found", m.ModelID)
		must(t, alice.do("DELETE", "/models/"+m.ModelID, "", nil), 404)
	})
}

const cityPhrases = `{"name": "city", "description": "Czech cities", "language": "cs",
	"phrases": [{"text": "Praha", "value": "Prague", "synonyms": ["hlavní město"]}, {"text": "Brno"}]}`

func TestNLUPhraseSets(t *testing.T) {
	alice, bob := nluNode(t)

	r := must(t, alice.postJSON("/phrase-sets", cityPhrases), 201).json(t)
	id, _ := r["phrase_set_id"].(string)
	if id == "" || r["owner"] != "alice" || r["name"] != "city" || r["language"] != "cs" || r["case_sensitive"] != false {
		t.Fatalf("created phrase set %v", r)
	}
	errorMentions(t, alice.postJSON("/phrase-sets", `{"phrase_set_id": "x", "name": "c", "phrases": [{"text": "a"}]}`), 400, "invalid_request", "phrase_set_id")
	errorMentions(t, alice.postJSON("/phrase-sets", `{"owner": "alice", "name": "c", "phrases": [{"text": "a"}]}`), 400, "invalid_request", "owner")
	errorMentions(t, alice.postJSON("/phrase-sets", `{"name": "c", "phrases": []}`), 400, "invalid_request", "phrases")
	errorMentions(t, alice.postJSON("/phrase-sets", `{"name": "c", "language": "de", "phrases": [{"text": "a"}]}`), 400, "invalid_request", "language")

	list := must(t, alice.getJSON("/phrase-sets"), 200).json(t)
	sets, _ := list["phrase_sets"].([]any)
	if len(sets) != 1 || sets[0].(map[string]any)["phrase_set_id"] != id {
		t.Fatalf("GET /phrase-sets = %v", list)
	}
	got := must(t, alice.getJSON("/phrase-sets/"+id), 200).json(t)
	if got["description"] != "Czech cities" || len(got["phrases"].([]any)) != 2 {
		t.Fatalf("GET phrase set = %v", got)
	}
	must(t, bob.getJSON("/phrase-sets/"+id), 404)
	if bl := must(t, bob.getJSON("/phrase-sets"), 200).json(t); !reflect.DeepEqual(bl["phrase_sets"], []any{}) {
		t.Errorf("GET /phrase-sets of an owner without sets = %v, want {\"phrase_sets\": []}", bl)
	}

	m := createModel(t, alice, fmt.Sprintf(`{"name": "closed-ner", "type": "annotator", "phrase_set_ids": [%q]}`, id))
	if !slices.Equal(m.PhraseSetIDs, []string{id}) {
		t.Fatalf("closed-ner model %+v", m)
	}
	// Czech inflection: "v Praze" finds Praha and reports its value;
	// synonyms map to their phrase.
	a := analyze(t, alice, m.ModelID, "Bydlím v Praze, hlavním městě, a jezdím do Brna a do Ostravy.")
	praha := mustAnnotation(t, a, "city", "Praze")
	if praha.Value != "Prague" || praha.Type != "entity" || praha.SourceID != m.ModelID {
		t.Fatalf("Praze annotation %+v", praha)
	}
	if an := mustAnnotation(t, a, "city", "hlavním městě"); an.Value != "Prague" {
		t.Fatalf("synonym annotation %+v", an)
	}
	if an := mustAnnotation(t, a, "city", "Brna"); an.Value != "Brno" {
		t.Fatalf("Brna annotation %+v (value defaults to the phrase text)", an)
	}
	if _, ok := findAnnotation(a, "city", "Ostravy"); ok {
		t.Fatal("Ostrava is not in the set yet")
	}

	// A full replacement changes what the model matches from the next
	// analysis on; omitted description is gone.
	u := must(t, alice.putJSON("/phrase-sets/"+id, `{"name": "city", "language": "cs", "phrases": [{"text": "Ostrava", "value": {"region": "MSK"}}]}`), 200).json(t)
	if u["phrase_set_id"] != id || u["description"] != nil && u["description"] != "" {
		t.Fatalf("updated phrase set %v", u)
	}
	a = analyze(t, alice, m.ModelID, "Jezdím do Brna a do Ostravy.")
	if _, ok := findAnnotation(a, "city", "Brna"); ok {
		t.Fatal("Brno matched after it was replaced")
	}
	if an := mustAnnotation(t, a, "city", "Ostravy"); !reflect.DeepEqual(an.Value, map[string]any{"region": "MSK"}) {
		t.Fatalf("Ostravy value %v", an.Value)
	}
	errorMentions(t, alice.putJSON("/phrase-sets/nope", cityPhrases), 404, "not_found", "nope")

	// A set in use cannot be deleted.
	errorMentions(t, alice.do("DELETE", "/phrase-sets/"+id, "", nil), 409, "conflict", m.ModelID)
	must(t, alice.do("DELETE", "/models/"+m.ModelID, "", nil), 204)
	must(t, alice.do("DELETE", "/phrase-sets/"+id, "", nil), 204)
	must(t, alice.getJSON("/phrase-sets/"+id), 404)
	must(t, alice.do("DELETE", "/phrase-sets/"+id, "", nil), 404)
}

func TestNLUPipelines(t *testing.T) {
	alice, _ := nluNode(t)
	ps := createPhraseSet(t, alice, cityPhrases)
	re := createModel(t, alice, regexModel)

	// closed-ner needs phrase sets, inline or top level.
	errorMentions(t, alice.postJSON("/models", `{"name": "p", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [{"name": "closed-ner"}]}}`), 400, "invalid_request", "phrase_set_ids")
	errorMentions(t, alice.postJSON("/models", `{"name": "closed-ner", "type": "annotator"}`), 400, "invalid_request", "phrase_set_ids")
	errorMentions(t, alice.postJSON("/models", `{"name": "p", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [{"name": "closed-ner", "phrase_set_ids": ["missing-set"]}]}}`), 400, "invalid_request", "missing-set")
	// Modes.
	errorMentions(t, alice.postJSON("/models", fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "random", "pipeline": {"models": [%q]}}`, re.ModelID)), 400, "invalid_request", "mode")
	errorMentions(t, alice.postJSON("/models", fmt.Sprintf(`{"name": "p", "type": "pipeline", "pipeline": {"models": [%q]}}`, re.ModelID)), 400, "invalid_request", "mode")
	// A member that does not exist is named.
	errorMentions(t, alice.postJSON("/models", fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [%q, "no-such-model"]}}`, re.ModelID)), 400, "invalid_request", "no-such-model")
	errorMentions(t, alice.postJSON("/models", `{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [{"name": "builtin-ner", "language": "de"}]}}`), 400, "invalid_request", "language")

	var pipes []nluModel
	for _, mode := range []string{"sequential", "parallel"} {
		p := createModel(t, alice, fmt.Sprintf(`{"name": "%s pipe", "description": "d", "type": "pipeline", "mode": %q, "pipeline": {"models": [
			%q, {"name": "builtin-ner", "language": "cs"}, {"name": "closed-ner", "phrase_set_ids": [%q]}]}}`, mode, mode, re.ModelID, ps))
		if p.Type != "pipeline" || p.Mode != mode || p.Pipeline == nil || len(p.Pipeline.Models) != 3 || p.Pipeline.Models[0] != re.ModelID {
			t.Fatalf("%s pipeline %+v", mode, p)
		}
		ner := decodeModel(t, must(t, alice.getJSON("/models/"+p.Pipeline.Models[1]), 200))
		if ner.Name != "builtin-ner" || ner.Language != "cs" || ner.Type != "annotator" || *ner.Owner != "alice" {
			t.Fatalf("inline builtin-ner became %+v", ner)
		}
		closed := decodeModel(t, must(t, alice.getJSON("/models/"+p.Pipeline.Models[2]), 200))
		if closed.Name != "closed-ner" || !slices.Equal(closed.PhraseSetIDs, []string{ps}) {
			t.Fatalf("inline closed-ner became %+v", closed)
		}
		pipes = append(pipes, p)
	}

	text := "Objednávka OBJ-17: přijedu do Prahy 15. března 2025, zaplatím 1 500 Kč."
	var results []nluAnalysis
	for _, p := range pipes {
		a := analyze(t, alice, p.ModelID, text)
		order := mustAnnotation(t, a, "order", "OBJ-17")
		city := mustAnnotation(t, a, "city", "Prahy")
		date := mustAnnotation(t, a, "date", "")
		money := mustAnnotation(t, a, "money", "")
		if order.SourceID != re.ModelID || city.SourceID != p.Pipeline.Models[2] || date.SourceID != p.Pipeline.Models[1] || money.SourceID != p.Pipeline.Models[1] {
			t.Fatalf("%s: source_id must be the leaf models' ids: %+v %+v %+v", p.Mode, order, city, date)
		}
		// source names the model (issue 14): the regex model's name, the
		// inline members' names.
		if order.Source != "codes" || city.Source != "closed-ner" || date.Source != "builtin-ner" {
			t.Fatalf("%s: sources must name the leaf models: %+v %+v %+v", p.Mode, order, city, date)
		}
		if city.Value != "Prague" || date.Value != "2025-03-15" || !reflect.DeepEqual(money.Value, map[string]any{"amount": 1500.0, "currency": "CZK"}) {
			t.Fatalf("%s: values city=%v date=%v money=%v", p.Mode, city.Value, date.Value, money.Value)
		}
		results = append(results, a)
	}
	// Both modes accumulate the same annotations (sources differ only by
	// the inline members' ids).
	if len(results[0].Annotations) != len(results[1].Annotations) {
		t.Fatalf("sequential found %d annotations, parallel %d", len(results[0].Annotations), len(results[1].Annotations))
	}

	// Nested pipelines and cycles.
	outer := createModel(t, alice, fmt.Sprintf(`{"name": "outer", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [%q]}}`, pipes[0].ModelID))
	a := analyze(t, alice, outer.ModelID, text)
	mustAnnotation(t, a, "city", "Prahy")
	errorMentions(t, alice.putJSON("/models/"+pipes[0].ModelID, fmt.Sprintf(`{"name": "x", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [%q]}}`, outer.ModelID)), 400, "invalid_request", "cycle")
	errorMentions(t, alice.putJSON("/models/"+outer.ModelID, fmt.Sprintf(`{"name": "x", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [%q]}}`, outer.ModelID)), 400, "invalid_request", "itself")
	// The failed updates changed nothing.
	if got := decodeModel(t, must(t, alice.getJSON("/models/"+pipes[0].ModelID), 200)); !reflect.DeepEqual(got, pipes[0]) {
		t.Fatalf("a rejected update changed the pipeline: %+v", got)
	}

	// A listed model cannot be deleted; deleting the pipeline removes the
	// inline members it created.
	errorMentions(t, alice.do("DELETE", "/models/"+pipes[0].ModelID, "", nil), 409, "conflict", outer.ModelID)
	errorMentions(t, alice.do("DELETE", "/models/"+re.ModelID, "", nil), 409, "conflict", "pipeline")
	must(t, alice.do("DELETE", "/models/"+outer.ModelID, "", nil), 204)
	must(t, alice.do("DELETE", "/models/"+pipes[0].ModelID, "", nil), 204)
	for _, id := range pipes[0].Pipeline.Models[1:] {
		must(t, alice.getJSON("/models/"+id), 404)
	}
	must(t, alice.getJSON("/models/"+re.ModelID), 200)
}

// TestNLUAnalyze checks offsets with non-ASCII text, built-in entities in
// Czech and English, and the intent classifier.
func TestNLUAnalyze(t *testing.T) {
	alice, _ := nluNode(t)
	ps := createPhraseSet(t, alice, cityPhrases)
	cs := createModel(t, alice, fmt.Sprintf(`{"name": "cs", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [
		{"name": "builtin-ner", "language": "cs"}, {"name": "closed-ner", "phrase_set_ids": [%q]}]}}`, ps))
	en := createModel(t, alice, `{"name": "builtin-ner", "language": "en"}`)
	if en.Type != "annotator" {
		t.Fatalf("builtin-ner model %+v", en)
	}

	t.Run("czech with emoji", func(t *testing.T) {
		text := "Žluťoučký kůň 🐎🚆 pojede zítra v Praze, zaplatím 250 Kč, pište na jan.novak@example.cz."
		before := time.Now()
		a := analyze(t, alice, cs.ModelID, text)
		after := time.Now()
		praha := mustAnnotation(t, a, "city", "Praze")
		if praha.Value != "Prague" || *praha.Confidence <= 0 {
			t.Fatalf("Praze %+v", praha)
		}
		// Offsets count code points: the emoji are one each.
		if want := utf8.RuneCountInString(text[:strings.Index(text, "Praze")]); *praha.Start != want || *praha.End != want+5 {
			t.Fatalf("Praze offsets [%d,%d), want [%d,%d)", *praha.Start, *praha.End, want, want+5)
		}
		date := mustAnnotation(t, a, "date", "zítra")
		tomorrow := []any{before.AddDate(0, 0, 1).Format("2006-01-02"), after.AddDate(0, 0, 1).Format("2006-01-02")}
		if !slices.Contains(tomorrow, date.Value) {
			t.Fatalf("zítra = %v, want %v", date.Value, tomorrow[0])
		}
		if m := mustAnnotation(t, a, "money", "250 Kč"); !reflect.DeepEqual(m.Value, map[string]any{"amount": 250.0, "currency": "CZK"}) {
			t.Fatalf("money %+v", m)
		}
		if e := mustAnnotation(t, a, "email", "jan.novak@example.cz"); e.Value != "jan.novak@example.cz" {
			t.Fatalf("email %+v", e)
		}
		for _, an := range a.Annotations {
			if an.Type != "entity" {
				t.Fatalf("entity models produced %+v", an)
			}
		}
	})
	t.Run("english", func(t *testing.T) {
		text := "Send $20 to john@example.com on March 15, 2025 — that's 3 tickets, 15% off."
		a := analyze(t, alice, en.ModelID, text)
		if m := mustAnnotation(t, a, "money", "$20"); !reflect.DeepEqual(m.Value, map[string]any{"amount": 20.0, "currency": "USD"}) {
			t.Fatalf("money %+v", m)
		}
		if e := mustAnnotation(t, a, "email", "john@example.com"); e.Value != "john@example.com" || e.SourceID != en.ModelID {
			t.Fatalf("email %+v", e)
		}
		if d := mustAnnotation(t, a, "date", ""); d.Value != "2025-03-15" {
			t.Fatalf("date %+v", d)
		}
		if n := mustAnnotation(t, a, "number", "3"); n.Value != 3.0 {
			t.Fatalf("number %+v", n)
		}
		if p := mustAnnotation(t, a, "percent", ""); p.Value != 15.0 {
			t.Fatalf("percent %+v", p)
		}
	})
	t.Run("intent classifier", func(t *testing.T) {
		ic := createModel(t, alice, `{"name": "travel", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier",
			"config": {"examples": {
				"book_flight": ["book a flight to London", "I need a plane ticket to Paris", "find me flights to Berlin", "reserve a flight for tomorrow", "I want to fly to Rome"],
				"weather": ["what's the weather like", "will it rain tomorrow", "how hot is it outside", "weather forecast for Prague", "is it going to snow"],
				"cancel": ["cancel my booking", "I want to cancel the reservation", "please cancel my order", "cancel it", "drop my reservation"]}}}}`)
		for text, want := range map[string]string{
			"book me a flight to Madrid":       "book_flight",
			"is it going to rain in Brno":      "weather",
			"please cancel my hotel booking":   "cancel",
			"I would like to fly to Lisbon":    "book_flight",
			"what is the weather forecast now": "weather",
		} {
			a := analyze(t, alice, ic.ModelID, text)
			if len(a.Intents) == 0 || a.Intents[0].Intent != want {
				t.Errorf("%q: intents %+v, want %s first", text, a.Intents, want)
			}
			for _, an := range a.Annotations {
				if an.Type != "intent" || an.Source != "travel" || an.SourceID != ic.ModelID {
					t.Errorf("%q: intent classifier produced %+v", text, an)
				}
			}
		}
		// Threshold 1 puts every text out of scope.
		strict := createModel(t, alice, `{"name": "strict", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier",
			"config": {"threshold": 1, "examples": {"hi": ["hello", "hi there"], "bye": ["goodbye", "see you"]}}}}`)
		a := analyze(t, alice, strict.ModelID, "hello")
		if !slices.ContainsFunc(a.Intents, func(i struct {
			Intent     string   `json:"intent"`
			Confidence *float64 `json:"confidence"`
		}) bool {
			return i.Intent == "out_of_scope"
		}) {
			t.Fatalf("threshold 1: intents %+v lack out_of_scope", a.Intents)
		}
		errorMentions(t, alice.postJSON("/models", `{"name": "x", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": {"threshold": 2, "examples": {"a": ["a"]}}}}`), 400, "invalid_request", "threshold")
	})
}

// annotateCall is one request received by the test microservice.
type annotateCall struct {
	Text        string          `json:"text"`
	Language    string          `json:"language"`
	Model       string          `json:"model"`
	Config      json.RawMessage `json:"config"`
	Annotations []nluAnnotation `json:"annotations"`
	Intents     []any           `json:"intents"`
}

// TestNLUMicroservice runs annotation microservices next to the server: a
// working one (as a model and as a sequential and parallel pipeline
// member), a failing one (502), a slow one (504) and an unreachable one
// (502), each error naming the service. The server runs with
// --nlu-timeout 2s, so the slow service answers 504 after about 2 s, not
// the default 10 s, and with --allow-outbound 127.0.0.1, which lets models
// name services on any port of the loopback address.
func TestNLUMicroservice(t *testing.T) {
	alice, _ := nluNode(t, "--nlu-timeout", "2s", "--allow-outbound", "127.0.0.1")

	var mu sync.Mutex
	var calls []annotateCall
	word := regexp.MustCompile(`(?i)najdi`)
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != "/annotate" {
			http.Error(w, "not found", 404)
			return
		}
		var c annotateCall
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
		var anns []map[string]any
		runes := []rune(c.Text)
		for _, loc := range word.FindAllStringIndex(c.Text, -1) {
			s := utf8.RuneCountInString(c.Text[:loc[0]])
			e := s + utf8.RuneCountInString(c.Text[loc[0]:loc[1]])
			anns = append(anns, map[string]any{"name": "product", "type": "entity", "confidence": 0.75, "start": s, "end": e, "text": string(runes[s:e]), "value": "najdi"})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"intents": []map[string]any{{"intent": "ask_product", "confidence": 0.8}, {"intent": "chitchat", "confidence": 0.2}}, "annotations": anns})
	}))
	t.Cleanup(good.Close)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "model crashed", 500)
	}))
	t.Cleanup(failing.Close)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) }) // runs before slow.Close
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()

	ms := createModel(t, alice, fmt.Sprintf(`{"name": "products", "type": "annotator",
		"annotator": {"service": %q, "model": "prod-v2", "language": "cs", "config": {"k": 1}}}`, good.URL))
	text := "Zkus 🔍 Najdi, hledání s najdi je rychlé."
	a := analyze(t, alice, ms.ModelID, text)
	if len(a.Intents) != 2 || a.Intents[0].Intent != "ask_product" || *a.Intents[0].Confidence != 0.8 {
		t.Fatalf("intents %+v", a.Intents)
	}
	p := mustAnnotation(t, a, "product", "Najdi")
	if p.Source != "products" || p.SourceID != ms.ModelID || *p.Confidence != 0.75 || p.Value != "najdi" || *p.Start != 7 {
		t.Fatalf("product annotation %+v", p)
	}
	mustAnnotation(t, a, "product", "najdi")
	mu.Lock()
	c := calls[len(calls)-1]
	mu.Unlock()
	if c.Text != text || c.Model != "prod-v2" || c.Language != "cs" || string(c.Config) != `{"k":1}` {
		t.Fatalf("the microservice received %+v", c)
	}

	// In a sequential pipeline the microservice sees the annotations of
	// earlier members; in a parallel one it sees none.
	re := createModel(t, alice, `{"name": "words", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"search": "hledání"}}}}`)
	for _, mode := range []string{"sequential", "parallel"} {
		pipe := createModel(t, alice, fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": %q, "pipeline": {"models": [%q, %q]}}`, mode, re.ModelID, ms.ModelID))
		a := analyze(t, alice, pipe.ModelID, text)
		mustAnnotation(t, a, "search", "hledání")
		mustAnnotation(t, a, "product", "Najdi")
		mu.Lock()
		c := calls[len(calls)-1]
		mu.Unlock()
		seen := slices.ContainsFunc(c.Annotations, func(an nluAnnotation) bool { return an.Name == "search" && an.SourceID == re.ModelID })
		if seen != (mode == "sequential") {
			t.Fatalf("%s pipeline: the microservice received annotations %+v", mode, c.Annotations)
		}
	}

	for _, tc := range []struct {
		name, url string
		status    int
		code      string
	}{
		{"failing", failing.URL, 502, "bad_gateway"},
		{"unreachable", deadURL, 502, "bad_gateway"},
		{"slow", slow.URL, 504, "gateway_timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := createModel(t, alice, fmt.Sprintf(`{"name": %q, "type": "annotator", "annotator": {"service": %q}}`, tc.name, tc.url))
			start := time.Now()
			errorMentions(t, alice.postJSON("/models/"+m.ModelID+"/analyze", `{"text": "hello"}`), tc.status, tc.code, tc.url)
			if d := time.Since(start); d > 30*time.Second {
				t.Fatalf("the error took %v: the service must not hang", d)
			} else if tc.name == "slow" && (d < 2*time.Second || d > 8*time.Second) {
				t.Fatalf("the slow service answered after %v: want the --nlu-timeout of 2s", d)
			}
			// Inside a parallel pipeline the failure is reported the same way.
			pipe := createModel(t, alice, fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": "parallel", "pipeline": {"models": [%q, %q]}}`, ms.ModelID, m.ModelID))
			if tc.name != "slow" {
				errorMentions(t, alice.postJSON("/models/"+pipe.ModelID+"/analyze", `{"text": "hello"}`), tc.status, tc.code, tc.url)
			}
		})
	}
}

// TestNLUPhraseWordRule: a phrase text or synonym is accepted when it
// holds a letter or a number (or &), as the OpenAPI document's pattern
// says ([\p{L}\p{N}&]: any Unicode letter or number), and then matches the
// same text in an analysis; one with none is refused with 400 naming it.
// A word that begins with a combining mark ("\u108dÏHthen", a mark left
// without its base) and a number that is not a decimal digit ("²", "Ⅻ")
// were refused as "no word to match" while the schema accepted them.
func TestNLUPhraseWordRule(t *testing.T) {
	alice, _ := nluNode(t)
	for _, tc := range []struct {
		name, phrase, text string
	}{
		{"word after a combining mark", "\u108dÏHthen", "we met \u108dÏHthen at noon"},
		{"superscript two", "²", "area in m ²"},
		{"roman numeral twelve", "Ⅻ", "chapter Ⅻ begins"},
		{"letters", "Brno", "to Brno"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"name": "thing", "phrases": []any{
				map[string]any{"text": "anchor", "synonyms": []string{tc.phrase}}}})
			id := createPhraseSet(t, alice, string(body))
			m := createModel(t, alice, fmt.Sprintf(`{"name": "closed-ner", "type": "annotator", "phrase_set_ids": [%q]}`, id))
			an := mustAnnotation(t, analyze(t, alice, m.ModelID, tc.text), "thing", tc.phrase)
			if an.Value != "anchor" {
				t.Fatalf("synonym %q annotated %+v, want the value of its phrase", tc.phrase, an)
			}
		})
	}
	for _, bad := range []string{"!?", "\u0301", "_", "- -"} {
		body, _ := json.Marshal(map[string]any{"name": "thing", "phrases": []any{map[string]any{"text": "anchor", "synonyms": []string{bad}}}})
		errorMentions(t, alice.postJSON("/phrase-sets", string(body)), 400, "invalid_request", "synonyms[0]")
	}
}

// TestModelInputNullsAsSchema: a model body may give any optional property
// the server knows as null, read as absent (the OpenAPI document says so);
// each kind's body is accepted with its unused properties null, and the
// OpenAPI branch of that kind lists each of them (with additionalProperties
// false, an unlisted property makes the accepted body schema-violating:
// schemathesis found an annotator with "pipeline": null, accepted).
func TestModelInputNullsAsSchema(t *testing.T) {
	alice, _ := nluNode(t)
	_, doc := loadOpenAPI(t)
	branch := func(path string) map[string]json.RawMessage {
		t.Helper()
		name, idx, _ := strings.Cut(strings.TrimSuffix(path, "]"), "[")
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
			OneOf      []struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"oneOf"`
		}
		if err := json.Unmarshal(doc.Components.Schemas[name], &s); err != nil {
			t.Fatal(err)
		}
		if idx == "" {
			return s.Properties
		}
		i, _ := strconv.Atoi(idx)
		return s.OneOf[i].Properties
	}
	// allows reports whether a property schema admits v (null or "").
	allows := func(raw json.RawMessage, v any) bool {
		var p struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		}
		json.Unmarshal(raw, &p)
		if p.Enum != nil {
			return slices.Contains(p.Enum, v)
		}
		want := "null"
		if v != nil {
			want = "string"
		}
		if p.Type == want {
			return true
		}
		l, _ := p.Type.([]any)
		return slices.Contains(l, any(want))
	}
	for _, tc := range []struct {
		branch, body string
		nulls        []string
		empties      []string // properties the server also reads as absent when ""
	}{
		{"IntentClassifierInput", `"name": "i", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": {"examples": {"hi": ["hello there", "good morning"], "bye": ["see you", "good night"]}}}`,
			[]string{"description", "language", "phrase_set_ids", "pipeline", "mode"}, []string{"mode", "language"}},
		{"RegexAnnotatorInput", `"name": "r", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"n": "[0-9]+"}}}`,
			[]string{"description", "language", "phrase_set_ids", "pipeline", "mode"}, []string{"mode", "language"}},
		{"BuiltinNERInput[0]", `"name": "builtin-ner", "type": "annotator", "language": "cs", "annotator": {"service": "builtin", "model": "builtin-ner"}`,
			[]string{"description", "phrase_set_ids", "pipeline", "mode"}, []string{"mode"}},
		{"BuiltinNERInput[1]", `"name": "builtin-ner", "language": "en"`,
			[]string{"description", "type", "phrase_set_ids", "annotator", "pipeline", "mode"}, []string{"mode", "type"}},
		{"PipelineInput", `"name": "p", "type": "pipeline", "mode": "sequential", "pipeline": {"models": [{"name": "builtin-ner", "language": "en"}]}`,
			[]string{"description", "language", "phrase_set_ids", "annotator"}, []string{"language"}},
	} {
		t.Run(tc.branch, func(t *testing.T) {
			body := "{" + tc.body
			for _, p := range tc.nulls {
				body += fmt.Sprintf(", %q: null", p)
			}
			body += "}"
			must(t, alice.postJSON("/models", body), 201)
			props := branch(tc.branch)
			for _, p := range tc.nulls {
				if raw, ok := props[p]; !ok || !allows(raw, nil) {
					t.Errorf("%s: the server accepts %q: null, the schema does not list it as nullable (%s)", tc.branch, p, raw)
				}
			}
			for _, p := range tc.empties {
				must(t, alice.postJSON("/models", "{"+tc.body+fmt.Sprintf(", %q: \"\"}", p)), 201)
				if raw, ok := props[p]; !ok || !allows(raw, "") {
					t.Errorf("%s: the server accepts %q: \"\", the schema does not (%s)", tc.branch, p, raw)
				}
			}
		})
	}
}

// TestPhrasePatternAgreesWithServer: the OpenAPI pattern of a phrase text
// and synonym, read with Unicode classes as JSON Schema validators read it
// (Go's regexp here; schemathesis's ECMA-262 engine), accepts exactly the
// texts the server accepts. The pattern [^\W_]|& meant "any Unicode letter
// or number" only in Python's re: an ECMA-262 validator reads \W as ASCII,
// so schemathesis found "\u0088ö" accepted by the server (201) and judged
// its own echo a schema violation.
func TestPhrasePatternAgreesWithServer(t *testing.T) {
	alice, _ := nluNode(t)
	_, doc := loadOpenAPI(t)
	var phrase struct {
		Properties struct {
			Text     struct{ Pattern string } `json:"text"`
			Synonyms struct {
				Items struct{ Pattern string } `json:"items"`
			} `json:"synonyms"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc.Components.Schemas["Phrase"], &phrase); err != nil {
		t.Fatal(err)
	}
	if phrase.Properties.Text.Pattern != phrase.Properties.Synonyms.Items.Pattern {
		t.Fatalf("text pattern %q, synonym pattern %q", phrase.Properties.Text.Pattern, phrase.Properties.Synonyms.Items.Pattern)
	}
	re := regexp.MustCompile(phrase.Properties.Text.Pattern)
	for _, s := range []string{"ö", "\u0088ö", "Brno", "čí", "東京", "²", "Ⅻ", "&", "a&b", "!?", "\u0301", "_", "- -", "╯︵ ┻", "\u0088"} {
		body, _ := json.Marshal(map[string]any{"name": "thing", "phrases": []any{map[string]any{"text": s}}})
		r := alice.postJSON("/phrase-sets", string(body))
		if accepted := r.status == 201; accepted != re.MatchString(s) {
			t.Errorf("%q: server %d, schema pattern %q matches: %v", s, r.status, re, re.MatchString(s))
		}
	}
}
