package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/najdi/najdi/client"
	"github.com/najdi/najdi/ingest"
)

// ingestFlags are the options of `najdi ingest`.
type ingestFlags struct {
	conn
	collection  string
	create      bool
	idField     string
	concurrency int
	jobRecords  int
	hidden      bool
	state       string
	restart     bool
	progress    string
	interval    time.Duration
}

// fileTask is one file to ingest.
type fileTask struct {
	path  string // as found (for messages)
	abs   string // absolute path (the state's key)
	name  string // the file name sent: its path below the named directory, '/' as ':'
	size  int64
	mtime int64 // unix nanoseconds
}

// stateEntry records one ingested file in the state file (JSON lines).
type stateEntry struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	MTime     int64  `json:"mtime_ns"`
	SHA256    string `json:"sha256"`
	Documents int    `json:"documents"`
	Errors    int    `json:"errors"`
}

// fileResult is the outcome of one file.
type fileResult struct {
	task        fileTask
	hash        string
	unsupported string // why the file was skipped as not ingestible
	unchanged   bool   // same content as an ingested file (touched only)
	created     int
	replaced    int
	recErrors   []client.IngestError
	err         error
}

// ingestReport is the final summary (printed, or as JSON with --json).
type ingestReport struct {
	Collection         string         `json:"collection"`
	Files              int            `json:"files"`
	Ingested           int            `json:"ingested"`
	AlreadyIngested    int            `json:"already_ingested"`
	Unsupported        []fileProblem  `json:"unsupported"`
	Failed             []fileProblem  `json:"failed"`
	RecordErrors       []recordReport `json:"record_errors"`
	Documents          int            `json:"documents"`
	Created            int            `json:"created"`
	Replaced           int            `json:"replaced"`
	Bytes              int64          `json:"bytes"`
	Seconds            float64        `json:"seconds"`
	DocumentsPerSecond float64        `json:"documents_per_second"`
	Interrupted        bool           `json:"interrupted"`
	Remaining          int            `json:"remaining"`
	StateFile          string         `json:"state_file"`
}

type fileProblem struct {
	File    string `json:"file"`
	Message string `json:"message"`
}

type recordReport struct {
	File string `json:"file"`
	client.IngestError
}

// cmdIngest runs `najdi ingest PATH... --collection C`.
func cmdIngest(args []string) error {
	f, pos, err := parseIngestFlags(args)
	if err != nil {
		return err
	}
	tasks, err := collectFiles(pos, f.hidden)
	if err != nil {
		return err
	}
	cl, err := f.conn.client()
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	coll, err := ingestCollection(ctx, cl, f)
	if err != nil {
		return err
	}
	statePath, done, sf, err := openIngestState(f, cl.User, coll)
	if err != nil {
		return err
	}
	defer sf.Close()

	rep := ingestReport{Collection: f.collection, Files: len(tasks), StateFile: statePath, Unsupported: []fileProblem{}, Failed: []fileProblem{}, RecordErrors: []recordReport{}}
	todo := rep.pending(tasks, done)
	pr := newProgress(f.progress, f.interval, f.collection, len(tasks), rep.AlreadyIngested, todo)
	start := time.Now()
	results := runIngest(ctx, cl, *f, todo, done, pr)
	state := &stateWriter{w: bufio.NewWriter(sf), path: statePath}
	fatal := rep.collect(results, state, pr, cancel)
	state.w.Flush()
	pr.stop()
	rep.finish(time.Since(start), ctx.Err() != nil && fatal == nil)
	return rep.print(f, fatal)
}

