package api

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends the JSON encoding of the response to dst, followed by
// a newline, and returns it: byte for byte what encoding/json's Encoder
// writes with SetEscapeHTML(false), without its reflection (a search
// response is encoded on every request; TestAppendJSONMatchesEncodingJSON
// holds the two together). When encodeStart is not zero, the time since it
// is reported as metadata.timings.encode_ms, measured when the encoding
// reaches the metadata, the last member.
func (r *SearchResponse) AppendJSON(dst []byte, encodeStart time.Time) []byte {
	dst = append(dst, `{"search_id":`...)
	dst = appendJSONString(dst, r.SearchID)
	if r.Documents != nil {
		dst = append(dst, `,"documents":[`...)
		for i := range r.Documents {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = r.Documents[i].appendJSON(dst)
		}
		dst = append(dst, ']')
	}
	if r.Summaries != nil {
		dst = append(dst, `,"summaries":[`...)
		for i, s := range r.Summaries {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"document_id":`...)
			dst = appendJSONString(dst, s.DocumentID)
			if s.CollectionID != "" {
				dst = append(dst, `,"collection_id":`...)
				dst = appendJSONString(dst, s.CollectionID)
			}
			dst = append(dst, `,"content":`...)
			dst = appendJSONString(dst, s.Content)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if r.Summary != nil {
		dst = append(dst, `,"summary":`...)
		dst = appendJSONString(dst, *r.Summary)
	}
	if r.Answer != nil {
		dst = append(dst, `,"answer":`...)
		dst = appendJSONString(dst, *r.Answer)
	}
	md := &r.Metadata
	if !encodeStart.IsZero() && md.Timings != nil {
		t := *md.Timings
		enc := ms(time.Since(encodeStart))
		t.EncodeMS = &enc
		m := *md
		m.Timings = &t
		md = &m
	}
	dst = append(dst, `,"metadata":`...)
	dst = md.appendJSON(dst)
	return append(dst, '}', '\n')
}

func (d *ResultDoc) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"document_id":`...)
	dst = appendJSONString(dst, d.DocumentID)
	if d.CollectionID != "" {
		dst = append(dst, `,"collection_id":`...)
		dst = appendJSONString(dst, d.CollectionID)
	}
	dst = append(dst, `,"score":`...)
	dst = appendJSONFloat(dst, d.Score)
	dst = append(dst, `,"source":`...)
	dst = appendJSONString(dst, d.Source)
	if d.Content != nil {
		dst = append(dst, `,"content":`...)
		dst = appendJSONString(dst, *d.Content)
	}
	if len(d.Sections) > 0 {
		dst = append(dst, `,"sections":[`...)
		for i, s := range d.Sections {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"type":`...)
			dst = appendJSONString(dst, s.Type)
			dst = append(dst, `,"content":`...)
			dst = appendJSONString(dst, s.Content)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if len(d.Fields) > 0 {
		dst = append(dst, `,"fields":`...)
		dst = appendJSONObject(dst, d.Fields)
	}
	if len(d.Passages) > 0 {
		dst = append(dst, `,"passages":[`...)
		for i, p := range d.Passages {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"text":`...)
			dst = appendJSONString(dst, p.Text)
			dst = append(dst, `,"offsets":[`...)
			dst = strconv.AppendInt(dst, int64(p.Offsets[0]), 10)
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, int64(p.Offsets[1]), 10)
			dst = append(dst, `],"section_index":`...)
			dst = strconv.AppendInt(dst, int64(p.SectionIndex), 10)
			dst = append(dst, `,"score":`...)
			dst = appendJSONFloat(dst, p.Score)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if d.Truncated {
		dst = append(dst, `,"truncated":true`...)
	}
	return append(dst, '}')
}

func (m *Metadata) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	sep := func() {
		if dst[len(dst)-1] != '{' {
			dst = append(dst, ',')
		}
	}
	if m.Tokens != nil {
		dst = append(dst, `"tokens":{"prompt_tokens":`...)
		dst = strconv.AppendInt(dst, int64(m.Tokens.PromptTokens), 10)
		if m.Tokens.Tokenizer != "" {
			dst = append(dst, `,"tokenizer":`...)
			dst = appendJSONString(dst, m.Tokens.Tokenizer)
		}
		dst = append(dst, '}')
	}
	if m.OriginalDocumentsCount != nil {
		sep()
		dst = append(dst, `"original_documents_count":`...)
		dst = strconv.AppendInt(dst, int64(*m.OriginalDocumentsCount), 10)
	}
	if m.SummaryDocumentsCount != nil {
		sep()
		dst = append(dst, `"summary_documents_count":`...)
		dst = strconv.AppendInt(dst, int64(*m.SummaryDocumentsCount), 10)
	}
	if m.SummaryMethod != "" {
		sep()
		dst = append(dst, `"summary_method":`...)
		dst = appendJSONString(dst, m.SummaryMethod)
	}
	if m.Message != "" {
		sep()
		dst = append(dst, `"message":`...)
		dst = appendJSONString(dst, m.Message)
	}
	if len(m.EffectiveQueries) > 0 {
		sep()
		dst = append(dst, `"effective_queries":`...)
		dst = appendJSONStrings(dst, m.EffectiveQueries)
	}
	if m.AnswerSources != nil {
		sep()
		dst = append(dst, `"answer_sources":`...)
		dst = appendJSONStrings(dst, m.AnswerSources)
	}
	sep()
	dst = append(dst, `"took_ms":`...)
	dst = appendJSONFloat(dst, m.TookMS)
	dst = append(dst, `,"below_min_score":`...)
	dst = strconv.AppendInt(dst, int64(m.BelowMinScore), 10)
	if m.NextOffset != nil {
		dst = append(dst, `,"next_offset":`...)
		dst = strconv.AppendInt(dst, int64(*m.NextOffset), 10)
	}
	if t := m.Timings; t != nil {
		dst = append(dst, `,"timings":{"embed_ms":`...)
		dst = appendJSONFloat(dst, t.EmbedMS)
		if t.EmbedCached {
			dst = append(dst, `,"embed_cached":true`...)
		}
		dst = append(dst, `,"retrieve_ms":`...)
		dst = appendJSONFloat(dst, t.RetrieveMS)
		dst = append(dst, `,"fuse_ms":`...)
		dst = appendJSONFloat(dst, t.FuseMS)
		dst = append(dst, `,"load_ms":`...)
		dst = appendJSONFloat(dst, t.LoadMS)
		dst = append(dst, `,"render_ms":`...)
		dst = appendJSONFloat(dst, t.RenderMS)
		if t.EncodeMS != nil {
			dst = append(dst, `,"encode_ms":`...)
			dst = appendJSONFloat(dst, *t.EncodeMS)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func appendJSONStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, s)
	}
	return append(dst, ']')
}

// appendJSONObject encodes a document's fields (FieldsMap: string,
// float64, bool or []any of them) with sorted keys, as encoding/json does;
// other values go through encoding/json.
func appendJSONObject(dst []byte, m map[string]any) []byte {
	var keysBuf [16]string
	keys := keysBuf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		dst = appendJSONValue(dst, m[k])
	}
	return append(dst, '}')
}

func appendJSONValue(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return appendJSONString(dst, v)
	case bool:
		return strconv.AppendBool(dst, v)
	case float64:
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			return appendJSONFloat(dst, v)
		}
	case []any:
		dst = append(dst, '[')
		for i, x := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONValue(dst, x)
		}
		return append(dst, ']')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return append(dst, "null"...) // stored field values always encode
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// appendJSONFloat encodes a finite float64 as encoding/json does (ES6
// number formatting).
func appendJSONFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, '0') // never produced: scores and times are finite
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does without HTML escaping:
// '"', '\\' and control characters escaped, invalid UTF-8 as U+FFFD,
// U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// ms is d in milliseconds with microsecond precision, as the timings report
// it (the engine's search clock rounds the same way).
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
