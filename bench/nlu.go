package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/najdi/najdi/internal/evaldata"
	"github.com/najdi/najdi/nlu"
	"github.com/najdi/najdi/nlu/intent"
	"github.com/najdi/najdi/nlu/ner"
	"github.com/najdi/najdi/nlu/phrase"
)

// Defaults of NLUConfig.
const (
	// DefaultNLUPerIntent is how many SNIPS training utterances per intent
	// the classifier sees (the first ones of train_<Intent>_full.json).
	DefaultNLUPerIntent = 100
	// DefaultNLULatencyRuns is how many analyses the latency workload times.
	DefaultNLULatencyRuns = 300
	// DefaultNLUPhrases is the size of the synthetic phrase set.
	DefaultNLUPhrases = 100000
	// DefaultNLUFewShot is the utterances per intent of the few-shot
	// workload.
	DefaultNLUFewShot = 10
	// DefaultNLUFewShotDraws is the number of few-shot training sets.
	DefaultNLUFewShotDraws = 5
)

// NLUConfig configures RunNLU.
type NLUConfig struct {
	// DataDir is shared/data; required.
	DataDir string
	// PerIntent caps SNIPS training utterances per intent; 0 means
	// DefaultNLUPerIntent.
	PerIntent int
	// LatencyRuns is the number of timed analyses; 0 means
	// DefaultNLULatencyRuns.
	LatencyRuns int
	// Phrases is the size of the synthetic phrase set; 0 means
	// DefaultNLUPhrases.
	Phrases int
	// Embedder optionally adds sentence embeddings to the intent classifier.
	Embedder intent.Embedder
	// EmbedderName names Embedder in the report.
	EmbedderName string
	// CzechEmbedder embeds the Czech few-shot workload's utterances
	// (optional; without it that workload runs on n-grams alone).
	CzechEmbedder intent.Embedder
	// CzechEmbedderName names CzechEmbedder in the report.
	CzechEmbedderName string
	// FewShotPerIntent is the training utterances per intent of the
	// few-shot workload; 0 means DefaultNLUFewShot.
	FewShotPerIntent int
	// FewShotDraws is the number of random few-shot training sets; 0
	// means DefaultNLUFewShotDraws.
	FewShotDraws int
	// TrainTimeOnly runs only the training-time workload (nluTrainTime),
	// after one warm-up embedding, TrainTimeRuns times.
	TrainTimeOnly bool
	// TrainTimeRuns is the number of timed trainings of TrainTimeOnly; 0
	// means 1.
	TrainTimeRuns int
	// WordStates optionally gives the contextual word vectors of the
	// model ner.EnglishContextual reads: the English NER workload then
	// also scores the contextual tagger, and the latency pipeline uses it.
	WordStates ner.WordStates
}

func (c NLUConfig) embedName() string {
	if c.Embedder == nil {
		return "none"
	}
	if c.EmbedderName == "" {
		return "yes"
	}
	return c.EmbedderName
}

// Validate checks the configuration.
func (c NLUConfig) Validate() error {
	if c.DataDir == "" {
		return errors.New("nlu config: no data directory")
	}
	if c.PerIntent < 0 || c.LatencyRuns < 0 || c.Phrases < 0 || c.FewShotPerIntent < 0 || c.FewShotDraws < 0 || c.TrainTimeRuns < 0 {
		return errors.New("nlu config: negative count")
	}
	return nil
}

func (c NLUConfig) withDefaults() NLUConfig {
	if c.PerIntent == 0 {
		c.PerIntent = DefaultNLUPerIntent
	}
	if c.LatencyRuns == 0 {
		c.LatencyRuns = DefaultNLULatencyRuns
	}
	if c.Phrases == 0 {
		c.Phrases = DefaultNLUPhrases
	}
	if c.FewShotPerIntent == 0 {
		c.FewShotPerIntent = DefaultNLUFewShot
	}
	if c.FewShotDraws == 0 {
		c.FewShotDraws = DefaultNLUFewShotDraws
	}
	return c
}

