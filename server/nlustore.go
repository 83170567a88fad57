package server

import (
	"errors"

	"github.com/najdi/najdi/nlu"
	"github.com/najdi/najdi/segment"
)

// NLUStore adapts the segment store's durable key-values to nlu.Store.
func NLUStore(st *segment.Store) nlu.Store { return nluStore{st} }

type nluStore struct{ st *segment.Store }

func (s nluStore) Get(key string) ([]byte, error) {
	v, err := s.st.KVGet("nlu/" + key)
	if errors.Is(err, segment.ErrNotFound) {
		return nil, nlu.ErrNotFound
	}
	return v, err
}

func (s nluStore) Put(key string, value []byte) error { return s.st.KVPut("nlu/"+key, value) }

func (s nluStore) Delete(key string) error { return s.st.KVDelete("nlu/" + key) }

func (s nluStore) Scan(prefix string, fn func(key string, value []byte) error) error {
	return s.st.KVScan("nlu/"+prefix, func(k string, v []byte) error { return fn(k[len("nlu/"):], v) })
}
