package nlu

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/najdi/najdi/internal/outbound"
	"github.com/najdi/najdi/nlu/entity"
	"github.com/najdi/najdi/nlu/intent"
	"github.com/najdi/najdi/nlu/ner"
)

// Annotation types.
const (
	AnnotationIntent = "intent"
	AnnotationEntity = "entity"
	// OutOfScope is the intent reported when no intent reaches the
	// classifier's threshold.
	OutOfScope = "out_of_scope"
)

// Analysis is the result of analyzing a text. Intents are sorted by
// confidence, highest first; annotations by start offset.
type Analysis struct {
	Text        string       `json:"text"`
	Intents     []Intent     `json:"intents"`
	Annotations []Annotation `json:"annotations"`
}

// Intent is one recognized intent.
type Intent struct {
	Intent     string  `json:"intent"`
	Confidence float64 `json:"confidence"`
}

// Annotation is one intent or entity. Start and End are code-point offsets
// into the analyzed text (End exclusive) and Text is that span; intents
// span the whole text. Source is the name of the model that produced it
// (what a person reads) and SourceID its model_id. Value is the normalized
// value where the class has one.
type Annotation struct {
	Name       string  `json:"name"`
	Type       string  `json:"type"`
	Source     string  `json:"source"`
	SourceID   string  `json:"source_id"`
	Confidence float64 `json:"confidence"`
	Start      int     `json:"start"`
	End        int     `json:"end"`
	Text       string  `json:"text"`
	Value      any     `json:"value,omitempty"`
}

// annotator is one leaf model. prior holds the annotations produced so far
// by earlier members of a sequential pipeline.
type annotator interface {
	annotate(ctx context.Context, in *input) ([]Intent, []Annotation, error)
}

type input struct {
	text        string
	prior       []Annotation
	priorIntent []Intent
	sets        []*compiledSet // closed-ner: resolved phrase sets
}

// node is a resolved model tree, safe to run without the service lock.
type node struct {
	id       string
	name     string
	ann      annotator
	mode     string
	sets     []*compiledSet
	children []*node
}

// AnalyzeJSON decodes body ({"text": "..."}, unknown fields rejected) and
// analyzes the text with the owner's model id.
func (s *Service) AnalyzeJSON(ctx context.Context, owner, id string, body []byte) (Analysis, error) {
	var req struct {
		Text *string `json:"text"`
	}
	if err := decodeStrict(body, &req); err != nil {
		return Analysis{}, err
	}
	if req.Text == nil {
		return Analysis{}, fmt.Errorf("%w: text: required", ErrInvalid)
	}
	return s.Analyze(ctx, owner, id, *req.Text)
}

