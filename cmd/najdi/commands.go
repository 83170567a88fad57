package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/najdi/najdi/client"
)

// signalContext is cancelled by the first Ctrl-C (SIGINT) or SIGTERM; a
// second one kills the process as usual.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
			signal.Stop(sig)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// cmdSearch runs `najdi search QUERY --collection C[,D]`.
func cmdSearch(args []string) error {
	fs := newFlagSet("search", "search [flags] QUERY --collection C[,D...]")
	var c conn
	c.flags(fs)
	coll := fs.String("collection", os.Getenv("NAJDI_COLLECTION"), "collection id, or several separated by commas (env NAJDI_COLLECTION)")
	maxResults := fs.Int("max-results", 10, "at most this many documents (the page size)")
	offset := fs.Int("offset", 0, "skip this many documents of the ranking (paging)")
	minScore := fs.Float64("min-score", -1, "relevance cut-off 0..1 (default: the server's, which leaves out documents scoring 0)")
	filter := fs.String("filter", "", `filter object as JSON, e.g. '{"term": {"Continent": "EU"}}'`)
	format := fs.String("format", "", "result format: flat or sections (default flat)")
	fields := fs.String("fields", "", "comma-separated section types and fields to return")
	answer := fs.Bool("answer", false, "ask the answer endpoint instead (an answer from the top documents)")
	summary := fs.Int("summary", 0, "also return summaries of the documents within this many tokens")
	restore := fs.Bool("restore-diacritics", false, "restore Czech diacritics in the query")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *coll == "" {
		return usagef("name the collection with --collection")
	}
	query := strings.Join(pos, " ")
	if query == "" && *filter == "" {
		return usagef("give a query, a --filter, or both")
	}
	req := client.SearchRequest{Query: query, MaxResults: *maxResults, Offset: *offset, ResultFormat: *format}
	if *minScore >= 0 {
		req.MinScore = minScore
	}
	if *filter != "" {
		if !json.Valid([]byte(*filter)) {
			return usagef("--filter is not valid JSON: %s", *filter)
		}
		req.Filter = json.RawMessage(*filter)
	}
	if *fields != "" {
		req.IncludeFields = strings.Split(*fields, ",")
	}
	if *summary > 0 {
		req.IncludeContent = []string{"full", "summaries"}
		req.SummaryConfig = &client.SummaryConfig{MaxTokens: *summary}
	}
	if *restore {
		req.RestoreDiacritics = restore
	}
	cl, err := c.client()
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	colls := strings.Split(*coll, ",")
	var res client.SearchResponse
	if *answer {
		res, err = cl.Answer(ctx, colls, req)
	} else {
		res, err = cl.Search(ctx, colls, req)
	}
	if err != nil {
		return describe(err, c.server)
	}
	out := stdoutWriter()
	defer out.Flush()
	if c.jsonOut {
		return printJSON(out, res)
	}
	printSearch(out, res, *offset)
	return nil
}

// printSearch writes a search or answer response for people: the answer,
// the effective queries, one line per document with its passages, the
// summaries, and notes on what the page left out; offset numbers the
// documents.
func printSearch(out io.Writer, res client.SearchResponse, offset int) {
	if res.Answer != nil {
		fmt.Fprintf(out, "answer: %s\n\n", *res.Answer)
	}
	if len(res.Metadata.EffectiveQueries) > 0 {
		fmt.Fprintf(out, "searched for: %s\n", strings.Join(res.Metadata.EffectiveQueries, "; "))
	}
	for i, d := range res.Documents {
		id := d.DocumentID
		if d.CollectionID != "" {
			id = d.CollectionID + "/" + id
		}
		fmt.Fprintf(out, "%3d. %-40s score %.3f  %s\n", offset+i+1, id, d.Score, d.Source)
		for _, p := range d.Passages {
			fmt.Fprintf(out, "     %s\n", oneLine(p.Text, 160))
		}
		if len(d.Passages) == 0 && d.Content != nil {
			fmt.Fprintf(out, "     %s\n", oneLine(*d.Content, 160))
		}
	}
	for _, s := range res.Summaries {
		fmt.Fprintf(out, "summary of %s: %s\n", s.DocumentID, oneLine(s.Content, 400))
	}
	if len(res.Documents) == 0 && res.Answer == nil {
		fmt.Fprintln(out, "no documents found")
	}
	md := res.Metadata
	var notes []string
	if md.BelowMinScore > 0 {
		notes = append(notes, fmt.Sprintf("%d more below the relevance cut-off (--min-score 0 shows them)", md.BelowMinScore))
	}
	if md.NextOffset != nil {
		notes = append(notes, fmt.Sprintf("next page: --offset %d", *md.NextOffset))
	}
	if len(notes) > 0 {
		fmt.Fprintf(out, "(%s)\n", strings.Join(notes, "; "))
	}
}

