package nlu

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/najdi/najdi/internal/outbound"
	"github.com/najdi/najdi/nlu/intent"
	"github.com/najdi/najdi/nlu/ner"
)

// Options configures a Service. Zero fields take the documented defaults.
type Options struct {
	// Embedder, when set, adds sentence embeddings to the intent
	// classifier's features. Optional: the classifier works without it.
	Embedder intent.Embedder
	// EmbedderFor, when set, picks the sentence embedder of an intent
	// classifier by its language (the model's "language", else its
	// config's; "" when neither is given), e.g. a multilingual model for
	// "cs". A nil result falls back to Embedder.
	EmbedderFor func(language string) intent.Embedder
	// WordStates, when set, gives the contextual word vectors of the
	// named embedding model (nil when it is not installed): English
	// builtin-ner then tags names with ner.EnglishContextual (CoNLL-2003
	// validation F1 in docs/nlu.md) instead of the lexical tagger.
	WordStates func(model string) ner.WordStates
	// AllowOutbound lists the hosts annotation microservices may be on:
	// "host" (every port), "host:port", "*.domain" or "*" (wildcards admit
	// public addresses only; see internal/outbound). Empty, a model naming
	// a microservice is refused with ErrInvalid: by default no URL a client
	// writes is called.
	AllowOutbound []string
	// Logger receives the details of failed microservice calls, which the
	// errors returned to clients leave out; default slog.Default().
	Logger *slog.Logger
	// MicroserviceTimeout bounds one call to an annotation microservice;
	// default 10s. Expiry answers ErrUpstreamTimeout.
	MicroserviceTimeout time.Duration
	// Now is the reference time for relative dates ("tomorrow",
	// "pozítří"); default time.Now.
	Now func() time.Time
	// MaxTextRunes bounds the analyzed text; default 100000 code points.
	MaxTextRunes int
}