// parseIngestFlags reads the flags of `najdi ingest` and returns them with
// the files and directories to ingest.
func parseIngestFlags(args []string) (*ingestFlags, []string, error) {
	fs := newFlagSet("ingest", "ingest [flags] PATH... --collection C")
	var f ingestFlags
	f.conn.flags(fs)
	fs.StringVar(&f.collection, "collection", os.Getenv("NAJDI_COLLECTION"), "collection to ingest into (env NAJDI_COLLECTION)")
	fs.BoolVar(&f.create, "create", false, "create the collection (default configuration) when it does not exist")
	fs.StringVar(&f.idField, "id-field", "", "record property holding each record's id (CSV, JSON, JSONL, XLSX, ODS); default: an id or document_id property, else FILE-1, FILE-2, ...")
	fs.IntVar(&f.concurrency, "concurrency", 4, "files uploaded at once")
	fs.IntVar(&f.jobRecords, "job-records", 100, "record files of about this many records or more (lines of CSV and JSON lines; any JSON, XLSX or ODS file of 64 kB or more) run as server jobs, whose progress shows while the file is ingested; smaller ones are plain uploads")
	fs.BoolVar(&f.hidden, "hidden", false, "also ingest hidden files and directories (names starting with '.')")
	fs.StringVar(&f.state, "state", "", "state file recording ingested files (default: one per server, user and collection under $XDG_STATE_HOME/najdi or ~/.local/state/najdi)")
	fs.BoolVar(&f.restart, "restart", false, "ignore the state file: ingest every file again (documents are replaced, not doubled)")
	fs.StringVar(&f.progress, "progress", "auto", "progress display on stderr: auto (a bar on a terminal, else lines), bar, lines or none")
	fs.DurationVar(&f.interval, "progress-interval", 2*time.Second, "time between progress lines when they are not a bar")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case f.collection == "":
		return nil, nil, usagef("name the collection with --collection")
	case len(pos) == 0:
		return nil, nil, usagef("name at least one file or directory")
	case f.concurrency < 1:
		return nil, nil, usagef("--concurrency must be at least 1")
	}
	switch f.progress {
	case "auto", "bar", "lines", "none":
	default:
		return nil, nil, usagef("--progress %q: use auto, bar, lines or none", f.progress)
	}
	return &f, pos, nil
}

// pending returns the tasks the state file does not record as ingested
// with their current size and modification time, counting the others as
// already ingested.
func (rep *ingestReport) pending(tasks []fileTask, done map[string]stateEntry) []fileTask {
	var todo []fileTask
	for _, t := range tasks {
		if e, ok := done[t.abs]; ok && e.Size == t.size && e.MTime == t.mtime {
			rep.AlreadyIngested++
			continue
		}
		todo = append(todo, t)
	}
	return todo
}

// finish fills the totals of a run that took took.
func (rep *ingestReport) finish(took time.Duration, interrupted bool) {
	rep.Documents = rep.Created + rep.Replaced
	rep.Seconds = took.Seconds()
	if rep.Seconds > 0 {
		rep.DocumentsPerSecond = float64(rep.Documents) / rep.Seconds
	}
	rep.Interrupted = interrupted
	rep.Remaining = rep.Files - rep.Ingested - rep.AlreadyIngested - len(rep.Unsupported) - len(rep.Failed)
}

// print writes the report (as JSON on stdout with --json, as text on
// stderr) and returns the command's outcome: the fatal error, an
// interruption, or partial failure.
func (rep *ingestReport) print(f *ingestFlags, fatal error) error {
	if f.jsonOut {
		out := stdoutWriter()
		printJSON(out, *rep)
		out.Flush()
	}
	printReport(os.Stderr, *rep)
	if fatal != nil {
		return describe(fatal, f.server)
	}
	switch {
	case rep.Interrupted:
		return exitErr{exitInterrupted, ""}
	case len(rep.Failed) > 0 || len(rep.RecordErrors) > 0:
		return exitErr{exitPartial, ""}
	}
	return nil
}

// collect adds the results of the files to the report and the state file
// as they come, and returns the first fatal error (after which it cancels
// the run with cancel, and goes on collecting what is still in flight).
func (rep *ingestReport) collect(results <-chan fileResult, state *stateWriter, pr *progress, cancel func()) (fatal error) {
	for r := range results {
		switch {
		case r.unsupported != "":
			rep.Unsupported = append(rep.Unsupported, fileProblem{r.task.path, r.unsupported})
		case r.err != nil && errors.Is(r.err, context.Canceled):
			// interrupted: not recorded, sent again next time
		case r.err != nil && isFatal(r.err):
			if fatal == nil {
				fatal = r.err
				cancel()
			}
		case r.err != nil:
			rep.Failed = append(rep.Failed, fileProblem{r.task.path, r.err.Error()})
		default:
			if r.unchanged {
				rep.AlreadyIngested++
			} else {
				rep.Ingested++
				rep.Created += r.created
				rep.Replaced += r.replaced
				rep.Bytes += r.task.size
				for _, e := range r.recErrors {
					rep.RecordErrors = append(rep.RecordErrors, recordReport{r.task.path, e})
				}
			}
			state.add(stateEntry{Path: r.task.abs, Size: r.task.size, MTime: r.task.mtime, SHA256: r.hash, Documents: r.created + r.replaced, Errors: len(r.recErrors)})
		}
		pr.finish(r)
	}
	return fatal
}