// RunNLU measures the NLU quality and latency figures and prints them to w:
// SNIPS intent accuracy, few-shot intent accuracy and out-of-scope recall
// (nluFewShot), the training time of 150 intents × 10 examples, CoNLL-2003 English NER P/R/F1, Czech name tagging
// on UD Czech-CAC, Czech closed-entity matching on cs_restaurant, analysis
// latency of a builtin-ner + closed-ner + intent-classifier pipeline, and
// phrase-matcher speed on a large synthetic set.
func RunNLU(cfg NLUConfig, w io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	if cfg.TrainTimeOnly {
		if cfg.Embedder != nil {
			if _, err := cfg.Embedder(context.Background(), []string{"warm up the model"}); err != nil {
				return err
			}
		}
		for range max(cfg.TrainTimeRuns, 1) {
			if err := nluTrainTime(cfg, w); err != nil {
				return err
			}
		}
		return nil
	}
	train, valid, err := nluSnips(cfg.DataDir, cfg.PerIntent)
	if err != nil {
		return err
	}
	if err := nluIntents(cfg, train, valid, w); err != nil {
		return err
	}
	if err := nluFewShot(cfg, w); err != nil {
		return err
	}
	if err := nluManyIntents(cfg, w); err != nil {
		return err
	}
	if err := nluTrainTime(cfg, w); err != nil {
		return err
	}
	if err := nluCzechFewShot(cfg, w); err != nil {
		return err
	}
	if err := nluEnglishNER(cfg.DataDir, cfg.WordStates, w); err != nil {
		return err
	}
	if err := nluCzechNER(cfg.DataDir, w); err != nil {
		return err
	}
	sets, err := evaldata.ReadSurfaceForms(cfg.DataDir)
	if err != nil {
		return err
	}
	if err := nluClosed(cfg.DataDir, sets, w); err != nil {
		return err
	}
	if err := nluLatency(cfg, train, valid, sets, w); err != nil {
		return err
	}
	return nluPhraseScale(cfg.Phrases, w)
}

var nluSnipsIntents = evaldata.SnipsIntents

type nluLabeled struct{ text, intent string }

// nluSnips reads the first perIntent utterances of every SNIPS intent's
// training file (perIntent <= 0: all) and all validation utterances.
func nluSnips(dataDir string, perIntent int) (map[string][]string, []nluLabeled, error) {
	train := map[string][]string{}
	var valid []nluLabeled
	for _, in := range nluSnipsIntents {
		tr, err := evaldata.ReadSnipsTexts(evaldata.SnipsPath(dataDir, in, evaldata.SnipsTrain(in)), in, max(perIntent, 0))
		if err != nil {
			return nil, nil, err
		}
		train[in] = tr
		va, err := evaldata.ReadSnipsTexts(evaldata.SnipsPath(dataDir, in, evaldata.SnipsValid(in)), in, 0)
		if err != nil {
			return nil, nil, err
		}
		for _, v := range va {
			valid = append(valid, nluLabeled{v, in})
		}
	}
	return train, valid, nil
}

func nluRatio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func nluIntents(cfg NLUConfig, train map[string][]string, valid []nluLabeled, w io.Writer) error {
	ctx := context.Background()
	start := time.Now()
	c, err := intent.Train(ctx, train, intent.Options{Embedder: cfg.Embedder})
	if err != nil {
		return err
	}
	trainTime := time.Since(start)
	type counts struct{ tp, fp, fn int }
	per := map[string]*counts{}
	for _, in := range nluSnipsIntents {
		per[in] = &counts{}
	}
	confOK, confBad := 0.0, 0.0
	nBad := 0
	start = time.Now()
	sc, err := nluEvaluate(ctx, c, valid, nil)
	if err != nil {
		return err
	}
	correct, accepted := sc.correct, sc.accepted
	for i, v := range valid {
		got := sc.top[i]
		if got.Intent == v.intent {
			per[v.intent].tp++
			confOK += got.Probability
		} else {
			per[v.intent].fn++
			per[got.Intent].fp++
			confBad += got.Probability
			nBad++
		}
	}
	perText := time.Since(start) / time.Duration(len(valid))
	fmt.Fprintf(w, "== intent classifier: SNIPS, %d train utterances per intent, %d validation utterances (embeddings: %s)\n", cfg.PerIntent, len(valid), cfg.embedName())
	fmt.Fprintf(w, "accuracy %.4f top-1, %.4f with out_of_scope under the default threshold %.2f counted wrong  (train %v, classify %v/utterance)\n", nluRatio(correct, len(valid)), nluRatio(accepted, len(valid)), nlu.DefaultThreshold, trainTime.Round(time.Millisecond), perText.Round(time.Microsecond))
	fmt.Fprintf(w, "mean top confidence: correct %.3f, wrong %.3f (%d wrong)\n", confOK/float64(max(correct, 1)), confBad/float64(max(nBad, 1)), nBad)
	macro := 0.0
	for _, in := range nluSnipsIntents {
		k := per[in]
		p, r := nluRatio(k.tp, k.tp+k.fp), nluRatio(k.tp, k.tp+k.fn)
		f := 0.0
		if p+r > 0 {
			f = 2 * p * r / (p + r)
		}
		macro += f
		fmt.Fprintf(w, "  %-22s P %.3f R %.3f F1 %.3f\n", in, p, r, f)
	}
	fmt.Fprintf(w, "macro F1 %.4f\n", macro/float64(len(nluSnipsIntents)))
	gib := nluGibberish()
	leaks, err := nluLeaks(ctx, c, gib)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "gibberish at %.2f or more: %d of %d\n\n", nlu.DefaultThreshold, leaks, len(gib))
	return nil
}

// nluGibberish returns the 17 typed and 40 random gibberish texts that
// must come out of scope (evaldata.Gibberish).
func nluGibberish() []string { return evaldata.Gibberish(40) }