// Analyze runs the owner's model id over text and returns its intents and
// annotations.
func (s *Service) Analyze(ctx context.Context, owner, id string, text string) (Analysis, error) {
	if !utf8.ValidString(text) {
		return Analysis{}, fmt.Errorf("%w: text: not valid UTF-8", ErrInvalid)
	}
	if n := utf8.RuneCountInString(text); n > s.opts.MaxTextRunes {
		return Analysis{}, fmt.Errorf("%w: text: %d characters, the limit is %d", ErrInvalid, n, s.opts.MaxTextRunes)
	}
	if err := s.sync(ctx); err != nil {
		return Analysis{}, err
	}
	s.mu.RLock()
	root, err := s.resolveLocked(owner, id, 0)
	s.mu.RUnlock()
	if err != nil {
		return Analysis{}, err
	}
	intents, anns, err := s.run(ctx, root, &input{text: text})
	if err != nil {
		return Analysis{}, err
	}
	sort.SliceStable(intents, func(i, j int) bool { return intents[i].Confidence > intents[j].Confidence })
	sort.SliceStable(anns, func(i, j int) bool {
		a, b := anns[i], anns[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if (a.Type == AnnotationIntent) != (b.Type == AnnotationIntent) {
			return a.Type == AnnotationIntent
		}
		return a.End > b.End
	})
	if intents == nil {
		intents = []Intent{}
	}
	if anns == nil {
		anns = []Annotation{}
	}
	return Analysis{Text: text, Intents: intents, Annotations: anns}, nil
}

const maxDepth = 32

func (s *Service) resolveLocked(owner, id string, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: model %q: pipelines nested deeper than %d", ErrInvalid, id, maxDepth)
	}
	e, ok := s.models[modelKey(owner, id)]
	if !ok {
		return nil, fmt.Errorf("model %q: %w", id, ErrNotFound)
	}
	if e.err != nil {
		return nil, fmt.Errorf("model %q cannot run: %w", id, e.err)
	}
	n := &node{id: id, name: e.m.Name, ann: e.ann, mode: e.m.Mode}
	for _, p := range e.m.PhraseSetIDs {
		cs, ok := s.sets[setKey(owner, p)]
		if !ok {
			return nil, fmt.Errorf("%w: model %q: phrase set %q does not exist", ErrInvalid, id, p)
		}
		n.sets = append(n.sets, cs)
	}
	if e.m.Pipeline != nil {
		for _, c := range e.m.Pipeline.Models {
			cn, err := s.resolveLocked(owner, c, depth+1)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, cn)
		}
	}
	return n, nil
}

func (s *Service) run(ctx context.Context, n *node, in *input) ([]Intent, []Annotation, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if n.ann != nil {
		leaf := *in
		leaf.sets = n.sets
		intents, anns, err := n.ann.annotate(ctx, &leaf)
		if err != nil {
			return nil, nil, err
		}
		runes := utf8.RuneCountInString(in.text)
		for i := range anns {
			anns[i].Source, anns[i].SourceID = n.name, n.id
		}
		for _, it := range intents {
			anns = append(anns, Annotation{Name: it.Intent, Type: AnnotationIntent, Source: n.name, SourceID: n.id, Confidence: it.Confidence, Start: 0, End: runes, Text: in.text})
		}
		return intents, anns, nil
	}
	var intents []Intent
	var anns []Annotation
	switch n.mode {
	case ModeSequential:
		for _, c := range n.children {
			sub := &input{text: in.text, prior: append(append([]Annotation(nil), in.prior...), anns...), priorIntent: append(append([]Intent(nil), in.priorIntent...), intents...)}
			i, a, err := s.run(ctx, c, sub)
			if err != nil {
				return nil, nil, err
			}
			intents = append(intents, i...)
			anns = append(anns, a...)
		}
	default: // parallel
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type result struct {
			intents []Intent
			anns    []Annotation
			err     error
		}
		res := make([]result, len(n.children))
		var wg sync.WaitGroup
		for k, c := range n.children {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sub := &input{text: in.text, prior: in.prior, priorIntent: in.priorIntent}
				i, a, err := s.run(ctx, c, sub)
				res[k] = result{i, a, err}
				if err != nil {
					cancel()
				}
			}()
		}
		wg.Wait()
		// Report the failure that caused the cancellation, not a sibling's
		// "context canceled" that followed from it.
		var first error
		for _, r := range res {
			if r.err == nil {
				continue
			}
			if first == nil || (errors.Is(first, context.Canceled) && !errors.Is(r.err, context.Canceled)) {
				first = r.err
			}
		}
		if first != nil {
			return nil, nil, first
		}
		for _, r := range res {
			intents = append(intents, r.intents...)
			anns = append(anns, r.anns...)
		}
	}
	return intents, anns, nil
}

