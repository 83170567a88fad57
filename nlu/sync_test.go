package nlu

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
)

// versionedStore is a MemStore shared by several Services, with the
// version token a SharedStore keeps: changed after every write.
type versionedStore struct {
	MemStore
	v atomic.Int64
}

func (s *versionedStore) Put(key string, value []byte) error {
	err := s.MemStore.Put(key, value)
	s.v.Add(1)
	return err
}

func (s *versionedStore) Delete(key string) error {
	err := s.MemStore.Delete(key)
	s.v.Add(1)
	return err
}

func (s *versionedStore) Version() (string, error) { return strconv.FormatInt(s.v.Load(), 10), nil }

// TestSharedStoreReplicas runs two Services on one SharedStore (two najdi
// replicas on one cluster): what one creates, updates or deletes the
// other serves from its next call, and an unchanged model is not rebuilt.
func TestSharedStoreReplicas(t *testing.T) {
	ctx := context.Background()
	st := &versionedStore{}
	a, err := NewService(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewService(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps := mustSet(t, a, "alice", `{"name": "colours", "phrases": [{"text": "red"}]}`)
	if got, err := b.GetPhraseSet(ctx, "alice", ps.PhraseSetID); err != nil || got.Name != "colours" {
		t.Fatalf("b: phrase set made on a: %v %v", got, err)
	}
	// b creates a model over a's phrase set; a analyzes with it.
	m := mustCreate(t, b, "alice", fmt.Sprintf(`{"name": "closed-ner", "phrase_set_ids": [%q]}`, ps.PhraseSetID))
	entities := func(s *Service, text string) []string {
		t.Helper()
		an, err := s.Analyze(ctx, "alice", m.ModelID, text)
		if err != nil {
			t.Fatalf("analyze %q: %v", text, err)
		}
		var out []string
		for _, x := range an.Annotations {
			out = append(out, text[x.Start:x.End])
		}
		return out
	}
	if got := entities(a, "red or green"); len(got) != 1 || got[0] != "red" {
		t.Fatalf("a with b's model: %v, want [red]", got)
	}
	b.mu.RLock()
	ann := b.models[modelKey("alice", m.ModelID)].ann
	b.mu.RUnlock()
	// a updates the phrase set: b matches the new phrases at once.
	if _, err := a.UpdatePhraseSet(ctx, "alice", ps.PhraseSetID, []byte(`{"name": "colours", "phrases": [{"text": "green"}]}`)); err != nil {
		t.Fatal(err)
	}
	if got := entities(b, "red or green"); len(got) != 1 || got[0] != "green" {
		t.Fatalf("b after a's update: %v, want [green]", got)
	}
	b.mu.RLock()
	same := b.models[modelKey("alice", m.ModelID)].ann == ann
	b.mu.RUnlock()
	if !same {
		t.Error("b rebuilt its unchanged model on reload")
	}
	if ms, _ := a.ListModels(ctx, "alice"); len(ms) != 1 {
		t.Fatalf("a lists %d models, want 1", len(ms))
	}
	// Deletes: the set is in use on a's view too (conflict), then the
	// model deleted on a is gone on b.
	if err := b.DeletePhraseSet(ctx, "alice", ps.PhraseSetID); !errors.Is(err, ErrConflict) {
		t.Fatalf("b delete set in use = %v, want ErrConflict", err)
	}
	if err := a.DeleteModel(ctx, "alice", m.ModelID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GetModel(ctx, "alice", m.ModelID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("b: model deleted on a = %v, want ErrNotFound", err)
	}
	if err := b.DeletePhraseSet(ctx, "alice", ps.PhraseSetID); err != nil {
		t.Fatalf("b delete set: %v", err)
	}
	if sets, _ := a.ListPhraseSets(ctx, "alice"); len(sets) != 0 {
		t.Fatalf("a lists %d phrase sets after b deleted it", len(sets))
	}
}