// nluLeaks counts the texts whose top confidence is at least
// nlu.DefaultThreshold.
func nluLeaks(ctx context.Context, c *intent.Classifier, texts []string) (int, error) {
	n := 0
	for _, t := range texts {
		got, err := c.Classify(ctx, t)
		if err != nil {
			return 0, err
		}
		if got[0].Probability >= nlu.DefaultThreshold {
			n++
		}
	}
	return n, nil
}

// nluOutOfScope returns the out-of-scope texts of the intent workloads:
// CoNLL-2003 validation sentences of at least five words (news, far from
// SNIPS's requests) and a few gibberish and off-topic requests.
func nluOutOfScope(dataDir string, n int) ([]string, error) {
	f, err := os.Open(filepath.Join(dataDir, "ner", "conll2003", "valid.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sents, err := ner.ReadCoNLL(f)
	if err != nil {
		return nil, err
	}
	out := []string{"asdf qwerty", "lorem ipsum dolor sit amet", "how do I reset my password", "what is the capital of France", "tell me a joke", "translate this into German"}
	for _, s := range sents {
		if len(s.Words) >= 5 && len(out) < n {
			out = append(out, strings.Join(s.Words, " "))
		}
	}
	return out, nil
}

// nluScore is one classifier's result on labeled in-scope texts and on
// out-of-scope texts.
type nluScore struct {
	top      []intent.Scored // the top answer per labeled text
	correct  int             // top answer right
	accepted int             // top answer right and at least nlu.DefaultThreshold
	inConf   []float64       // top confidence of the right answers, sorted
	oosConf  []float64       // top confidence of each out-of-scope text
	gibLeaks int             // gibberish texts at nlu.DefaultThreshold or more
}

// nluEvaluate classifies the labeled and the out-of-scope texts with c.
func nluEvaluate(ctx context.Context, c *intent.Classifier, labeled []nluLabeled, oos []string) (nluScore, error) {
	var sc nluScore
	for _, v := range labeled {
		got, err := c.Classify(ctx, v.text)
		if err != nil {
			return sc, err
		}
		sc.top = append(sc.top, got[0])
		if got[0].Intent == v.intent {
			sc.correct++
			sc.inConf = append(sc.inConf, got[0].Probability)
			if got[0].Probability >= nlu.DefaultThreshold {
				sc.accepted++
			}
		}
	}
	slices.Sort(sc.inConf)
	for _, t := range oos {
		got, err := c.Classify(ctx, t)
		if err != nil {
			return sc, err
		}
		sc.oosConf = append(sc.oosConf, got[0].Probability)
	}
	return sc, nil
}

// nluTrainEvaluate trains a classifier on train with emb and evaluates it
// (nluEvaluate, and nluLeaks on gib); it also returns the training time.
func nluTrainEvaluate(ctx context.Context, train map[string][]string, emb intent.Embedder, labeled []nluLabeled, oos, gib []string) (nluScore, time.Duration, error) {
	start := time.Now()
	c, err := intent.Train(ctx, train, intent.Options{Embedder: emb})
	if err != nil {
		return nluScore{}, 0, err
	}
	took := time.Since(start)
	sc, err := nluEvaluate(ctx, c, labeled, oos)
	if err != nil {
		return sc, took, err
	}
	sc.gibLeaks, err = nluLeaks(ctx, c, gib)
	return sc, took, err
}

// recall is the share of out-of-scope texts whose top confidence is under
// threshold.
func (sc nluScore) recall(threshold float64) float64 {
	n := 0
	for _, p := range sc.oosConf {
		if p < threshold {
			n++
		}
	}
	return nluRatio(n, len(sc.oosConf))
}

// fixedRecall is the out-of-scope recall at a fixed in-scope accuracy: at
// the threshold that keeps the share keep of the right in-scope answers.
func (sc nluScore) fixedRecall(keep float64) float64 {
	if len(sc.inConf) == 0 {
		return 1
	}
	return sc.recall(sc.inConf[int(float64(len(sc.inConf))*(1-keep))])
}

// nluMean is the mean of xs.
func nluMean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(len(xs), 1))
}