// oneLine shortens s to n characters on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// listing is a command that lists one kind of object: without arguments,
// as {key: items} with --json, else as a table of header and one row per
// item.
type listing[T any] struct {
	name, key, header string
	fetch             func(context.Context, *client.Client) ([]T, error)
	row               func(T) string
}

// run parses args (flags adds the command's own) and prints the listing.
func (l listing[T]) run(args []string, flags func(*flag.FlagSet)) error {
	fs := newFlagSet(l.name, l.name+" [flags]")
	var c conn
	c.flags(fs)
	if flags != nil {
		flags(fs)
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("%s takes no arguments, got %q", l.name, pos)
	}
	cl, err := c.client()
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	items, err := l.fetch(ctx, cl)
	if err != nil {
		return describe(err, c.server)
	}
	out := stdoutWriter()
	defer out.Flush()
	if c.jsonOut {
		return printJSON(out, map[string]any{l.key: items})
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, l.header)
	for _, it := range items {
		fmt.Fprintln(tw, l.row(it))
	}
	return tw.Flush()
}

// cmdCollections runs `najdi collections`.
func cmdCollections(args []string) error {
	return listing[client.Collection]{
		name: "collections", key: "collections", header: "COLLECTION\tDOCUMENTS\tMODEL\tUPDATED",
		fetch: func(ctx context.Context, cl *client.Client) ([]client.Collection, error) { return cl.Collections(ctx) },
		row: func(col client.Collection) string {
			var ec struct {
				Model any `json:"model"`
			}
			_ = json.Unmarshal(col.EmbeddingConfig, &ec)
			model := fmt.Sprint(ec.Model)
			if m, ok := ec.Model.(map[string]any); ok {
				model = fmt.Sprint("remote ", m["name"])
			}
			return fmt.Sprintf("%s\t%d\t%s\t%s", col.CollectionID, col.DocumentCount, model, col.UpdatedAt.Format("2006-01-02 15:04"))
		},
	}.run(args, nil)
}

// cmdModels runs `najdi models`: the NLU models.
func cmdModels(args []string) error {
	return listing[client.Model]{
		name: "models", key: "models", header: "MODEL_ID\tTYPE\tNAME\tDESCRIPTION",
		fetch: func(ctx context.Context, cl *client.Client) ([]client.Model, error) { return cl.Models(ctx) },
		row: func(m client.Model) string {
			typ := m.Type
			if m.Annotator != nil && m.Annotator.Model != "" {
				typ += " " + m.Annotator.Model
			} else if m.Mode != "" {
				typ += " " + m.Mode
			}
			return fmt.Sprintf("%s\t%s\t%s\t%s", m.ModelID, typ, m.Name, oneLine(m.Description, 60))
		},
	}.run(args, nil)
}

// cmdJobs runs `najdi jobs`: the caller's ingest jobs.
func cmdJobs(args []string) error {
	var coll, status *string
	return listing[client.Job]{
		name: "jobs", key: "jobs", header: "JOB_ID\tCOLLECTION\tSTATUS\tPROCESSED\tERRORS\tRATE\tETA\tSTARTED",
		fetch: func(ctx context.Context, cl *client.Client) ([]client.Job, error) {
			return cl.Jobs(ctx, *coll, *status)
		},
		row: func(j client.Job) string {
			rate, eta := "-", "-"
			if j.DocumentsPerSecond != nil {
				rate = fmt.Sprintf("%.1f/s", *j.DocumentsPerSecond)
			}
			if j.ETASeconds != nil {
				eta = fmtDuration(*j.ETASeconds)
			}
			processed := fmt.Sprint(j.Processed)
			if j.Total != nil {
				processed += fmt.Sprintf("/%d", *j.Total)
			}
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s", j.JobID, j.CollectionID, j.Status, processed, len(j.Errors), rate, eta, j.StartedAt.Local().Format("2006-01-02 15:04:05"))
		},
	}.run(args, func(fs *flag.FlagSet) {
		coll = fs.String("collection", "", "only jobs of this collection")
		status = fs.String("status", "", "only jobs in this status: running, done or failed")
	})
}