// Validate reports bad option values.
func (o Options) Validate() error {
	if o.MicroserviceTimeout < 0 {
		return fmt.Errorf("%w: MicroserviceTimeout %v is negative", ErrInvalid, o.MicroserviceTimeout)
	}
	if o.MaxTextRunes < 0 {
		return fmt.Errorf("%w: MaxTextRunes %d is negative", ErrInvalid, o.MaxTextRunes)
	}
	if _, err := outbound.New(o.AllowOutbound); err != nil {
		return fmt.Errorf("%w: AllowOutbound: %v", ErrInvalid, err)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MicroserviceTimeout == 0 {
		o.MicroserviceTimeout = 10 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxTextRunes == 0 {
		o.MaxTextRunes = 100000
	}
	return o
}

// Service manages NLU models and phrase sets per owner and analyzes text
// with them. It is safe for concurrent use. Owner is an opaque namespace:
// every call sees only the owner's resources, and another owner's id answers
// ErrNotFound. The empty owner is a namespace like any other (used when the
// server runs without users); an admin role is the caller's business.
type Service struct {
	store  Store
	opts   Options
	policy *outbound.Policy // from opts.AllowOutbound
	client *http.Client     // dials through policy

	embCache *embeddingCache // intent example embeddings by embedder and text

	mu     sync.RWMutex
	models map[string]*modelEntry  // by modelKey(owner, id)
	sets   map[string]*compiledSet // by setKey(owner, id)
	seq    uint64

	shared sharedState // a SharedStore's version and what was loaded (sync.go)
}

type modelEntry struct {
	m         Model
	createdBy string // pipeline that created this inline member
	seq       uint64 // creation order, for listing
	ann       annotator
	err       error // compile error of a stored model
}

type storedModel struct {
	Model     Model  `json:"model"`
	CreatedBy string `json:"created_by,omitempty"`
	Seq       uint64 `json:"seq"`
}

const (
	modelPrefix = "nlu/model/"
	setPrefix   = "nlu/phraseset/"
)

func modelKey(owner, id string) string { return modelPrefix + url.PathEscape(owner) + "/" + id }
func setKey(owner, id string) string   { return setPrefix + url.PathEscape(owner) + "/" + id }

// NewService loads the stored phrase sets and models (re-training intent
// classifiers and recompiling matchers). A stored model that no longer
// compiles is kept and answers analysis with the error.
func NewService(store Store, opts Options) (*Service, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: nil store", ErrInvalid)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	policy, _ := outbound.New(opts.AllowOutbound) // checked by Validate
	s := &Service{store: store, opts: opts.withDefaults(), policy: policy, client: policy.Client(), models: map[string]*modelEntry{}, sets: map[string]*compiledSet{}, embCache: newEmbeddingCache(maxCachedEmbeddings)}
	if err := s.startShared(); err != nil {
		return nil, err
	}
	err := store.Scan(setPrefix, func(key string, value []byte) error {
		var ps PhraseSet
		if err := json.Unmarshal(value, &ps); err != nil {
			return fmt.Errorf("decode phrase set %s: %w", key, err)
		}
		cs, err := compilePhraseSet(ps)
		if err != nil {
			return fmt.Errorf("compile phrase set %s: %w", key, err)
		}
		s.sets[setKey(ps.Owner, ps.PhraseSetID)] = cs
		s.noteLoaded(key, value)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("nlu: load phrase sets: %w", err)
	}
	err = store.Scan(modelPrefix, func(key string, value []byte) error {
		var sm storedModel
		if err := json.Unmarshal(value, &sm); err != nil {
			return fmt.Errorf("decode model %s: %w", key, err)
		}
		e := &modelEntry{m: sm.Model, createdBy: sm.CreatedBy, seq: sm.Seq}
		e.ann, e.err = s.buildAnnotator(context.Background(), sm.Model)
		s.models[modelKey(sm.Model.Owner, sm.Model.ModelID)] = e
		s.seq = max(s.seq, sm.Seq)
		s.noteLoaded(key, value)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("nlu: load models: %w", err)
	}
	return s, nil
}

// CreateModel validates body (a Model without model_id and owner), trains
// or compiles it, stores it and returns it with its assigned model_id.
// Inline builtin-ner and closed-ner members of a pipeline become models of
// their own whose ids replace them in pipeline.models.
func (s *Service) CreateModel(ctx context.Context, owner string, body []byte) (Model, error) {
	m, members, ann, err := s.prepareModel(ctx, body, true, "", owner)
	if err != nil {
		return Model{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m.ModelID = uuid.NewString()
	m.Owner = owner
	if err := s.putModelLocked(m, ann, members, ""); err != nil {
		return Model{}, err
	}
	return s.models[modelKey(owner, m.ModelID)].m, nil
}

// prepareModel catches up with the models other replicas stored (sync),
// then parses a create (create is true) or update body of the owner's model
// id and trains or compiles its annotator, before any lock is taken.
func (s *Service) prepareModel(ctx context.Context, body []byte, create bool, id, owner string) (Model, []member, annotator, error) {
	if err := s.sync(ctx); err != nil {
		return Model{}, nil, nil, err
	}
	m, members, err := parseModel(body, create, id, owner)
	if err != nil {
		return Model{}, nil, nil, err
	}
	ann, err := s.buildAnnotator(ctx, m)
	if err != nil {
		return Model{}, nil, nil, err
	}
	return m, members, ann, nil
}

// UpdateModel replaces the configuration of model id with body. Nothing of
// the earlier configuration is kept: a field omitted in body is gone.
func (s *Service) UpdateModel(ctx context.Context, owner, id string, body []byte) (Model, error) {
	m, members, ann, err := s.prepareModel(ctx, body, false, id, owner)
	if err != nil {
		return Model{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.models[modelKey(owner, id)]
	if !ok {
		return Model{}, fmt.Errorf("model %q: %w", id, ErrNotFound)
	}
	m.ModelID = id
	m.Owner = owner
	if err := s.putModelLocked(m, ann, members, old.createdBy); err != nil {
		return Model{}, err
	}
	if err := s.collectLocked(owner, id, old.m); err != nil {
		return Model{}, err
	}
	return s.models[modelKey(owner, id)].m, nil
}

// putModelLocked checks references, creates inline members and stores m.
func (s *Service) putModelLocked(m Model, ann annotator, members []member, createdBy string) error {
	if err := s.checkPhraseSetsLocked(m.Owner, m.PhraseSetIDs, "phrase_set_ids"); err != nil {
		return err
	}
	if m.Type == TypePipeline {
		ids := make([]string, len(members))
		for i, mb := range members {
			field := fmt.Sprintf("pipeline.models[%d]", i)
			if mb.inline != nil {
				if err := s.checkPhraseSetsLocked(m.Owner, mb.inline.PhraseSetIDs, field+".phrase_set_ids"); err != nil {
					return err
				}
				continue
			}
			if mb.ref == m.ModelID {
				return fmt.Errorf("%w: %s: a pipeline cannot contain itself", ErrInvalid, field)
			}
			if _, ok := s.models[modelKey(m.Owner, mb.ref)]; !ok {
				return fmt.Errorf("%w: %s: model %q does not exist", ErrInvalid, field, mb.ref)
			}
			if s.reachesLocked(m.Owner, mb.ref, m.ModelID) {
				return fmt.Errorf("%w: %s: model %q contains pipeline %q, which would make a cycle", ErrInvalid, field, mb.ref, m.ModelID)
			}
			ids[i] = mb.ref
		}
		for i, mb := range members {
			if mb.inline == nil {
				continue
			}
			im := *mb.inline
			im.ModelID = uuid.NewString()
			im.Owner = m.Owner
			ia, err := s.buildAnnotator(context.Background(), im)
			if err != nil {
				return fmt.Errorf("pipeline.models[%d]: %w", i, err)
			}
			if err := s.storeModelLocked(im, ia, m.ModelID); err != nil {
				return err
			}
			ids[i] = im.ModelID
		}
		m.Pipeline = &Pipeline{Models: ids}
	}
	return s.storeModelLocked(m, ann, createdBy)
}

func (s *Service) storeModelLocked(m Model, ann annotator, createdBy string) error {
	k := modelKey(m.Owner, m.ModelID)
	seq := s.seq + 1
	if old, ok := s.models[k]; ok {
		seq = old.seq
	} else {
		s.seq = seq
	}
	raw, err := json.Marshal(storedModel{Model: m, CreatedBy: createdBy, Seq: seq})
	if err != nil {
		return fmt.Errorf("nlu: encode model %s: %w", m.ModelID, err)
	}
	if err := s.store.Put(k, raw); err != nil {
		return fmt.Errorf("nlu: store model %s: %w", m.ModelID, err)
	}
	s.noteWritten(k, raw)
	s.models[k] = &modelEntry{m: m, createdBy: createdBy, seq: seq, ann: ann}
	return nil
}

// reachesLocked reports whether model from (transitively) contains target.
func (s *Service) reachesLocked(owner, from, target string) bool {
	seen := map[string]bool{}
	var walk func(id string) bool
	walk = func(id string) bool {
		if id == target {
			return true
		}
		if seen[id] {
			return false
		}
		seen[id] = true
		e, ok := s.models[modelKey(owner, id)]
		if !ok || e.m.Pipeline == nil {
			return false
		}
		for _, c := range e.m.Pipeline.Models {
			if walk(c) {
				return true
			}
		}
		return false
	}
	return walk(from)
}

func (s *Service) checkPhraseSetsLocked(owner string, ids []string, field string) error {
	for i, id := range ids {
		if _, ok := s.sets[setKey(owner, id)]; !ok {
			return fmt.Errorf("%w: %s[%d]: phrase set %q does not exist", ErrInvalid, field, i, id)
		}
	}
	return nil
}

// usersLocked returns the ids of the owner's pipelines that list model id.
func (s *Service) usersLocked(owner, id string) []string {
	var out []string
	for _, e := range s.models {
		if e.m.Owner != owner || e.m.Pipeline == nil {
			continue
		}
		for _, c := range e.m.Pipeline.Models {
			if c == id {
				out = append(out, e.m.ModelID)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// collectLocked deletes the inline members pipeline id created that old
// listed and nothing lists any more.
func (s *Service) collectLocked(owner, id string, old Model) error {
	if old.Pipeline == nil {
		return nil
	}
	for _, c := range old.Pipeline.Models {
		e, ok := s.models[modelKey(owner, c)]
		if !ok || e.createdBy != id || len(s.usersLocked(owner, c)) > 0 {
			continue
		}
		if err := s.store.Delete(modelKey(owner, c)); err != nil {
			return fmt.Errorf("nlu: delete model %s: %w", c, err)
		}
		delete(s.models, modelKey(owner, c))
		s.noteWritten(modelKey(owner, c), nil)
	}
	return nil
}

// GetModel returns the owner's model id.
func (s *Service) GetModel(ctx context.Context, owner, id string) (Model, error) {
	if err := s.sync(ctx); err != nil {
		return Model{}, err
	}
	e, err := lookup(s, s.models, modelKey(owner, id), "model", id)
	if err != nil {
		return Model{}, err
	}
	return e.m, nil
}

// lookup returns m[k] (m is one of s's maps) under s's read lock, or
// ErrNotFound naming the kind of entry and its id.
func lookup[V any](s *Service, m map[string]V, k, kind, id string) (V, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := m[k]
	if !ok {
		return v, fmt.Errorf("%s %q: %w", kind, id, ErrNotFound)
	}
	return v, nil
}

// ListModels returns the owner's models in creation order.
func (s *Service) ListModels(ctx context.Context, owner string) ([]Model, error) {
	if err := s.sync(ctx); err != nil {
		return nil, err
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	var es []*modelEntry
	for _, e := range s.models {
		if e.m.Owner == owner {
			es = append(es, e)
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].seq < es[j].seq })
	out := make([]Model, len(es))
	for i, e := range es {
		out[i] = e.m
	}
	return out, nil
}

// DeleteModel deletes the owner's model id. A model listed by a pipeline
// answers ErrConflict naming the pipelines. Deleting a pipeline also deletes
// the inline members it created that nothing else lists.
func (s *Service) DeleteModel(ctx context.Context, owner, id string) error {
	if err := s.sync(ctx); err != nil {
		return err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.models[modelKey(owner, id)]
	if !ok {
		return fmt.Errorf("model %q: %w", id, ErrNotFound)
	}
	if users := s.usersLocked(owner, id); len(users) > 0 {
		return fmt.Errorf("%w: model %q is used by pipeline %s; remove it from there first", ErrConflict, id, strings.Join(users, ", "))
	}
	if err := s.store.Delete(modelKey(owner, id)); err != nil {
		return fmt.Errorf("nlu: delete model %s: %w", id, err)
	}
	delete(s.models, modelKey(owner, id))
	s.noteWritten(modelKey(owner, id), nil)
	return s.collectLocked(owner, id, e.m)
}

// CreatePhraseSet validates body (a PhraseSet without phrase_set_id and
// owner), compiles and stores it.
func (s *Service) CreatePhraseSet(ctx context.Context, owner string, body []byte) (PhraseSet, error) {
	if err := s.sync(ctx); err != nil {
		return PhraseSet{}, err
	}

	ps, err := parsePhraseSet(body, true, "", owner)
	if err != nil {
		return PhraseSet{}, err
	}
	ps.PhraseSetID = uuid.NewString()
	ps.Owner = owner
	return s.putPhraseSet(ps, false)
}

// UpdatePhraseSet replaces phrase set id; closed-ner models using it match
// the new phrases from the next analysis on.
func (s *Service) UpdatePhraseSet(ctx context.Context, owner, id string, body []byte) (PhraseSet, error) {
	if err := s.sync(ctx); err != nil {
		return PhraseSet{}, err
	}

	ps, err := parsePhraseSet(body, false, id, owner)
	if err != nil {
		return PhraseSet{}, err
	}
	ps.PhraseSetID = id
	ps.Owner = owner
	return s.putPhraseSet(ps, true)
}

func (s *Service) putPhraseSet(ps PhraseSet, mustExist bool) (PhraseSet, error) {
	cs, err := compilePhraseSet(ps)
	if err != nil {
		return PhraseSet{}, err
	}
	raw, err := json.Marshal(ps)
	if err != nil {
		return PhraseSet{}, fmt.Errorf("nlu: encode phrase set: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := setKey(ps.Owner, ps.PhraseSetID)
	if _, ok := s.sets[k]; mustExist && !ok {
		return PhraseSet{}, fmt.Errorf("phrase set %q: %w", ps.PhraseSetID, ErrNotFound)
	}
	if err := s.store.Put(k, raw); err != nil {
		return PhraseSet{}, fmt.Errorf("nlu: store phrase set %s: %w", ps.PhraseSetID, err)
	}
	s.sets[k] = cs
	s.noteWritten(k, raw)
	return ps, nil
}

// GetPhraseSet returns the owner's phrase set id.
func (s *Service) GetPhraseSet(ctx context.Context, owner, id string) (PhraseSet, error) {
	if err := s.sync(ctx); err != nil {
		return PhraseSet{}, err
	}
	cs, err := lookup(s, s.sets, setKey(owner, id), "phrase set", id)
	if err != nil {
		return PhraseSet{}, err
	}
	return cs.ps, nil
}

// ListPhraseSets returns the owner's phrase sets sorted by name, then id.
func (s *Service) ListPhraseSets(ctx context.Context, owner string) ([]PhraseSet, error) {
	if err := s.sync(ctx); err != nil {
		return nil, err
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []PhraseSet{}
	for _, cs := range s.sets {
		if cs.ps.Owner == owner {
			out = append(out, cs.ps)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].PhraseSetID < out[j].PhraseSetID
	})
	return out, nil
}

// DeletePhraseSet deletes the owner's phrase set id; a set that a
// closed-ner model uses answers ErrConflict naming the models.
func (s *Service) DeletePhraseSet(ctx context.Context, owner, id string) error {
	if err := s.sync(ctx); err != nil {
		return err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	k := setKey(owner, id)
	if _, ok := s.sets[k]; !ok {
		return fmt.Errorf("phrase set %q: %w", id, ErrNotFound)
	}
	var users []string
	for _, e := range s.models {
		if e.m.Owner == owner {
			for _, p := range e.m.PhraseSetIDs {
				if p == id {
					users = append(users, e.m.ModelID)
					break
				}
			}
		}
	}
	if len(users) > 0 {
		sort.Strings(users)
		return fmt.Errorf("%w: phrase set %q is used by model %s; delete or update those first", ErrConflict, id, strings.Join(users, ", "))
	}
	if err := s.store.Delete(k); err != nil {
		return fmt.Errorf("nlu: delete phrase set %s: %w", id, err)
	}
	delete(s.sets, k)
	s.noteWritten(k, nil)
	return nil
}