// nluFewShot measures few-shot intent accuracy and out-of-scope detection:
// FewShotDraws classifiers, each trained on FewShotPerIntent utterances per
// SNIPS intent drawn at random (seeded) from the full training files, are
// scored on the 700 validation utterances and on nluOutOfScope texts.
func nluFewShot(cfg NLUConfig, w io.Writer) error {
	ctx := context.Background()
	full, valid, err := nluSnips(cfg.DataDir, -1)
	if err != nil {
		return err
	}
	oos, err := nluOutOfScope(cfg.DataDir, 700)
	if err != nil {
		return err
	}
	// The validation and out-of-scope texts recur in every draw: embed
	// each text once.
	if cfg.Embedder != nil {
		cfg.Embedder = nluMemo(cfg.Embedder)
	}
	fmt.Fprintf(w, "== few-shot intents: SNIPS, %d utterances per intent drawn from train_*_full.json (%d draws), %d validation utterances; out of scope: %d texts (CoNLL-2003 valid sentences + 6 off-topic); embeddings: %s\n",
		cfg.FewShotPerIntent, cfg.FewShotDraws, len(valid), len(oos), cfg.embedName())
	gib := nluGibberish()
	var accs, accepted, recalls, fixedRecalls []float64
	var leaks []string
	var trainTimes []time.Duration
	for draw := range cfg.FewShotDraws {
		rng := rand.New(rand.NewPCG(uint64(draw), 14))
		train := map[string][]string{}
		for _, in := range nluSnipsIntents {
			all := full[in]
			for _, p := range rng.Perm(len(all))[:min(cfg.FewShotPerIntent, len(all))] {
				train[in] = append(train[in], all[p])
			}
		}
		sc, took, err := nluTrainEvaluate(ctx, train, cfg.Embedder, valid, oos, gib)
		if err != nil {
			return err
		}
		trainTimes = append(trainTimes, took)
		accs = append(accs, nluRatio(sc.correct, len(valid)))
		accepted = append(accepted, nluRatio(sc.accepted, len(valid)))
		recalls = append(recalls, sc.recall(nlu.DefaultThreshold))
		fixedRecalls = append(fixedRecalls, sc.fixedRecall(0.98))
		leaks = append(leaks, fmt.Sprint(sc.gibLeaks))
	}
	mean := nluMean
	fmt.Fprintf(w, "top-1 accuracy %.4f (draws %s)\n", mean(accs), nluFormat(accs))
	fmt.Fprintf(w, "at the default threshold %.2f: in-scope accuracy %.4f (out_of_scope counted wrong), out-of-scope recall %.4f (draws %s)\n", nlu.DefaultThreshold, mean(accepted), mean(recalls), nluFormat(recalls))
	fmt.Fprintf(w, "out-of-scope recall at the threshold keeping 98%% of correct in-scope answers: %.4f\n", mean(fixedRecalls))
	fmt.Fprintf(w, "gibberish at %.2f or more, of %d (draws): %s\n", nlu.DefaultThreshold, len(gib), strings.Join(leaks, " "))
	fmt.Fprintf(w, "training %d examples: %v per classifier (mean; embeddings memoized across draws)\n\n", cfg.FewShotPerIntent*len(nluSnipsIntents), nluMeanDuration(trainTimes).Round(time.Millisecond))
	return nil
}

// nluTrainTime times training one classifier of 150 intents × 10 examples
// (1,500 distinct SNIPS training utterances dealt round-robin into 150
// pseudo-intents), embeddings included and not cached.
func nluTrainTime(cfg NLUConfig, w io.Writer) error {
	full, _, err := nluSnips(cfg.DataDir, -1)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var pool []string
	for i := 0; len(pool) < 1500; i++ {
		added := false
		for _, in := range nluSnipsIntents {
			if i < len(full[in]) && !seen[full[in][i]] {
				seen[full[in][i]] = true
				pool = append(pool, full[in][i])
				added = true
			}
		}
		if !added {
			return errors.New("nlu: fewer than 1500 distinct SNIPS utterances")
		}
	}
	ex := map[string][]string{}
	for i, u := range pool[:1500] {
		k := fmt.Sprintf("intent%03d", i%150)
		ex[k] = append(ex[k], u)
	}
	cpu0, cpuOK := nluCPUTime()
	start := time.Now()
	if _, err := intent.Train(context.Background(), ex, intent.Options{Embedder: cfg.Embedder}); err != nil {
		return err
	}
	wall := time.Since(start)
	cpu1, _ := nluCPUTime()
	fmt.Fprintf(w, "== training 150 intents × 10 examples (embeddings: %s): %v wall", cfg.embedName(), wall.Round(time.Millisecond))
	if cpuOK {
		fmt.Fprintf(w, ", %v CPU", (cpu1 - cpu0).Round(10*time.Millisecond))
	}
	fmt.Fprintf(w, "; load average %s\n", loadAvg())
	// Retraining with one example more (a model update) embeds only the
	// new example through the service's embedding cache.
	if cfg.Embedder != nil {
		svc, err := nlu.NewService(&nlu.MemStore{}, nlu.Options{Embedder: cfg.Embedder})
		if err != nil {
			return err
		}
		body := func(extra string) []byte {
			m := map[string]any{"name": "t", "type": "annotator", "annotator": map[string]any{"service": "builtin", "model": "intent-classifier", "config": map[string]any{"examples": ex}}}
			if extra != "" {
				cp := map[string][]string{}
				for k, v := range ex {
					cp[k] = v
				}
				cp["intent000"] = append(append([]string(nil), ex["intent000"]...), extra)
				m["annotator"].(map[string]any)["config"] = map[string]any{"examples": cp}
			}
			b, _ := json.Marshal(m)
			return b
		}
		ctx := context.Background()
		m, err := svc.CreateModel(ctx, "bench", body(""))
		if err != nil {
			return err
		}
		start := time.Now()
		if _, err := svc.UpdateModel(ctx, "bench", m.ModelID, body("play the newest album of the band")); err != nil {
			return err
		}
		fmt.Fprintf(w, "retraining it through the service with one example more: %v wall (the others' embeddings cached)\n", time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintln(w)
	return nil
}

// nluMemo wraps an embedder with a cache by text (safe for one goroutine).
func nluMemo(e intent.Embedder) intent.Embedder {
	cache := map[string][]float32{}
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		var miss []string
		for _, t := range texts {
			if _, ok := cache[t]; !ok {
				miss = append(miss, t)
			}
		}
		if len(miss) > 0 {
			es, err := e(ctx, miss)
			if err != nil {
				return nil, err
			}
			if len(es) != len(miss) {
				return nil, fmt.Errorf("nlu bench: embedder returned %d vectors for %d texts", len(es), len(miss))
			}
			for i, t := range miss {
				cache[t] = es[i]
			}
		}
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = cache[t]
		}
		return out, nil
	}
}