// buildAnnotator trains or compiles the annotator of an annotator model;
// pipelines have none.
func (s *Service) buildAnnotator(ctx context.Context, m Model) (annotator, error) {
	if m.Type != TypeAnnotator || m.Annotator == nil {
		return nil, nil
	}
	a := m.Annotator
	if a.Service != ServiceBuiltin {
		base, err := s.policy.Check(a.Service)
		if err != nil {
			return nil, fmt.Errorf("%w: annotator.service: %v", ErrInvalid, err)
		}
		return &microservice{endpoint: outbound.JoinPath(base, "annotate").String(), model: a.Model, language: a.Language, config: a.Config,
			client: s.client, timeout: s.opts.MicroserviceTimeout, log: s.opts.Logger}, nil
	}
	switch a.Model {
	case ModelIntent:
		return s.buildIntent(ctx, m)
	case ModelRegex:
		return buildRegex(a)
	case ModelBuiltinNER:
		return s.buildEntities(m)
	case ModelClosedNER:
		return closedAnnotator{}, nil
	}
	return nil, fmt.Errorf("%w: annotator.model: unknown builtin model %q", ErrInvalid, a.Model)
}

// buildIntent trains the intent classifier of m's examples (blank ones
// left out) with the embedder of its language, through the Service's
// embedding cache.
func (s *Service) buildIntent(ctx context.Context, m Model) (annotator, error) {
	cfg, err := parseIntentConfig(m.Annotator.Config)
	if err != nil {
		return nil, err
	}
	ex := map[string][]string{}
	for k, us := range cfg.Examples {
		for _, u := range us {
			if strings.TrimSpace(u) != "" {
				ex[k] = append(ex[k], u)
			}
		}
	}
	emb, embName := s.opts.Embedder, ""
	if s.opts.EmbedderFor != nil {
		lang := cmp.Or(m.Language, cfg.Language)
		if e := s.opts.EmbedderFor(lang); e != nil {
			emb, embName = e, "lang:"+lang
		}
	}
	emb = s.embCache.wrap(embName, emb)
	c, err := intent.Train(ctx, ex, intent.Options{Embedder: emb})
	if err != nil {
		return nil, fmt.Errorf("%w: annotator.config.examples: %v", ErrInvalid, err)
	}
	th := DefaultThreshold
	if cfg.Threshold != nil {
		th = *cfg.Threshold
	}
	return &intentAnnotator{c: c, threshold: th}, nil
}

// buildRegex compiles a's patterns, kept in the order of their names.
func buildRegex(a *Annotator) (annotator, error) {
	res, err := parseRegexConfig(a.Config)
	if err != nil {
		return nil, err
	}
	ra := &regexAnnotator{}
	for _, k := range slices.Sorted(maps.Keys(res)) {
		ra.names = append(ra.names, k)
		ra.res = append(ra.res, res[k])
	}
	return ra, nil
}

// buildEntities returns the built-in entity annotator of m's language,
// loading its name tagger now rather than on the first analysis (and,
// with Options.WordStates, the English contextual tagger's states).
func (s *Service) buildEntities(m Model) (annotator, error) {
	if m.Language == "cs" {
		ner.CzechTagger()
	} else if _, err := ner.English(); err != nil {
		return nil, fmt.Errorf("builtin-ner: %w", err)
	}
	ea := &entityAnnotator{lang: m.Language, now: s.opts.Now}
	if m.Language != "cs" && s.opts.WordStates != nil {
		t, err := ner.EnglishContextual()
		if err != nil {
			return nil, fmt.Errorf("builtin-ner: %w", err)
		}
		model, _ := t.Contextual()
		ea.states = s.opts.WordStates(model)
	}
	return ea, nil
}

// intentAnnotator reports the classifier's intents with probability of at
// least minIntentConfidence; when the best is under the threshold an
// out_of_scope intent with confidence max(1-best, threshold) comes first.
type intentAnnotator struct {
	c         *intent.Classifier
	threshold float64
}

const minIntentConfidence = 0.05

