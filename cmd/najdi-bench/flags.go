package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
)

// scifactDir is the default -beir directory: SciFact in the shared data.
const scifactDir = "../shared/data/beir/scifact"

// modelFlags registers -models and -ort-lib, defaulting to the model cache
// (embed.DefaultCacheDir, laid out by scripts/install-models.sh).
func modelFlags(fs *flag.FlagSet, models, ortLib *string) {
	m, lib := embed.CachePaths(embed.DefaultCacheDir())
	fs.StringVar(models, "models", m, "embedding models directory")
	fs.StringVar(ortLib, "ort-lib", lib, "ONNX Runtime library")
}

// sciFactFlags registers -beir, -dir (described by dirUsage), -models,
// -ort-lib and -cache (default: the file cacheFile under the bench
// directory of the model cache).
func sciFactFlags(fs *flag.FlagSet, s *bench.SciFactSetup, dirUsage, cacheFile string) {
	fs.StringVar(&s.BEIRDir, "beir", scifactDir, "BEIR SciFact directory")
	fs.StringVar(&s.Dir, "dir", "", dirUsage)
	modelFlags(fs, &s.Models, &s.ORTLib)
	fs.StringVar(&s.Cache, "cache", filepath.Join(embed.DefaultCacheDir(), "bench", cacheFile), "passage vector cache (reruns skip embedding)")
}

// listFlag registers a flag holding a comma-separated list of numbers,
// stored in *dst; empty items are dropped. def is the default list, which
// a value given on the command line replaces.
func listFlag[T int | float64](fs *flag.FlagSet, dst *[]T, name, def, usage string) {
	l := &numList[T]{dst: dst}
	if err := l.Set(def); err != nil {
		panic(fmt.Sprintf("BUG: default of -%s: %v", name, err))
	}
	l.set = false
	fs.Var(l, name, usage)
}

// numList is the flag.Value of listFlag.
type numList[T int | float64] struct {
	dst *[]T
	set bool // a value was given: later values append to it
}

// String returns the list as it is written on the command line.
func (l *numList[T]) String() string {
	if l == nil || l.dst == nil {
		return ""
	}
	s := make([]string, len(*l.dst))
	for i, v := range *l.dst {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ",")
}

// Set parses a comma-separated list, replacing the default.
func (l *numList[T]) Set(s string) error {
	if !l.set {
		*l.dst = nil
		l.set = true
	}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		var v T
		var err error
		switch p := any(&v).(type) {
		case *int:
			*p, err = strconv.Atoi(f)
		case *float64:
			*p, err = strconv.ParseFloat(f, 64)
		}
		if err != nil {
			return fmt.Errorf("%q is not a number", f)
		}
		*l.dst = append(*l.dst, v)
	}
	return nil
}
