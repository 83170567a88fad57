package ner

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/najdi/najdi/nlu/token"
)

// WordStates returns one contextual vector per word (an embedding model's
// last hidden states averaged over the word's pieces; embed.Local's
// WordStates).
type WordStates func(ctx context.Context, words []string) ([][]float32, error)

// englishContextualModel is the English tagger with a contextual layer
// over bge-small-en-v1.5 word vectors, trained on CoNLL-2003 train.txt by
// scripts/build-nlu-ner.go -contextual bge-small-en-v1.5.
//
//go:embed en-ctx.model.gz
var englishContextualModel []byte

// englishContextualTagger loads englishContextualModel once.
var englishContextualTagger = embeddedTagger(englishContextualModel)

// EnglishContextual returns the embedded English tagger that also reads
// contextual word vectors; Contextual names the embedding model they must
// come from.
func EnglishContextual() (*Tagger, error) { return englishContextualTagger() }

// maxStateWords bounds the words of one WordStates call: sentences are
// embedded one by one (as in training), and a longer run without a
// sentence end is cut.
const maxStateWords = 128

// TagEnglishContext is TagEnglish with the contextual tagger when states
// is not nil: the words are embedded sentence by sentence with states
// (which must give the vectors of the model EnglishContextual names). An
// error of states is returned.
func TagEnglishContext(ctx context.Context, toks []token.Token, states WordStates) ([]NameSpan, error) {
	if states == nil {
		return TagEnglish(toks)
	}
	t, err := EnglishContextual()
	if err != nil {
		return nil, err
	}
	ws, words := englishWordTexts(toks)
	vecs := make([][]float32, 0, len(words))
	for lo := 0; lo < len(words); {
		hi := lo
		for hi < len(words) && hi-lo < maxStateWords {
			hi++
			if w := words[hi-1]; w == "." || w == "!" || w == "?" {
				break
			}
		}
		v, err := states(ctx, words[lo:hi])
		if err != nil {
			return nil, fmt.Errorf("ner: word vectors: %w", err)
		}
		if len(v) != hi-lo {
			return nil, fmt.Errorf("ner: word vectors: %d for %d words", len(v), hi-lo)
		}
		if _, dims := t.Contextual(); len(v) > 0 && len(v[0]) != dims {
			return nil, fmt.Errorf("ner: word vectors of %d floats, want %d", len(v[0]), dims)
		}
		vecs = append(vecs, v...)
		lo = hi
	}
	return namesOf(ws, t.TagVectors(words, vecs)), nil
}
