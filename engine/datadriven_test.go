package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/internal/errs"
)

// TestDataDriven runs the scripts in testdata/ against a real engine on a
// temporary directory, with keyword-only collections. Each file starts
// with a fresh engine. Commands (arguments in brackets are optional):
//
//	open [flush-docs=N]        reopen the engine (on the same directory)
//	collection id=C [owner=O]  input: the JSON configuration (PutCollection
//	                           through ParseCollectionConfig); output: created,
//	                           updated or the error
//	info id=C                  the collection's field types and document count
//	ingest coll=C [format=F] [file=NAME] [type=CT] [id=DOC] [id-field=P]
//	                           input: the upload; format=envelope reads the
//	                           input as the JSON documents envelope. Output: one
//	                           line per document status and per error
//	search coll=C[,D] [owner=O] [answer] [brief]
//	                           input: the JSON request (ParseSearchRequest);
//	                           output: the documents, their passages, summaries
//	                           and metadata, or the error; brief prints only
//	                           each document's id, score and source
//	get coll=C id=DOC          the stored document
//	delete coll=C id=DOC       delete a document
//	merge coll=C               merge the collection's segments now
//
// Errors print as "error (kind): message [field=...]", kind from
// internal/errs.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		dir := t.TempDir()
		ctx := context.Background()
		open := func(opts engine.Options) *engine.Engine {
			opts.Dir = dir
			e, err := engine.Open(opts)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		e := open(engine.Options{})
		defer func() { e.Close() }()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			owner := ""
			if d.HasArg("owner") {
				d.ScanArgs(t, "owner", &owner)
			}
			switch d.Cmd {
			case "open":
				var opts engine.Options
				if d.HasArg("flush-docs") {
					d.ScanArgs(t, "flush-docs", &opts.FlushDocs)
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				e = open(opts)
				return ""
			case "collection":
				var id string
				d.ScanArgs(t, "id", &id)
				cfg, err := engine.ParseCollectionConfig([]byte(d.Input))
				if err != nil {
					return ddError(err)
				}
				_, created, err := e.PutCollection(ctx, owner, id, cfg)
				if err != nil {
					return ddError(err)
				}
				if created {
					return "created"
				}
				return "updated"
			case "info":
				var id string
				d.ScanArgs(t, "id", &id)
				c, err := e.GetCollection(ctx, owner, id)
				if err != nil {
					return ddError(err)
				}
				var sb strings.Builder
				fmt.Fprintf(&sb, "documents: %d\n", c.DocumentCount)
				names := make([]string, 0, len(c.Config.Fields))
				for n := range c.Config.Fields {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					fmt.Fprintf(&sb, "field %s: %s\n", n, c.Config.Fields[n].Type)
				}
				return sb.String()
			case "ingest":
				return ddIngest(t, ctx, e, owner, d)
			case "search":
				return ddSearch(t, ctx, e, owner, d)
			case "get":
				var coll, id string
				d.ScanArgs(t, "coll", &coll)
				d.ScanArgs(t, "id", &id)
				doc, err := e.GetDocument(ctx, owner, coll, id)
				if err != nil {
					return ddError(err)
				}
				var sb strings.Builder
				for i, s := range doc.Sections {
					fmt.Fprintf(&sb, "section %d %s: %s\n", i, s.Type, s.Content)
				}
				for _, f := range doc.Fields {
					fmt.Fprintf(&sb, "field %s: %s\n", f.Name, ddJSON(f.Values))
				}
				return sb.String()
			case "delete":
				var coll, id string
				d.ScanArgs(t, "coll", &coll)
				d.ScanArgs(t, "id", &id)
				if err := e.DeleteDocument(ctx, owner, coll, id); err != nil {
					return ddError(err)
				}
				return "deleted"
			case "merge":
				var coll string
				d.ScanArgs(t, "coll", &coll)
				if err := e.MergeNow(owner, coll); err != nil {
					return ddError(err)
				}
				return "merged"
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

// ddError prints an error as its kind, message and details.
func ddError(err error) string {
	s := fmt.Sprintf("error (%s): %s", errs.Name(err), err)
	var ee *engine.Error
	if errors.As(err, &ee) && len(ee.Details) > 0 {
		keys := make([]string, 0, len(ee.Details))
		for k := range ee.Details {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s += fmt.Sprintf(" [%s=%v]", k, ee.Details[k])
		}
	}
	return s
}

func ddJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func ddIngest(t *testing.T, ctx context.Context, e *engine.Engine, owner string, d *datadriven.TestData) string {
	var coll string
	d.ScanArgs(t, "coll", &coll)
	req := engine.IngestRequest{Data: []byte(d.Input)}
	if d.HasArg("format") {
		d.ScanArgs(t, "format", &req.Format)
	}
	if d.HasArg("file") {
		d.ScanArgs(t, "file", &req.FileName)
	}
	if d.HasArg("type") {
		d.ScanArgs(t, "type", &req.ContentType)
	}
	if d.HasArg("id") {
		d.ScanArgs(t, "id", &req.DocumentID)
	}
	if d.HasArg("id-field") {
		d.ScanArgs(t, "id-field", &req.IDField)
	}
	if req.Format == "envelope" {
		var env struct {
			Documents []engine.DocumentInput `json:"documents"`
		}
		dec := json.NewDecoder(strings.NewReader(d.Input))
		dec.UseNumber()
		if err := dec.Decode(&env); err != nil {
			t.Fatalf("envelope: %v", err)
		}
		req = engine.IngestRequest{Documents: env.Documents}
	}
	res, err := e.Ingest(ctx, owner, coll, req)
	var sb strings.Builder
	for _, s := range res.Documents {
		fmt.Fprintf(&sb, "%s %s\n", s.Status, s.DocumentID)
	}
	for _, ie := range res.Errors {
		sb.WriteString("skipped")
		if ie.Record != nil {
			fmt.Fprintf(&sb, " record %d", *ie.Record)
		}
		if ie.Sheet != "" {
			fmt.Fprintf(&sb, " sheet %s", ie.Sheet)
		}
		if ie.DocumentID != "" {
			fmt.Fprintf(&sb, " %s", ie.DocumentID)
		}
		fmt.Fprintf(&sb, ": %s\n", ie.Message)
	}
	if err != nil {
		sb.WriteString(ddError(err) + "\n")
	}
	return sb.String()
}

func ddSearch(t *testing.T, ctx context.Context, e *engine.Engine, owner string, d *datadriven.TestData) string {
	var colls string
	d.ScanArgs(t, "coll", &colls)
	req, err := engine.ParseSearchRequest([]byte(d.Input))
	if err != nil {
		return ddError(err)
	}
	var resp engine.SearchResponse
	if d.HasArg("answer") {
		resp, err = e.Answer(ctx, owner, strings.Split(colls, ","), req)
	} else {
		resp, err = e.Search(ctx, owner, strings.Split(colls, ","), req)
	}
	if err != nil {
		return ddError(err)
	}
	brief := d.HasArg("brief")
	var sb strings.Builder
	if resp.Answer != nil {
		fmt.Fprintf(&sb, "answer: %s\n", *resp.Answer)
	}
	if resp.Documents != nil && len(resp.Documents) == 0 {
		sb.WriteString("no documents\n")
	}
	for _, doc := range resp.Documents {
		sb.WriteString(doc.DocumentID)
		if doc.CollectionID != "" {
			sb.WriteString(" in " + doc.CollectionID)
		}
		fmt.Fprintf(&sb, " %s %s", strconv.FormatFloat(doc.Score, 'f', -1, 64), doc.Source)
		if doc.Truncated {
			sb.WriteString(" truncated")
		}
		sb.WriteString("\n")
		if brief {
			continue
		}
		if doc.Content != nil {
			fmt.Fprintf(&sb, "  content: %q\n", *doc.Content)
		}
		for i, s := range doc.Sections {
			fmt.Fprintf(&sb, "  section %d %s: %q\n", i, s.Type, s.Content)
		}
		if len(doc.Fields) > 0 {
			fmt.Fprintf(&sb, "  fields: %s\n", ddJSON(doc.Fields))
		}
		for _, p := range doc.Passages {
			fmt.Fprintf(&sb, "  passage s%d [%d,%d) %s: %q\n", p.SectionIndex, p.Offsets[0], p.Offsets[1], strconv.FormatFloat(p.Score, 'f', -1, 64), p.Text)
		}
	}
	for _, s := range resp.Summaries {
		sb.WriteString("summary " + s.DocumentID)
		if s.CollectionID != "" {
			sb.WriteString(" in " + s.CollectionID)
		}
		fmt.Fprintf(&sb, ": %q\n", s.Content)
	}
	if resp.Summary != nil {
		fmt.Fprintf(&sb, "summary: %q\n", *resp.Summary)
	}
	m := resp.Metadata
	if len(m.EffectiveQueries) > 0 {
		fmt.Fprintf(&sb, "effective queries: %q\n", m.EffectiveQueries)
	}
	if m.OriginalDocumentsCount != nil {
		fmt.Fprintf(&sb, "summary documents: %d of %d (%s)\n", *m.SummaryDocumentsCount, *m.OriginalDocumentsCount, m.SummaryMethod)
	}
	if m.AnswerSources != nil {
		fmt.Fprintf(&sb, "answer sources: %q\n", m.AnswerSources)
	}
	return sb.String()
}
