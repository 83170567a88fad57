package nlu

import (
	"sort"
	"strings"
	"sync"
)

// Store is the durable key-value store the Service keeps models and phrase
// sets in. Get returns an error wrapping ErrNotFound for an absent key. Scan
// calls fn for every key with the prefix in key order; values passed to fn
// are only valid during the call.
type Store interface {
	Get(key string) ([]byte, error)
	Put(key string, value []byte) error
	Delete(key string) error
	Scan(prefix string, fn func(key string, value []byte) error) error
}

// MemStore is an in-memory Store for tests and ephemeral servers. The zero
// value is ready to use.
type MemStore struct {
	mu sync.RWMutex
	m  map[string][]byte
}

// Get implements Store.
func (s *MemStore) Get(key string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[key]
	if !ok {
		return nil, ErrNotFound
	}
	return append([]byte(nil), v...), nil
}

// Put implements Store; it copies value.
func (s *MemStore) Put(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = append([]byte(nil), value...)
	return nil
}

// Delete implements Store; deleting an absent key is not an error.
func (s *MemStore) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// Scan implements Store.
func (s *MemStore) Scan(prefix string, fn func(key string, value []byte) error) error {
	s.mu.RLock()
	var keys []string
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	vals := make([][]byte, len(keys))
	sort.Strings(keys)
	for i, k := range keys {
		vals[i] = s.m[k]
	}
	s.mu.RUnlock()
	for i, k := range keys {
		if err := fn(k, vals[i]); err != nil {
			return err
		}
	}
	return nil
}