// ingestCollection returns the collection f names, creating it with the
// default configuration when it is missing and --create is set.
func ingestCollection(ctx context.Context, cl *client.Client, f *ingestFlags) (client.Collection, error) {
	coll, err := cl.Collection(ctx, f.collection)
	if client.IsNotFound(err) && f.create {
		coll, _, err = cl.PutCollection(ctx, f.collection, nil)
	}
	if err != nil {
		if client.IsNotFound(err) {
			return client.Collection{}, exitErr{exitNotFound, fmt.Sprintf("collection %q does not exist at %s: add --create, or create it with PUT /v1/collections/%s", f.collection, f.server, f.collection)}
		}
		return client.Collection{}, describe(err, f.server)
	}
	return coll, nil
}

// openIngestState reads the state file (--state, else the default one of
// the server, user and collection) unless --restart, and opens it for
// appending the files this run ingests.
func openIngestState(f *ingestFlags, user string, coll client.Collection) (path string, done map[string]stateEntry, file *os.File, err error) {
	path = f.state
	if path == "" {
		if path, err = defaultStatePath(f.server, user, coll); err != nil {
			return "", nil, nil, err
		}
	}
	done = map[string]stateEntry{}
	if !f.restart {
		if done, err = loadState(path); err != nil {
			return "", nil, nil, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", nil, nil, fmt.Errorf("state file: %w", err)
	}
	file, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return "", nil, nil, fmt.Errorf("state file: %w", err)
	}
	return path, done, file, nil
}

// stateWriter appends the entries of ingested files to the state file,
// flushing after every file so that an interruption loses none; the first
// failure to write is reported once, as a warning.
type stateWriter struct {
	w      *bufio.Writer
	path   string
	failed bool
}

// add appends the entry of one file and flushes.
func (s *stateWriter) add(e stateEntry) {
	line, _ := json.Marshal(e)
	s.w.Write(append(line, '\n'))
	if err := s.w.Flush(); err != nil && !s.failed {
		s.failed = true
		fmt.Fprintf(os.Stderr, "najdi ingest: warning: cannot write the state file %s: %v (a rerun sends these files again)\n", s.path, err)
	}
}

// isFatal reports errors that stop the whole ingest: wrong credentials,
// and a server that cannot be reached.
func isFatal(err error) bool {
	var ne *net.OpError
	return client.IsUnauthorized(err) || errors.As(err, &ne)
}

