package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/nlu"
)

// backendNLUStore keeps the NLU service's models and phrase sets as records
// of the search cluster (--cluster-url), beside the collection records, so
// that a replica started with an empty data directory has them. Values are
// stored as base64 JSON strings (the cluster stores JSON).
//
// It is an nlu.SharedStore: every put and delete then writes a new random
// token under versionKey, which every replica reads before each NLU call
// to see whether another replica changed a model or phrase set.
type backendNLUStore struct{ b engine.Backend }

var _ nlu.SharedStore = backendNLUStore{}

// versionKey is the record of the NLU records' version token (not under
// the model or phrase set prefixes).
const versionKey = nluRecordPrefix + ".version"

// Version returns the current version token ("" before the first write).
func (s backendNLUStore) Version() (string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	raw, err := s.b.GetRecord(ctx, versionKey)
	if errors.Is(err, engine.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("nlu store: version: %w", err)
	}
	return string(raw), nil
}

// bump writes a new version token after a write.
func (s backendNLUStore) bump() error {
	ctx, cancel := s.ctx()
	defer cancel()
	raw, _ := json.Marshal(uuid.NewString())
	if err := s.b.PutRecord(ctx, versionKey, raw); err != nil {
		return fmt.Errorf("nlu store: version: %w", err)
	}
	return nil
}

const nluRecordPrefix = "nlu/"

// nluTimeout bounds one record call.
const nluTimeout = time.Minute

func (s backendNLUStore) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), nluTimeout)
}

func (s backendNLUStore) Get(key string) ([]byte, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	raw, err := s.b.GetRecord(ctx, nluRecordPrefix+key)
	if errors.Is(err, engine.ErrNotFound) {
		return nil, nlu.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("nlu store: get %q: %w", key, err)
	}
	var v []byte
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("nlu store: decode %q: %w", key, err)
	}
	return v, nil
}

func (s backendNLUStore) Put(key string, value []byte) error {
	ctx, cancel := s.ctx()
	defer cancel()
	raw, err := json.Marshal(value)
	if err != nil {
		return err
	}
	if err := s.b.PutRecord(ctx, nluRecordPrefix+key, raw); err != nil {
		return fmt.Errorf("nlu store: put %q: %w", key, err)
	}
	return s.bump()
}

func (s backendNLUStore) Delete(key string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.b.DeleteRecord(ctx, nluRecordPrefix+key); err != nil {
		return fmt.Errorf("nlu store: delete %q: %w", key, err)
	}
	return s.bump()
}

func (s backendNLUStore) Scan(prefix string, fn func(key string, value []byte) error) error {
	ctx, cancel := s.ctx()
	keys, err := s.b.ListRecords(ctx, nluRecordPrefix+prefix)
	cancel()
	if err != nil {
		return fmt.Errorf("nlu store: list %q: %w", prefix, err)
	}
	for _, k := range keys {
		key := strings.TrimPrefix(k, nluRecordPrefix)
		v, err := s.Get(key)
		if errors.Is(err, nlu.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if err := fn(key, v); err != nil {
			return err
		}
	}
	return nil
}
