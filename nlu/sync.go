package nlu

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
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
// When the store's version moved it reads the store and builds what
// changed without holding s.mu (readChanges), then applies it under s.mu
// unless a write of this Service raced (applyChanges).
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
	known := maps.Clone(s.shared.hashes)
	s.mu.RUnlock()
	c, err := s.readChanges(known)
	if err != nil {
		return err
	}
	s.applyChanges(c, writes, v)
	return nil
}

// storeChanges is what sync read from the store: the hash of every key
// present, and the phrase sets and models whose bytes are not the loaded
// ones, built; seq is the largest sequence of those models.
type storeChanges struct {
	present map[string][32]byte
	sets    map[string]*compiledSet
	models  map[string]*modelEntry
	seq     uint64
}

// readChanges scans the phrase sets, then the models, and builds those
// whose hash is not in known.
func (s *Service) readChanges(known map[string][32]byte) (*storeChanges, error) {
	c := &storeChanges{present: map[string][32]byte{}, sets: map[string]*compiledSet{}, models: map[string]*modelEntry{}}
	// changed records the key's hash and reports whether its bytes are
	// not the loaded ones.
	changed := func(key string, value []byte) bool {
		h := sha256.Sum256(value)
		c.present[key] = h
		old, ok := known[key]
		return !ok || old != h
	}
	err := s.store.Scan(setPrefix, func(key string, value []byte) error {
		if !changed(key, value) {
			return nil
		}
		_, cs, err := loadPhraseSet(key, value)
		if err != nil {
			return err
		}
		c.sets[key] = cs
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("nlu: reload phrase sets: %w", err)
	}
	err = s.store.Scan(modelPrefix, func(key string, value []byte) error {
		if !changed(key, value) {
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
		c.models[key] = e
		c.seq = max(c.seq, sm.Seq)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("nlu: reload models: %w", err)
	}
	return c, nil
}

// applyChanges drops the sets and models no longer present, puts in the
// changed ones and records version v as loaded; it does nothing when this
// Service wrote since sync read writes (the next call reads again).
func (s *Service) applyChanges(c *storeChanges, writes uint64, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shared.writes != writes {
		return
	}
	for k := range s.sets {
		if _, ok := c.present[k]; !ok {
			delete(s.sets, k)
		}
	}
	for k := range s.models {
		if _, ok := c.present[k]; !ok {
			delete(s.models, k)
		}
	}
	maps.Copy(s.sets, c.sets)
	maps.Copy(s.models, c.models)
	s.seq = max(s.seq, c.seq)
	s.shared.hashes = c.present
	s.shared.version = v
}