func (a *intentAnnotator) annotate(ctx context.Context, in *input) ([]Intent, []Annotation, error) {
	scored, err := a.c.Classify(ctx, in.text)
	if err != nil {
		return nil, nil, fmt.Errorf("intent-classifier: %w", err)
	}
	var out []Intent
	if len(scored) == 0 || scored[0].Probability < a.threshold {
		best := 0.0
		if len(scored) > 0 {
			best = scored[0].Probability
		}
		// out_of_scope comes first even when the best intent is over 0.5
		// but under a higher threshold.
		out = append(out, Intent{Intent: OutOfScope, Confidence: round(math.Max(1-best, a.threshold))})
	}
	for i, sc := range scored {
		if i > 0 && sc.Probability < minIntentConfidence {
			break
		}
		out = append(out, Intent{Intent: sc.Intent, Confidence: round(sc.Probability)})
	}
	return out, nil, nil
}

func round(f float64) float64 { return math.Round(f*1e4) / 1e4 }

type regexAnnotator struct {
	names []string
	res   []*regexp.Regexp
}

func (a *regexAnnotator) annotate(ctx context.Context, in *input) ([]Intent, []Annotation, error) {
	var out []Annotation
	conv := newOffsets(in.text)
	for i, re := range a.res {
		for _, loc := range re.FindAllStringIndex(in.text, -1) {
			if loc[0] == loc[1] {
				continue
			}
			out = append(out, Annotation{Name: a.names[i], Type: AnnotationEntity, Confidence: 1, Start: conv.rune(loc[0]), End: conv.rune(loc[1]), Text: in.text[loc[0]:loc[1]], Value: in.text[loc[0]:loc[1]]})
		}
	}
	return nil, out, nil
}

// offsets converts byte offsets of a string to code-point offsets.
type offsets struct{ byteToRune []int32 }

func newOffsets(s string) offsets {
	b := make([]int32, len(s)+1)
	r := int32(0)
	for i := range s {
		for j := i; j < len(s) && (j == i || !utf8.RuneStart(s[j])); j++ {
			b[j] = r
		}
		r++
	}
	b[len(s)] = r
	return offsets{b}
}

func (o offsets) rune(byteOff int) int { return int(o.byteToRune[byteOff]) }

type entityAnnotator struct {
	lang   string
	now    func() time.Time
	states ner.WordStates // English word vectors for the contextual tagger; nil: lexical only
}

func (a *entityAnnotator) annotate(ctx context.Context, in *input) ([]Intent, []Annotation, error) {
	ents, err := entity.ExtractContext(ctx, in.text, a.lang, a.now(), a.states)
	if err != nil {
		return nil, nil, fmt.Errorf("builtin-ner: %w", err)
	}
	out := make([]Annotation, 0, len(ents))
	for _, e := range ents {
		out = append(out, Annotation{Name: e.Class, Type: AnnotationEntity, Confidence: round(e.Confidence), Start: e.Start, End: e.End, Text: e.Text, Value: e.Value})
	}
	return nil, out, nil
}

// closedAnnotator matches the resolved phrase sets; across sets the longer
// match wins an overlap (then the earlier set).
type closedAnnotator struct{}

const stemmedMatchConfidence = 0.9

func (closedAnnotator) annotate(ctx context.Context, in *input) ([]Intent, []Annotation, error) {
	var out []Annotation
	for _, cs := range in.sets {
		for _, m := range cs.matcher.Match(in.text) {
			conf := 1.0
			if !m.Exact {
				conf = stemmedMatchConfidence
			}
			out = append(out, Annotation{Name: cs.ps.Name, Type: AnnotationEntity, Confidence: conf, Start: m.Start, End: m.End, Text: in.text[m.ByteStart:m.ByteEnd], Value: cs.values[m.Ref]})
		}
	}
	if len(in.sets) < 2 {
		return nil, out, nil
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].End-out[i].Start > out[j].End-out[j].Start })
	return nil, entity.Disjoint(out, func(a Annotation) (int, int) { return a.Start, a.End }), nil
}