// nluCzechFewShot measures few-shot intents on Czech: the dialogue acts of
// cs_restaurant devel.json (act and first slot, e.g. "?request(area)",
// classes with at least 15 utterances) are intents; 3 seeded draws train
// on 10 utterances per class and score the rest, with CzechEmbedder, with
// Embedder and without embeddings.
func nluCzechFewShot(cfg NLUConfig, w io.Writer) error {
	items, err := readCzechRestaurant(cfg.DataDir)
	if err != nil {
		return err
	}
	by := map[string][]string{}
	for _, it := range items {
		open := strings.IndexByte(it.DelexDA, '(')
		if open <= 0 {
			continue
		}
		slot := it.DelexDA[open+1:]
		if k := strings.IndexAny(slot, ",)="); k >= 0 {
			slot = slot[:k]
		}
		label := it.DelexDA[:open] + "(" + slot + ")"
		by[label] = append(by[label], it.Text)
	}
	var labels []string
	for _, l := range sortedKeysOf(by) {
		if len(by[l]) >= 15 {
			labels = append(labels, l)
		}
	}
	type model struct {
		name string
		emb  intent.Embedder
	}
	models := []model{{"none", nil}}
	if cfg.Embedder != nil {
		models = append(models, model{cfg.embedName(), nluMemo(cfg.Embedder)})
	}
	if cfg.CzechEmbedder != nil {
		models = append(models, model{cfg.CzechEmbedderName, nluMemo(cfg.CzechEmbedder)})
	}
	fmt.Fprintf(w, "== Czech few-shot intents: cs_restaurant devel.json dialogue acts, %d classes (act + first slot, >= 15 utterances), 10 per class, 3 draws, the rest scored\n", len(labels))
	for _, m := range models {
		var accs []float64
		for draw := range 3 {
			rng := rand.New(rand.NewPCG(uint64(draw), 5))
			train := map[string][]string{}
			var test []nluLabeled
			for _, l := range labels {
				for i, j := range rng.Perm(len(by[l])) {
					if i < 10 {
						train[l] = append(train[l], by[l][j])
					} else {
						test = append(test, nluLabeled{by[l][j], l})
					}
				}
			}
			c, err := intent.Train(context.Background(), train, intent.Options{Embedder: m.emb})
			if err != nil {
				return err
			}
			ok := 0
			for _, t := range test {
				got, err := c.Classify(context.Background(), t.text)
				if err != nil {
					return err
				}
				if got[0].Intent == t.intent {
					ok++
				}
			}
			accs = append(accs, nluRatio(ok, len(test)))
		}
		mean := 0.0
		for _, a := range accs {
			mean += a / float64(len(accs))
		}
		fmt.Fprintf(w, "  embeddings %-24s top-1 %.4f (draws %s)\n", m.name, mean, nluFormat(accs))
	}
	fmt.Fprintln(w)
	return nil
}

func nluFormat(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.3f", x)
	}
	return strings.Join(parts, " ")
}

func nluMeanDuration(ds []time.Duration) time.Duration {
	var s time.Duration
	for _, d := range ds {
		s += d
	}
	return s / time.Duration(max(1, len(ds)))
}

