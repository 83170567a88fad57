package nlu

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
)

// SharedStore is a Store that other Services write too: several najdi
// replicas on one search cluster. Version returns a token that changes
// whenever a key is put or deleted through any of them (the store changes
// it after the write, so a reader that sees the new token sees the write);
// "" before the first write.
//
// On a SharedStore the Service checks the token before every call and,
// when it moved, reads the store again and applies what changed: new and
// changed models are rebuilt (intent classifiers retrained), deleted ones
// dropped; unchanged ones (by the hash of their stored bytes) are kept.
// So a model or phrase set created, updated or deleted through one
// replica is served by every other from its next call on.
type SharedStore interface {
	Store
	Version() (string, error)
}

// sharedState is what the Service knows of a SharedStore.
type sharedState struct {
	mu      sync.Mutex // one reload at a time
	on      bool       // the store is a SharedStore (else nothing below is kept)
	version string     // the token the loaded state is from
	// hashes of the stored bytes of every loaded key, and a counter of
	// this Service's own writes (both under Service.mu): a reload that
	// raced with a write is not applied.
	hashes map[string][32]byte
	writes uint64
}

// startShared reads the store's version before the first load, so that a
// write during the load makes the next call read again.
func (s *Service) startShared() error {
	ss, ok := s.store.(SharedStore)
	if !ok {
		return nil
	}
	v, err := ss.Version()
	if err != nil {
		return fmt.Errorf("nlu: read the store's version: %w", err)
	}
	s.shared.on, s.shared.version = true, v
	return nil
}

// noteLoaded records the hash of a key's stored bytes as loaded (during
// NewService; no lock needed).
func (s *Service) noteLoaded(key string, value []byte) {
	if !s.shared.on {
		return
	}
	if s.shared.hashes == nil {
		s.shared.hashes = map[string][32]byte{}
	}
	s.shared.hashes[key] = sha256.Sum256(value)
}

// noteWritten records this Service's write of key (nil value: deleted);
// s.mu is held.
func (s *Service) noteWritten(key string, value []byte) {
	if !s.shared.on {
		return
	}
	if s.shared.hashes == nil {
		s.shared.hashes = map[string][32]byte{}
	}
	if value == nil {
		delete(s.shared.hashes, key)
	} else {
		s.shared.hashes[key] = sha256.Sum256(value)
	}
	s.shared.writes++
}

// sync brings the models and phrase sets up to date with a SharedStore
// (nothing for another Store). A store that cannot be read is an error:
// the caller would otherwise act on a state the store may have left.
func (s *Service) sync(_ context.Context) error {
	ss, ok := s.store.(SharedStore)
	if !ok {
		return nil
	}
	s.shared.mu.Lock()
	defer s.shared.mu.Unlock()
	v, err := ss.Version()
	if err != nil {
		return fmt.Errorf("nlu: read the store's version: %w", err)
	}
	if v == s.shared.version {
		return nil
	}
	s.mu.RLock()
	writes := s.shared.writes
	known := make(map[string][32]byte, len(s.shared.hashes))
	for k, h := range s.shared.hashes {
		known[k] = h
	}
	s.mu.RUnlock()

	// Read everything; build what changed without holding s.mu.
	present := map[string][32]byte{}
	sets := map[string]*compiledSet{}
	err = s.store.Scan(setPrefix, func(key string, value []byte) error {
		h := sha256.Sum256(value)
		present[key] = h
		if old, ok := known[key]; ok && old == h {
			return nil
		}
		_, cs, err := loadPhraseSet(key, value)
		if err != nil {
			return err
		}
		sets[key] = cs
		return nil
	})
	if err != nil {
		return fmt.Errorf("nlu: reload phrase sets: %w", err)
	}
	models := map[string]*modelEntry{}
	var seq uint64
	err = s.store.Scan(modelPrefix, func(key string, value []byte) error {
		h := sha256.Sum256(value)
		present[key] = h
		if old, ok := known[key]; ok && old == h {
			return nil
		}
		var sm storedModel
		if err := json.Unmarshal(value, &sm); err != nil {
			return fmt.Errorf("decode model %s: %w", key, err)
		}
		e := &modelEntry{m: sm.Model, createdBy: sm.CreatedBy, seq: sm.Seq}
		// Not the caller's context: a cancelled request must not leave a
		// model that failed to build.
		e.ann, e.err = s.buildAnnotator(context.Background(), sm.Model)
		models[key] = e
		seq = max(seq, sm.Seq)
		return nil
	})
	if err != nil {
		return fmt.Errorf("nlu: reload models: %w", err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shared.writes != writes {
		return nil // a write of this Service raced: the next call reads again
	}
	for k := range s.sets {
		if _, ok := present[k]; !ok {
			delete(s.sets, k)
		}
	}
	for k := range s.models {
		if _, ok := present[k]; !ok {
			delete(s.models, k)
		}
	}
	for k, cs := range sets {
		s.sets[k] = cs
	}
	for k, e := range models {
		s.models[k] = e
	}
	s.seq = max(s.seq, seq)
	s.shared.hashes = present
	s.shared.version = v
	return nil
}
