package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/najdi/najdi/internal/evaldata"
	"github.com/najdi/najdi/nlu"
)

// nluManyMin is the fewest utterances a fine-grained class needs: 10 to
// train on and 20 to test.
const nluManyMin = 30

// nluFineGrained reads SNIPS train_*_full.json and labels every utterance
// with its intent and the sorted set of its slot types
// ("PlayMusic:artist+service"), a proxy for a set of many, partly
// confusable intents: shared/data has no set of more than 100 intents.
// Only classes with at least nluManyMin utterances are kept.
func nluFineGrained(dataDir string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, in := range nluSnipsIntents {
		us, err := evaldata.ReadSnips(evaldata.SnipsPath(dataDir, in, evaldata.SnipsTrain(in)), in, 0)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			slots := slices.Clone(u.Slots)
			sort.Strings(slots)
			k := in + ":" + strings.Join(slots, "+")
			out[k] = append(out[k], u.Text)
		}
	}
	for k, v := range out {
		if len(v) < nluManyMin {
			delete(out, k)
		}
	}
	return out, nil
}

// nluManyIntents measures 10-shot accuracy on the fine-grained SNIPS
// classes (nluFineGrained): per seeded draw, 10 training and 20 test
// utterances per class, and out-of-scope recall on nluOutOfScope texts.
func nluManyIntents(cfg NLUConfig, w io.Writer) error {
	classes, err := nluFineGrained(cfg.DataDir)
	if err != nil {
		return err
	}
	oos, err := nluOutOfScope(cfg.DataDir, 700)
	if err != nil {
		return err
	}
	names := sortedKeysOf(classes)
	emb := cfg.Embedder
	if emb != nil {
		emb = nluMemo(emb)
	}
	fmt.Fprintf(w, "== many-intent proxy: %d fine-grained SNIPS classes (intent + slot types, >= %d utterances each), 10 training and 20 test utterances per class, %d draws; embeddings: %s\n",
		len(names), nluManyMin, cfg.FewShotDraws, cfg.embedName())
	ctx := context.Background()
	gib := nluGibberish()
	var accs, accepted, coarse, recalls, fixed []float64
	var leaks []string
	var trainTimes []time.Duration
	for draw := range cfg.FewShotDraws {
		rng := rand.New(rand.NewPCG(uint64(draw), 150))
		train := map[string][]string{}
		var test []nluLabeled
		for _, k := range names {
			p := rng.Perm(len(classes[k]))
			for _, i := range p[:10] {
				train[k] = append(train[k], classes[k][i])
			}
			for _, i := range p[10:30] {
				test = append(test, nluLabeled{classes[k][i], k})
			}
		}
		sc, took, err := nluTrainEvaluate(ctx, train, emb, test, oos, gib)
		if err != nil {
			return err
		}
		trainTimes = append(trainTimes, took)
		sameIntent := 0
		for i, v := range test {
			a, _, _ := strings.Cut(sc.top[i].Intent, ":")
			b, _, _ := strings.Cut(v.intent, ":")
			if a == b {
				sameIntent++
			}
		}
		accs = append(accs, nluRatio(sc.correct, len(test)))
		accepted = append(accepted, nluRatio(sc.accepted, len(test)))
		coarse = append(coarse, nluRatio(sameIntent, len(test)))
		recalls = append(recalls, sc.recall(nlu.DefaultThreshold))
		fixed = append(fixed, sc.fixedRecall(0.98))
		leaks = append(leaks, fmt.Sprint(sc.gibLeaks))
	}
	mean := nluMean
	fmt.Fprintf(w, "top-1 accuracy %.4f (draws %s); the SNIPS intent of the top class right %.4f\n", mean(accs), nluFormat(accs), mean(coarse))
	fmt.Fprintf(w, "at the default threshold %.2f: in-scope accuracy %.4f (out_of_scope counted wrong), out-of-scope recall %.4f (draws %s)\n", nlu.DefaultThreshold, mean(accepted), mean(recalls), nluFormat(recalls))
	fmt.Fprintf(w, "out-of-scope recall at the threshold keeping 98%% of correct in-scope answers: %.4f (draws %s)\n", mean(fixed), nluFormat(fixed))
	fmt.Fprintf(w, "gibberish at %.2f or more, of %d (draws): %s\n", nlu.DefaultThreshold, len(gib), strings.Join(leaks, " "))
	fmt.Fprintf(w, "training %d examples: %v per classifier (mean; embeddings memoized across draws)\n\n", 10*len(names), nluMeanDuration(trainTimes).Round(time.Millisecond))
	return nil
}