func nluEnglishNER(dataDir string, states ner.WordStates, w io.Writer) error {
	f, err := os.Open(filepath.Join(dataDir, "ner", "conll2003", "valid.txt"))
	if err != nil {
		return err
	}
	defer f.Close()
	sents, err := ner.ReadCoNLL(f)
	if err != nil {
		return err
	}
	t, err := ner.English()
	if err != nil {
		return err
	}
	taggers := []struct {
		name string
		tag  func(words []string) ([]string, error)
	}{{"lexical tagger (ner.English)", func(words []string) ([]string, error) { return t.Tag(words), nil }}}
	if states != nil {
		ct, err := ner.EnglishContextual()
		if err != nil {
			return err
		}
		model, _ := ct.Contextual()
		taggers = append(taggers, struct {
			name string
			tag  func(words []string) ([]string, error)
		}{"contextual tagger (ner.EnglishContextual, word vectors of " + model + ", one sentence per run)", func(words []string) ([]string, error) {
			v, err := states(context.Background(), words)
			if err != nil {
				return nil, err
			}
			return ct.TagVectors(words, v), nil
		}})
	}
	tokens := 0
	for _, s := range sents {
		tokens += len(s.Words)
	}
	for _, tg := range taggers {
		var gold, pred [][]string
		cpu0, cpuOK := nluCPUTime()
		start := time.Now()
		for _, s := range sents {
			gold = append(gold, s.Tags)
			p, err := tg.tag(s.Words)
			if err != nil {
				return err
			}
			pred = append(pred, p)
		}
		el := time.Since(start)
		cpu1, _ := nluCPUTime()
		sc := ner.Evaluate(gold, pred, []string{"PER", "LOC", "ORG"})
		fmt.Fprintf(w, "== English NER, %s: CoNLL-2003 valid.txt (%d sentences, %d tokens), entity-level exact match\n", tg.name, len(sents), tokens)
		for _, k := range []string{"PER", "LOC", "ORG", ""} {
			name := k
			if k == "" {
				name = "micro"
			}
			fmt.Fprintf(w, "  %-5s P %.4f R %.4f F1 %.4f (tp %d fp %d fn %d)\n", name, sc[k].P(), sc[k].R(), sc[k].F1(), sc[k].TP, sc[k].FP, sc[k].FN)
		}
		fmt.Fprintf(w, "tagging speed %.0f tokens/s, %v wall per sentence", float64(tokens)/el.Seconds(), (el / time.Duration(len(sents))).Round(time.Microsecond))
		if cpuOK {
			fmt.Fprintf(w, ", %v CPU per sentence", ((cpu1 - cpu0) / time.Duration(len(sents))).Round(time.Microsecond))
		}
		fmt.Fprintf(w, "\n\n")
	}
	return nil
}

