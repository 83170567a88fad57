package intent

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/internal/evaldata"
)

// bge loads the server's default embedding model (installed by make
// models) as an Embedder.
func bge(t testing.TB) Embedder { return localModel(t, "bge-small-en-v1.5") }

// localModel loads an installed embedding model as an Embedder.
func localModel(t testing.TB, name string) Embedder {
	t.Helper()
	reg := embed.NewRegistry(embed.CachePaths(embed.DefaultCacheDir()))
	l, err := reg.Local(name)
	if err != nil {
		t.Fatalf("%s not installed (make models): %v", name, err)
	}
	t.Cleanup(func() { l.Close() })
	// As the server embeds intents (engine.IntentEmbedderOf).
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		return l.EmbedSymmetric(ctx, texts, len(texts) > 1)
	}
}

// TestFewShotSnips trains on 10 random SNIPS training utterances per
// intent with the real embedding model and scores 20 validation utterances
// per intent, counting an out_of_scope verdict (confidence under 0.5) as
// wrong, and checks that off-topic text falls under the threshold.
// Measured 0.921 top-1 (0.921 accepted; 0.907 with the query instruction
// before the symmetric form) on this draw; floors a little under.
func TestFewShotSnips(t *testing.T) {
	emb := bge(t)
	rng := rand.New(rand.NewPCG(3, 14))
	train := map[string][]string{}
	for _, in := range snipsIntents {
		all := loadSnips(t, in, "train_"+in+"_full.json", 0)
		for _, p := range rng.Perm(len(all))[:10] {
			train[in] = append(train[in], all[p])
		}
	}
	ctx := context.Background()
	c, err := Train(ctx, train, Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	correct, accepted, total := 0, 0, 0
	for _, in := range snipsIntents {
		for _, u := range loadSnips(t, in, "validate_"+in+".json", 20) {
			got, err := c.Classify(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			total++
			if got[0].Intent == in {
				correct++
				if got[0].Probability >= 0.5 {
					accepted++
				}
			}
		}
	}
	acc, accAcc := float64(correct)/float64(total), float64(accepted)/float64(total)
	t.Logf("10-shot SNIPS: top-1 %.3f, accepted at 0.5 %.3f (%d utterances)", acc, accAcc, total)
	if acc < 0.9 || accAcc < 0.88 {
		t.Errorf("10-shot top-1 %.3f, accepted %.3f; want >= 0.90 and >= 0.88", acc, accAcc)
	}
	// Out of scope (issue 14: "asdf qwerty" was weather 0.886).
	for _, text := range []string{"asdf qwerty", "lorem ipsum dolor sit amet", "The central bank raised interest rates by a quarter point on Tuesday."} {
		got, err := c.Classify(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Probability >= 0.5 {
			t.Errorf("%q: %s %.3f, want under the 0.5 threshold", text, got[0].Intent, got[0].Probability)
		}
	}
}

// TestSnipsInScopeAccepted trains as najdi-bench nlu does (the first 100
// training utterances per SNIPS intent, the server's default embedding
// model) and checks that in-scope validation text is accepted — the
// confidence is at least nlu's default threshold 0.5 for the right intent
// — while gibberish stays under it. Before the known-word evidence the
// product of the two calibrations rejected 1.6 % of the validation
// utterances (accepted accuracy 0.964 of 0.980 top-1), among them the
// three below, and let "lorem ipsum dolor sit amet" through at 0.58;
// measured 0.973 accepted, lorem ipsum 0.20.
func TestSnipsInScopeAccepted(t *testing.T) {
	train := map[string][]string{}
	for _, in := range snipsIntents {
		train[in] = loadSnips(t, in, "train_"+in+"_full.json", 100)
	}
	ctx := context.Background()
	c, err := Train(ctx, train, Options{Embedder: bge(t)})
	if err != nil {
		t.Fatal(err)
	}
	top := func(text string) Scored {
		got, err := c.Classify(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		return got[0]
	}
	accepted, total := 0, 0
	for _, in := range snipsIntents {
		for _, u := range loadSnips(t, in, "validate_"+in+".json", 0) {
			total++
			if got := top(u); got.Intent == in && got.Probability >= 0.5 {
				accepted++
			}
		}
	}
	acc := float64(accepted) / float64(total)
	t.Logf("SNIPS validation, 100 per intent: accepted accuracy %.4f (%d of %d)", acc, accepted, total)
	if acc < 0.97 {
		t.Errorf("accepted accuracy %.4f, want >= 0.97", acc)
	}
	for _, tc := range []struct{ text, intent string }{
		{"Reminiscences of the Anti-Japanese Guerillas chronicle deserves zero points out of 6 for a rating.", "RateBook"},
		{"Can you find me, Hey Man?", "SearchCreativeWork"},
		{"Book seven in neighboring Moorpark", "BookRestaurant"},
	} {
		if got := top(tc.text); got.Intent != tc.intent || got.Probability < 0.5 {
			t.Errorf("%q: %s %.3f, want %s at 0.5 or more", tc.text, got.Intent, got.Probability, tc.intent)
		}
	}
	garbage := evaldata.Gibberish(20) // typed, then random letters of one to four words
	for _, text := range garbage {
		if got := top(text); got.Probability >= 0.5 {
			t.Errorf("gibberish %q: %s %.3f, want under 0.5", text, got.Intent, got.Probability)
		}
	}
}

// TestLeaveOneOutScores checks the closed-form leave-one-out scores the
// calibration uses against refitting without each example.
func TestLeaveOneOutScores(t *testing.T) {
	calls := 0
	emb := hashEmbedder(&calls)
	texts := []string{"book a table for two", "reserve a table tonight", "table for four at eight", "what is the weather", "will it rain", "weather in prague tomorrow", "play some jazz", "play the new album"}
	labels := []int{0, 0, 0, 1, 1, 1, 2, 2}
	const lambda = 0.3
	es, _ := emb(context.Background(), texts)
	gram := func(idx []int) []float64 {
		n := len(idx)
		g := make([]float64, n*n)
		for a, i := range idx {
			for b, j := range idx {
				g[a*n+b] = float64(dot32(normalized(es[i]), normalized(es[j])))
			}
			g[a*n+a] += lambda
		}
		return g
	}
	n, k := len(texts), 3
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	g := gram(all)
	if err := cholesky(g, n); err != nil {
		t.Fatal(err)
	}
	alpha := make([]float64, n*k)
	for i, l := range labels {
		alpha[i*k+l] = 1
	}
	cholSolve(g, n, alpha, k)
	diag := cholInverseDiag(g, n)
	for left := range n {
		var idx []int
		for i := range n {
			if i != left {
				idx = append(idx, i)
			}
		}
		gl := gram(idx)
		if err := cholesky(gl, len(idx)); err != nil {
			t.Fatal(err)
		}
		a := make([]float64, len(idx)*k)
		for r, i := range idx {
			a[r*k+labels[i]] = 1
		}
		cholSolve(gl, len(idx), a, k)
		for j := range k {
			want := 0.0
			for r, i := range idx {
				want += float64(dot32(normalized(es[left]), normalized(es[i]))) * a[r*k+j]
			}
			y := 0.0
			if labels[left] == j {
				y = 1
			}
			got := y - alpha[left*k+j]/diag[left]
			if math.Abs(got-want) > 1e-6 {
				t.Errorf("example %d intent %d: closed-form leave-one-out %.6f, refit %.6f", left, j, got, want)
			}
		}
	}
}

// TestCholesky solves a small system with a known answer.
func TestCholesky(t *testing.T) {
	a := []float64{4, 12, -16, 12, 37, -43, -16, -43, 98}
	if err := cholesky(a, 3); err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 6, 1, -8, 5, 3}
	got := []float64{a[0], a[3], a[4], a[6], a[7], a[8]}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("L = %v, want %v", got, want)
		}
	}
	b := []float64{1, 2, 3} // A x = b
	cholSolve(a, 3, b, 1)
	orig := [][]float64{{4, 12, -16}, {12, 37, -43}, {-16, -43, 98}}
	for r, row := range orig {
		s := 0.0
		for c, v := range row {
			s += v * b[c]
		}
		if math.Abs(s-float64(r+1)) > 1e-9 {
			t.Errorf("row %d: A x = %v, want %d", r, s, r+1)
		}
	}
	if err := cholesky([]float64{1, 2, 2, 1}, 2); err == nil {
		t.Error("cholesky accepted an indefinite matrix")
	}
}
