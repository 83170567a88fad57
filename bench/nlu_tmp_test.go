package bench
import ("testing";"context";"encoding/json";"fmt";"time";"github.com/najdi/najdi/nlu")
func TestTmpPipe(t *testing.T) {
	train, valid, _ := nluSnips("/work/shared/data", 100)
	svc, _ := nlu.NewService(&nlu.MemStore{}, nlu.Options{})
	ex, _ := json.Marshal(map[string]any{"examples": train})
	ic, err := svc.CreateModel(context.Background(), "b", []byte(`{"name": "snips", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": `+string(ex)+`}}`))
	if err != nil { t.Fatal(err) }
	p, err := svc.CreateModel(context.Background(), "b", []byte(fmt.Sprintf(`{"name":"p","type":"pipeline","mode":"sequential","pipeline":{"models":[{"name":"builtin-ner","language":"en"}, %q]}}`, ic.ModelID)))
	if err != nil { t.Fatal(err) }
	for _, v := range valid[:3] {
		s := time.Now()
		a, _ := svc.Analyze(context.Background(), "b", p.ModelID, v.text)
		j, _ := json.Marshal(a)
		fmt.Println(time.Since(s), string(j))
	}
	s := time.Now()
	for _, v := range valid { svc.Analyze(context.Background(), "b", p.ModelID, v.text) }
	fmt.Println("mean", time.Since(s)/700)
	s = time.Now()
	for _, v := range valid { svc.Analyze(context.Background(), "b", ic.ModelID, v.text) }
	fmt.Println("mean ic", time.Since(s)/700)
}
