package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func stdJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAppendJSONMatchesEncodingJSON checks that the reflection-free encoder
// writes exactly what encoding/json writes, on responses exercising every
// member, omitted and empty forms, and strings needing escapes.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	enc := 0.25
	weird := "tab\tnl\ncr\r\"q\" \\ <b>&amp; \x00\x01\x1f\b\f \x7f é 😀 \u2028\u2029 bad\xff\xfe utf8"
	for _, tc := range []struct {
		name string
		resp SearchResponse
	}{
		{"empty", SearchResponse{SearchID: "s"}},
		{"no hits", SearchResponse{SearchID: "s", Documents: []ResultDoc{}, Summaries: []Summary{}, Summary: str(""), Metadata: Metadata{AnswerSources: []string{}, EffectiveQueries: []string{}}}},
		{"flat", SearchResponse{SearchID: "5f0c", Documents: []ResultDoc{
			{DocumentID: "d1", Score: 0.834521, Source: "sem-key", Content: str("Title\n\n" + weird),
				Fields:   map[string]any{"brand": "acme", "price": 12.5, "in": true, "sizes": []any{1.0, 2.5, 1e21, 1e-7}, "z": nil, "a<b": "x&y"},
				Passages: []Passage{{Text: weird, Offsets: [2]int{12, 80}, SectionIndex: 1, Score: 0.77}, {Text: "", Offsets: [2]int{0, 0}, SectionIndex: 0, Score: 0}}},
			{DocumentID: "d2", CollectionID: "c2", Score: 0, Source: "key", Content: str(""), Fields: map[string]any{}, Passages: []Passage{}, Truncated: true},
		}, Metadata: Metadata{TookMS: 12.4, BelowMinScore: 3, NextOffset: num(10), Timings: &Timings{EmbedMS: 1.234, EmbedCached: true, RetrieveMS: 0.001, FuseMS: 1e-7, LoadMS: 100, RenderMS: 3}}}},
		{"sections", SearchResponse{SearchID: "x", Documents: []ResultDoc{
			{DocumentID: weird, Score: 1, Source: "sem", Sections: []Section{{Type: "title", Content: weird}, {Type: "p", Content: "b"}}},
			{DocumentID: "e", Score: 0.5, Source: "sem", Sections: []Section{}},
		}, Metadata: Metadata{Timings: &Timings{EncodeMS: &enc}}}},
		{"summaries", SearchResponse{SearchID: "y", Summaries: []Summary{{DocumentID: "a", Content: weird}, {DocumentID: "b", CollectionID: "c", Content: ""}},
			Summary: str(weird), Answer: str("42"),
			Metadata: Metadata{Tokens: &Tokens{PromptTokens: 412, Tokenizer: "o200k_base"}, OriginalDocumentsCount: num(10), SummaryDocumentsCount: num(0),
				SummaryMethod: "passages", Message: weird, EffectiveQueries: []string{"jízdní řád", weird}, AnswerSources: []string{"a", "b"}, TookMS: 0}}},
		{"metadata first member later", SearchResponse{SearchID: "m", Metadata: Metadata{SummaryMethod: "none"}}},
		{"tokens without a tokenizer", SearchResponse{SearchID: "t", Metadata: Metadata{Tokens: &Tokens{PromptTokens: 3}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.resp.AppendJSON(nil, time.Time{})
			want := stdJSON(t, tc.resp)
			if !bytes.Equal(got, want) {
				t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
			}
		})
	}
}

// TestAppendJSONCoversEveryMember fails when a response type gains a
// member: AppendJSON must then learn it (and the test above cover it).
func TestAppendJSONCoversEveryMember(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int
	}{
		{SearchResponse{}, 6}, {ResultDoc{}, 9}, {Passage{}, 4}, {Summary{}, 3}, {Metadata{}, 11},
		{Timings{}, 7}, {Tokens{}, 2}, {Section{}, 2},
	} {
		if n := reflect.TypeOf(tc.v).NumField(); n != tc.want {
			t.Errorf("%T has %d fields, AppendJSON encodes %d: update api/json.go", tc.v, n, tc.want)
		}
	}
}

// TestAppendJSONEncodeTime checks that an encode start time is reported in
// metadata.timings.encode_ms without changing the response.
func TestAppendJSONEncodeTime(t *testing.T) {
	r := SearchResponse{SearchID: "s", Metadata: Metadata{Timings: &Timings{}}}
	out := r.AppendJSON(nil, time.Now().Add(-3*time.Millisecond))
	var got struct {
		Metadata struct {
			Timings struct {
				EncodeMS *float64 `json:"encode_ms"`
			} `json:"timings"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if e := got.Metadata.Timings.EncodeMS; e == nil || *e < 3 {
		t.Errorf("encode_ms %v, want >= 3 in %s", e, out)
	}
	if r.Metadata.Timings.EncodeMS != nil {
		t.Error("AppendJSON changed the response")
	}
}
