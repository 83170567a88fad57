package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestJobTypesFieldsAsSyncUpload ingests one CSV synchronously and as an
// asynchronous job: both must type its columns alike. Its column "minor"
// holds numbers in the first rows and "2,2" in row 25, so it is text, and
// no record may be rejected. A job used to flush its first 16 records
// early (for progress), settle "minor" as a number field from them and
// then reject row 25, so the same file gave 39 documents and 1 error as a
// job and 40 documents synchronously.
func TestJobTypesFieldsAsSyncUpload(t *testing.T) {
	e, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var csv strings.Builder
	csv.WriteString("name,minor\n")
	for i := 1; i <= 40; i++ {
		v := fmt.Sprint(i % 4)
		if i == 25 {
			v = `"2,2"`
		}
		fmt.Fprintf(&csv, "row %d,%s\n", i, v)
	}
	cfg := CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}
	for _, c := range []string{"sync", "job"} {
		if _, _, err := e.PutCollection(context.Background(), "", c, cfg); err != nil {
			t.Fatal(err)
		}
	}
	req := IngestRequest{Format: "csv", Data: []byte(csv.String())}
	res, err := e.Ingest(context.Background(), "", "sync", req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 40 || len(res.Errors) != 0 {
		t.Fatalf("sync upload: %d documents, errors %v; want 40 and none", len(res.Documents), res.Errors)
	}
	id, err := e.StartIngest("", "job", req)
	if err != nil {
		t.Fatal(err)
	}
	var st JobStatus
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if st, err = e.Job("", "job", id); err != nil {
			t.Fatal(err)
		}
		if st.Status != "running" {
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatal("job still running after a minute")
		}
	}
	if st.Status != "done" || st.Processed != 40 || len(st.Errors) != 0 {
		t.Fatalf("job: status %s, processed %d, errors %v; want done, 40 and none (as the synchronous upload)", st.Status, st.Processed, st.Errors)
	}
}

// TestJobRefusesUnknownFormat: an asynchronous ingest naming a format that
// does not exist is refused when it is submitted (415, as a synchronous
// upload), not accepted and failed later.
func TestJobRefusesUnknownFormat(t *testing.T) {
	e, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, _, err := e.PutCollection(context.Background(), "", "c", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
		t.Fatal(err)
	}
	id, err := e.StartIngest("", "c", IngestRequest{Format: "bogus", Data: []byte("a,b\n1,2\n")})
	if !errors.Is(err, ErrUnsupportedMedia) {
		t.Fatalf("StartIngest with format bogus: job %q, error %v; want ErrUnsupportedMedia", id, err)
	}
	if jobs, err := e.Jobs("", "c", ""); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs after the refusal: %v, %v; want none", jobs, err)
	}
}