// runIngest uploads the files with f.concurrency workers and sends each
// outcome on the returned channel, closed when every worker stopped.
func runIngest(ctx context.Context, cl *client.Client, f ingestFlags, todo []fileTask, done map[string]stateEntry, pr *progress) <-chan fileResult {
	tasks := make(chan fileTask)
	results := make(chan fileResult)
	var wg sync.WaitGroup
	for range f.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range tasks {
				results <- ingestFile(ctx, cl, f, t, done, pr)
			}
		}()
	}
	go func() {
		defer close(tasks)
		for _, t := range todo {
			select {
			case tasks <- t:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	return results
}

// ingestFile uploads one file: as a job when it is a large record file
// (its progress then shows inside the file), else synchronously.
func ingestFile(ctx context.Context, cl *client.Client, f ingestFlags, t fileTask, done map[string]stateEntry, pr *progress) fileResult {
	r := fileResult{task: t}
	if err := ctx.Err(); err != nil {
		r.err = err
		return r
	}
	data, err := os.ReadFile(t.path)
	if err != nil {
		r.err = fmt.Errorf("read: %w", err)
		return r
	}
	sum := sha256.Sum256(data)
	r.hash = hex.EncodeToString(sum[:])
	if e, ok := done[t.abs]; ok && e.Size == t.size && e.SHA256 == r.hash {
		r.unchanged = true
		return r
	}
	format, err := ingest.DetectFormat("", t.name, data[:min(len(data), 4096)])
	if err != nil {
		r.unsupported = "not a format najdi reads (text, HTML, DOCX, PDF, JSON, JSONL, CSV, XLSX, ODS)"
		return r
	}
	if len(data) == 0 {
		r.unsupported = "empty file"
		return r
	}
	opts := client.IngestOptions{FileName: t.name}
	if format.RecordOriented() {
		opts.IDField = f.idField
	}
	var res client.IngestResult
	if runsAsJob(format, data, f.jobRecords) {
		res, err = ingestJob(ctx, cl, f.collection, data, opts, t, pr)
	} else {
		res, err = cl.Ingest(ctx, f.collection, data, opts)
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		r.err = err
		return r
	}
	for _, d := range res.Documents {
		if d.Status == "replaced" {
			r.replaced++
		} else {
			r.created++
		}
	}
	r.recErrors = res.Errors
	return r
}

// runsAsJob reports whether a file is large enough to run as a server
// job: a record file of about jobRecords records or more.
func runsAsJob(f ingest.Format, data []byte, jobRecords int) bool {
	switch f {
	case ingest.FormatCSV, ingest.FormatJSONL:
		return bytes.Count(data, []byte{'\n'}) >= jobRecords
	case ingest.FormatJSON, ingest.FormatXLSX, ingest.FormatODS:
		return len(data) >= 64<<10 || jobRecords <= 0
	}
	return false
}

// ingestJob runs one upload as a server job and follows its progress.
func ingestJob(ctx context.Context, cl *client.Client, coll string, data []byte, opts client.IngestOptions, t fileTask, pr *progress) (client.IngestResult, error) {
	id, err := cl.StartIngest(ctx, coll, data, opts)
	if err != nil {
		return client.IngestResult{}, err
	}
	defer pr.inFile(t.abs, 0, 0)
	wait := 20 * time.Millisecond
	for {
		select {
		case <-ctx.Done():
			return client.IngestResult{}, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
		j, err := cl.Job(ctx, coll, id)
		if err != nil {
			return client.IngestResult{}, err
		}
		switch j.Status {
		case "done":
			return client.IngestResult{Documents: j.Documents, Errors: j.Errors}, nil
		case "failed":
			return client.IngestResult{Documents: j.Documents, Errors: j.Errors}, fmt.Errorf("job %s failed: %s", id, j.Error)
		}
		pr.inFile(t.abs, j.BytesRead, j.Processed)
	}
}

// collectFiles lists the files under the paths: files as named, the
// regular files of directories recursively (hidden ones only with
// hidden), sorted, each once. Two files that would get the same document
// name are an error.
func collectFiles(paths []string, hidden bool) ([]fileTask, error) {
	set := fileSet{seen: map[string]bool{}, names: map[string]string{}, stems: map[string]string{}}
	for _, root := range paths {
		fi, err := os.Stat(root)
		if err != nil {
			return nil, usagef("%v", err)
		}
		if !fi.IsDir() {
			if err := set.add(root, filepath.Base(root), fi); err != nil {
				return nil, err
			}
			continue
		}
		if err := set.addDir(root, hidden); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(set.tasks, func(i, j int) bool { return set.tasks[i].name < set.tasks[j].name })
	return set.tasks, nil
}

// fileSet collects the files of an ingest, refusing two that would get the
// same document id or whose records would get the same generated ids.
type fileSet struct {
	tasks []fileTask
	seen  map[string]bool   // absolute paths added
	names map[string]string // lower-case document id → path
	stems map[string]string // record files: records without ids are named STEM-1, STEM-2, ...
}

// add adds the file p, named name in the collection.
func (s *fileSet) add(p, name string, fi fs.FileInfo) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return err
	}
	if s.seen[abs] {
		return nil
	}
	s.seen[abs] = true
	key := strings.ToLower(sanitizeName(name))
	if other, ok := s.names[key]; ok {
		return usagef("%s and %s would both be named %q in the collection: ingest their directories instead of the files, or one at a time into different collections", other, p, sanitizeName(name))
	}
	s.names[key] = p
	if f, err := ingest.DetectFormat("", name, nil); err == nil && f.RecordOriented() {
		stem := strings.ToLower(sanitizeName(strings.TrimSuffix(name, filepath.Ext(name))))
		if other, ok := s.stems[stem]; ok {
			return usagef("%s and %s are record files of the same name: records without an id would get the same ids (%s-1, %s-2, ...) and replace each other; rename one", other, p, stem, stem)
		}
		s.stems[stem] = p
	}
	s.tasks = append(s.tasks, fileTask{path: p, abs: abs, name: name, size: fi.Size(), mtime: fi.ModTime().UnixNano()})
	return nil
}

// addDir adds the regular files below the directory root (following
// symbolic links; hidden ones only with hidden), each named by its path
// relative to root with '/' as ':'. A directory without such files is a
// usage error.
func (s *fileSet) addDir(root string, hidden bool) error {
	walkRoot := root
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		walkRoot = resolved // WalkDir does not follow a symbolic link it starts at
	}
	before := len(s.tasks)
	err := filepath.WalkDir(walkRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != walkRoot && !hidden && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Stat(p) // follows symbolic links
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(walkRoot, p)
		if err != nil {
			return err
		}
		return s.add(p, strings.ReplaceAll(filepath.ToSlash(rel), "/", ":"), fi)
	})
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			return err
		}
		return fmt.Errorf("list %s: %w", root, err)
	}
	if len(s.tasks) == before {
		return usagef("%s holds no files to ingest (hidden ones are left out without --hidden)", root)
	}
	return nil
}