func nluCzechNER(dataDir string, w io.Writer) error {
	fmt.Fprintf(w, "== Czech names: UD Czech-CAC, word-level vs NameType (Giv/Sur=person, Geo=location, Com=organization)\n")
	for _, name := range []string{"cs_cac-ud-dev.conllu", "cs_cac-ud-test.conllu"} {
		f, err := os.Open(filepath.Join(dataDir, "czech", "ud_czech_cac", name))
		if err != nil {
			return err
		}
		sents, err := ner.ReadUDNames(f)
		f.Close()
		if err != nil {
			return err
		}
		sc := ner.EvaluateCzechWords(sents)
		fmt.Fprintf(w, "  %s (%d sentences)\n", name, len(sents))
		for _, k := range []string{"person", "location", "organization", ""} {
			n := k
			if k == "" {
				n = "micro"
			}
			fmt.Fprintf(w, "    %-12s P %.3f R %.3f F1 %.3f (tp %d fp %d fn %d)\n", n, sc[k].P(), sc[k].R(), sc[k].F1(), sc[k].TP, sc[k].FP, sc[k].FN)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// nluSet is one cs_restaurant slot as a phrase set: values with their
// lemmas as synonyms, and the inflected forms to find.
type nluSet = evaldata.SlotForms

func sortedKeysOf[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// nluSetBody is the phrase-set model body of s.
func nluSetBody(s nluSet) []byte {
	type ph struct {
		Text     string   `json:"text"`
		Value    string   `json:"value"`
		Synonyms []string `json:"synonyms,omitempty"`
	}
	var phrases []ph
	for i, v := range s.Values {
		phrases = append(phrases, ph{Text: v, Value: v, Synonyms: s.Lemmas[i][1:]})
	}
	b, _ := json.Marshal(map[string]any{"name": s.Slot, "language": "cs", "phrases": phrases})
	return b
}

// nluClosed measures closed-entity matching: every inflected surface form
// must be found as its slot value (recall; precision counts every other
// match), and on the devel.json sentences the slot values of the dialogue
// act must be found.
func nluClosed(dataDir string, sets []nluSet, w io.Writer) error {
	fmt.Fprintf(w, "== Czech closed-entity matching: cs_restaurant (phrase sets = slot values + lemmas)\n")
	allTP, allFP, allFN := 0, 0, 0
	matchers := map[string]*phrase.Matcher{}
	for _, s := range sets {
		m, err := s.Matcher()
		if err != nil {
			return err
		}
		matchers[s.Slot] = m
		tp, fp, fn := s.FormCounts(m)
		allTP, allFP, allFN = allTP+tp, allFP+fp, allFN+fn
		fmt.Fprintf(w, "  %-14s %4d forms  P %.3f R %.3f\n", s.Slot, tp+fn, nluRatio(tp, tp+fp), nluRatio(tp, tp+fn))
	}
	fmt.Fprintf(w, "surface forms: P %.4f R %.4f (%d forms)\n", nluRatio(allTP, allTP+allFP), nluRatio(allTP, allTP+allFN), allTP+allFN)

	items, err := readCzechRestaurant(dataDir)
	if err != nil {
		return err
	}
	values := map[string][]string{}
	for _, s := range sets {
		values[s.Slot] = s.Values
	}
	tp, fp, fn := 0, 0, 0
	for _, it := range items {
		gold := map[string]bool{}
		for _, sv := range nluParseDA(it.DA) {
			if _, ok := matchers[sv[0]]; ok && slices.Contains(values[sv[0]], sv[1]) {
				gold[sv[0]+"="+sv[1]] = true
			}
		}
		pred := map[string]bool{}
		for slot, m := range matchers {
			for _, mm := range m.Match(it.Text) {
				pred[slot+"="+values[slot][mm.Ref]] = true
			}
		}
		for k := range pred {
			if gold[k] {
				tp++
			} else {
				fp++
			}
		}
		for k := range gold {
			if !pred[k] {
				fn++
			}
		}
	}
	fmt.Fprintf(w, "devel.json sentences (%d): slot values of the dialogue act found: P %.4f R %.4f (tp %d fp %d fn %d)\n", len(items), nluRatio(tp, tp+fp), nluRatio(tp, tp+fn), tp, fp, fn)
	fmt.Fprintf(w, "  (precision counts values mentioned in the text but absent from the act, e.g. alternatives, as wrong)\n\n")
	return nil
}

// nluParseDA returns the slot=value pairs of a dialogue act like
// "inform(name='Pivo & Basilico',area='Žižkov or Vinohrady')"; acts are
// joined by "&" outside quotes and parentheses, and alternative values
// ("a or b") become one pair each.
func nluParseDA(da string) [][2]string {
	var out [][2]string
	var acts []string
	depth, inQ, last := 0, false, 0
	for i := 0; i < len(da); i++ {
		switch c := da[i]; {
		case c == '\'':
			inQ = !inQ
		case inQ:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '&' && depth == 0:
			acts = append(acts, da[last:i])
			last = i + 1
		}
	}
	acts = append(acts, da[last:])
	for _, act := range acts {
		open := strings.IndexByte(act, '(')
		if open < 0 || !strings.HasSuffix(act, ")") {
			continue
		}
		body := act[open+1 : len(act)-1]
		var parts []string
		inQ, last = false, 0
		for i := 0; i < len(body); i++ {
			switch body[i] {
			case '\'':
				inQ = !inQ
			case ',':
				if !inQ {
					parts = append(parts, body[last:i])
					last = i + 1
				}
			}
		}
		parts = append(parts, body[last:])
		for _, p := range parts {
			k, v, ok := strings.Cut(p, "=")
			if !ok {
				continue
			}
			for _, alt := range strings.Split(strings.Trim(v, "'"), " or ") {
				out = append(out, [2]string{k, alt})
			}
		}
	}
	return out
}

func nluLatency(cfg NLUConfig, train map[string][]string, valid []nluLabeled, sets []nluSet, w io.Writer) error {
	ctx := context.Background()
	svc, err := nlu.NewService(&nlu.MemStore{}, nlu.Options{Embedder: cfg.Embedder, WordStates: func(string) ner.WordStates { return cfg.WordStates }})
	if err != nil {
		return err
	}
	var setIDs []string
	for _, s := range sets {
		ps, err := svc.CreatePhraseSet(ctx, "bench", nluSetBody(s))
		if err != nil {
			return err
		}
		setIDs = append(setIDs, ps.PhraseSetID)
	}
	examples, _ := json.Marshal(map[string]any{"examples": train})
	ic, err := svc.CreateModel(ctx, "bench", []byte(`{"name": "snips", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": `+string(examples)+`}}`))
	if err != nil {
		return err
	}
	ids, _ := json.Marshal(setIDs)
	var csTexts []string
	items, err := readCzechRestaurant(cfg.DataDir)
	if err != nil {
		return err
	}
	for _, it := range items {
		csTexts = append(csTexts, it.Text)
	}
	var enTexts []string
	for _, v := range valid {
		enTexts = append(enTexts, v.text)
	}
	fmt.Fprintf(w, "== analysis latency: pipeline builtin-ner + closed-ner (%d cs_restaurant sets) + intent-classifier (SNIPS), %d runs, one goroutine\n", len(setIDs), cfg.LatencyRuns)
	for _, lang := range []struct {
		code  string
		texts []string
	}{{"en", enTexts}, {"cs", csTexts}} {
		for _, mode := range []string{"sequential", "parallel"} {
			body := fmt.Sprintf(`{"name": "bench", "type": "pipeline", "mode": %q, "pipeline": {"models": [{"name": "builtin-ner", "language": %q}, {"name": "closed-ner", "phrase_set_ids": %s}, %q]}}`, mode, lang.code, ids, ic.ModelID)
			p, err := svc.CreateModel(ctx, "bench", []byte(body))
			if err != nil {
				return err
			}
			rng := rand.New(rand.NewPCG(1, 1))
			// Warm up (lazy model loading) before timing.
			if _, err := svc.Analyze(ctx, "bench", p.ModelID, lang.texts[0]); err != nil {
				return err
			}
			lat := make([]time.Duration, cfg.LatencyRuns)
			runes := 0
			var total time.Duration
			cpu0, _ := nluCPUTime()
			for i := range lat {
				text := lang.texts[rng.IntN(len(lang.texts))]
				runes += utf8.RuneCountInString(text)
				start := time.Now()
				if _, err := svc.Analyze(ctx, "bench", p.ModelID, text); err != nil {
					return err
				}
				lat[i] = time.Since(start)
				total += lat[i]
			}
			cpu1, cpuOK := nluCPUTime()
			slices.Sort(lat)
			q := func(f float64) time.Duration { return lat[min(len(lat)-1, int(f*float64(len(lat))))] }
			fmt.Fprintf(w, "  %s %-10s texts of %.0f chars on average: p50 %v p90 %v p99 %v mean %v\n", lang.code, mode, float64(runes)/float64(len(lat)), q(0.5).Round(time.Microsecond), q(0.9).Round(time.Microsecond), q(0.99).Round(time.Microsecond), (total / time.Duration(len(lat))).Round(time.Microsecond))
			if cpuOK {
				fmt.Fprintf(w, "      CPU time per analysis (all goroutines): %v\n", ((cpu1 - cpu0) / time.Duration(len(lat))).Round(time.Microsecond))
			}
		}
	}
	fmt.Fprintln(w)
	return nil
}

// nluPhraseScale compiles n synthetic two- and three-word Czech-like
// phrases and measures compile time and matching throughput.
func nluPhraseScale(n int, w io.Writer) error {
	rng := rand.New(rand.NewPCG(42, 42))
	syll := []string{"ka", "ro", "vě", "li", "na", "pra", "hou", "bel", "má", "ště", "ne", "do", "zá", "kop", "tře", "ví", "mu", "sla", "ře", "chy"}
	word := func() string {
		k := 2 + rng.IntN(3)
		var b strings.Builder
		for range k {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		return b.String()
	}
	entries := make([]phrase.Entry, n)
	for i := range entries {
		words := []string{word(), word()}
		if rng.IntN(3) == 0 {
			words = append(words, word())
		}
		entries[i] = phrase.Entry{Text: strings.Join(words, " "), Ref: i}
	}
	start := time.Now()
	m, err := phrase.Compile(entries, phrase.Options{Language: "cs"})
	if err != nil {
		return err
	}
	compile := time.Since(start)
	// Text: random words with a phrase every ~10 words.
	var b strings.Builder
	for b.Len() < 1<<20 {
		if rng.IntN(10) == 0 {
			b.WriteString(entries[rng.IntN(n)].Text)
		} else {
			b.WriteString(word())
		}
		b.WriteByte(' ')
	}
	text := b.String()
	const reps = 5
	cpu0, _ := nluCPUTime()
	start = time.Now()
	found := 0
	for range reps {
		found = len(m.Match(text))
	}
	el := time.Since(start)
	cpu1, ok := nluCPUTime()
	fmt.Fprintf(w, "== phrase matcher: %d phrases (%d compiled), compile %v; matching %.1f MB/s wall", n, m.Len(), compile.Round(time.Millisecond), reps*float64(len(text))/el.Seconds()/1e6)
	if ok && cpu1 > cpu0 {
		fmt.Fprintf(w, ", %.1f MB per CPU-second", reps*float64(len(text))/(cpu1-cpu0).Seconds()/1e6)
	}
	fmt.Fprintf(w, " (%d matches in %d KiB)\n", found, len(text)>>10)
	return nil
}

// nluCPUTime returns the process's user+system CPU time from
// /proc/self/stat (10 ms resolution); ok is false where that is missing.
func nluCPUTime() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	var u, sy int64
	if _, err := fmt.Sscan(f[11], &u); err != nil {
		return 0, false
	}
	if _, err := fmt.Sscan(f[12], &sy); err != nil {
		return 0, false
	}
	return time.Duration(u+sy) * 10 * time.Millisecond, true
}

// csRestaurantItem is one utterance of cs_restaurant's devel.json: its
// dialogue act (with values, and delexicalized) and its text.
type csRestaurantItem struct {
	DA      string `json:"da"`
	DelexDA string `json:"delex_da"`
	Text    string `json:"text"`
}

// readCzechRestaurant reads cs_restaurant's devel.json under dataDir.
func readCzechRestaurant(dataDir string) ([]csRestaurantItem, error) {
	raw, err := os.ReadFile(filepath.Join(dataDir, "entities", "cs_restaurant", "devel.json"))
	if err != nil {
		return nil, err
	}
	var items []csRestaurantItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("devel.json: %w", err)
	}
	return items, nil
}
