package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"

	"github.com/najdi/najdi/bench"
)

// runDiacritics evaluates Czech diacritics restoration on UD Czech-CAC.
func runDiacritics(args []string) error {
	fs := flag.NewFlagSet("diacritics", flag.ContinueOnError)
	dir := fs.String("data", "../shared/data/czech/ud_czech_cac", "directory with the UD Czech-CAC .conllu files")
	max := fs.Int("max", 0, "use at most this many sentences (0: all)")
	errs := fs.Int("errors", 0, "print this many wrongly restored words")
	extra := fs.String("extra", "", "comma-separated extra .conllu or .json ([{\"text\": ...}]) files, e.g. ../shared/data/entities/cs_restaurant/devel.json")
	noDict := fs.Bool("no-dictionary", false, "use the built-in lexicon alone, without the Hunspell dictionary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := bench.DiacriticsConfig{
		Files:        []string{filepath.Join(*dir, "cs_cac-ud-dev.conllu"), filepath.Join(*dir, "cs_cac-ud-test.conllu")},
		MaxSentences: *max,
		Errors:       *errs,
		NoDictionary: *noDict,
	}
	if *extra != "" {
		cfg.Files = append(cfg.Files, strings.Split(*extra, ",")...)
	}
	return bench.RunDiacritics(cfg, os.Stdout)
}