// sanitizeName is the document id the server derives from a file name:
// characters outside A-Z a-z 0-9 . _ : - become '_'.
func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// defaultStatePath is the state file of a server, user and collection:
// a collection deleted and created again gets a new one.
func defaultStatePath(server, user string, c client.Collection) (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("state file: %w (set --state)", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	h := sha256.Sum256([]byte(strings.Join([]string{strings.TrimRight(server, "/"), user, c.CollectionID, c.CreatedAt.UTC().Format(time.RFC3339Nano)}, "\x00")))
	return filepath.Join(dir, "najdi", "ingest-"+c.CollectionID+"-"+hex.EncodeToString(h[:6])+".jsonl"), nil
}

// loadState reads the state file (absent: empty); the last entry of a
// path wins. A damaged last line (an interrupted write) is ignored.
func loadState(path string) (map[string]stateEntry, error) {
	m := map[string]stateEntry{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e stateEntry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Path != "" {
			m[e.Path] = e
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	return m, nil
}

// printReport writes the final summary for a person.
func printReport(w io.Writer, r ingestReport) {
	docs := fmt.Sprintf("%d documents", r.Documents)
	if r.Replaced > 0 {
		docs = fmt.Sprintf("%d documents: %d created, %d replaced", r.Documents, r.Created, r.Replaced)
	}
	fmt.Fprintf(w, "ingested %d of %d files into %s (%s, %s) in %s, %.1f documents/s\n",
		r.Ingested, r.Files, r.Collection, docs, fmtBytes(r.Bytes), fmtDuration(r.Seconds), r.DocumentsPerSecond)
	if r.AlreadyIngested > 0 {
		fmt.Fprintf(w, "skipped %d files ingested before (state file %s; --restart ingests them again)\n", r.AlreadyIngested, r.StateFile)
	}
	if len(r.Unsupported) > 0 {
		fmt.Fprintf(w, "skipped %d files najdi cannot read:\n", len(r.Unsupported))
		for _, p := range limitList(r.Unsupported, 20) {
			fmt.Fprintf(w, "  %s: %s\n", p.File, p.Message)
		}
	}
	if len(r.Failed) > 0 {
		fmt.Fprintf(w, "FAILED: %d files were not ingested:\n", len(r.Failed))
		for _, p := range limitList(r.Failed, 50) {
			fmt.Fprintf(w, "  %s: %s\n", p.File, p.Message)
		}
	}
	if len(r.RecordErrors) > 0 {
		fmt.Fprintf(w, "ERRORS: %d records were not ingested:\n", len(r.RecordErrors))
		for _, e := range limitList(r.RecordErrors, 50) {
			where := e.File
			if e.Record != nil {
				where += fmt.Sprintf(" record %d", *e.Record)
			}
			if e.Sheet != "" {
				where += " sheet " + e.Sheet
			}
			fmt.Fprintf(w, "  %s: %s\n", where, e.Message)
		}
	}
	if r.Interrupted {
		fmt.Fprintf(w, "interrupted: %d files not ingested yet; run the same command again to resume\n", r.Remaining)
	}
}

func limitList[T any](l []T, n int) []T {
	if len(l) > n {
		return l[:n]
	}
	return l
}

// progress shows the ingest's progress on stderr.
type progress struct {
	mode      string // bar, lines or none
	interval  time.Duration
	coll      string
	files     int // all files named
	total     int64
	startDone int // files done before this run

	mu       sync.Mutex
	start    time.Time
	done     int
	records  int
	errors   int
	bytes    int64
	inflight map[string][2]int64 // abs path → bytes read, documents (jobs)
	quit     chan struct{}
	stopped  chan struct{}
	width    int
}

func newProgress(mode string, interval time.Duration, coll string, files, already int, todo []fileTask) *progress {
	if mode == "auto" {
		mode = "lines"
		if term.IsTerminal(int(os.Stderr.Fd())) {
			mode = "bar"
		}
	}
	p := &progress{mode: mode, interval: interval, coll: coll, files: files, startDone: already, start: time.Now(),
		inflight: map[string][2]int64{}, quit: make(chan struct{}), stopped: make(chan struct{}), width: 100}
	for _, t := range todo {
		p.total += t.size
	}
	if mode == "bar" {
		if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil && w > 20 {
			p.width = w
		}
	}
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer close(p.stopped)
	if p.mode == "none" {
		<-p.quit
		return
	}
	every := p.interval
	if p.mode == "bar" {
		every = 200 * time.Millisecond
	}
	tk := time.NewTicker(every)
	defer tk.Stop()
	for {
		select {
		case <-p.quit:
			p.draw(true)
			return
		case <-tk.C:
			p.draw(false)
		}
	}
}

// inFile records the progress of a file running as a job.
func (p *progress) inFile(abs string, bytesRead int64, docs int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if bytesRead == 0 && docs == 0 {
		delete(p.inflight, abs)
		return
	}
	p.inflight[abs] = [2]int64{bytesRead, int64(docs)}
}

func (p *progress) finish(r fileResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.err != nil && errors.Is(r.err, context.Canceled) {
		return
	}
	p.done++
	p.bytes += r.task.size
	p.records += r.created + r.replaced
	p.errors += len(r.recErrors)
	if r.err != nil {
		p.errors++
	}
}

func (p *progress) stop() {
	close(p.quit)
	<-p.stopped
}

func (p *progress) draw(final bool) {
	p.mu.Lock()
	done, records, bytes, errs := p.done+p.startDone, p.records, p.bytes, p.errors
	for _, v := range p.inflight {
		bytes += v[0]
		records += int(v[1])
	}
	elapsed := time.Since(p.start).Seconds()
	p.mu.Unlock()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(records) / elapsed
	}
	eta := "-"
	if bytes > 0 && p.total > bytes && !final {
		eta = fmtDuration(elapsed * float64(p.total-bytes) / float64(bytes))
	} else if p.total > 0 && bytes >= p.total {
		eta = "0s"
	}
	frac := 1.0
	if p.total > 0 {
		frac = min(1, float64(bytes)/float64(p.total))
	}
	stats := fmt.Sprintf("%d/%d files  %d records  %s/%s  %.1f docs/s  ETA %s", done, p.files, records, fmtBytes(bytes), fmtBytes(p.total), rate, eta)
	if errs > 0 {
		stats += fmt.Sprintf("  %d errors", errs)
	}
	if p.mode == "lines" {
		fmt.Fprintf(os.Stderr, "ingest %s: %s\n", p.coll, strings.Join(strings.Fields(stats), " "))
		return
	}
	barw := max(10, min(30, p.width-len(stats)-len(p.coll)-16))
	fill := int(frac * float64(barw))
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", barw-fill)
	if fill < barw && fill > 0 {
		bar = strings.Repeat("=", fill-1) + ">" + strings.Repeat(" ", barw-fill)
	}
	line := fmt.Sprintf("%s [%s] %3.0f%%  %s", p.coll, bar, frac*100, stats)
	if len(line) > p.width-1 {
		line = line[:p.width-1]
	}
	fmt.Fprintf(os.Stderr, "\r\033[K%s", line)
	if final {
		fmt.Fprintln(os.Stderr)
	}
}

// fmtBytes formats a byte count (B, kB, MB, GB; powers of 1000).
func fmtBytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// fmtDuration formats seconds as 42s, 3m05s or 1h02m.
func fmtDuration(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
