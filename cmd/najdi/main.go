// Command najdi runs the najdi search and language-understanding service.
//
//	najdi serve --addr 127.0.0.1:8080 --data ./data [--users FILE]
//	najdi hash-password < password.txt
//	najdi ingest PATH... --collection C [--server URL] [--user U]
//	najdi search QUERY --collection C[,D]
//	najdi collections | models | jobs
//
// The client commands (ingest, search, collections, models, jobs) call a
// running server through package client; their exit codes are listed in
// cli.go and README.md.
//
// Every flag of serve can also be set by an environment variable named
// NAJDI_<FLAG> (upper case, '-' as '_'), e.g. NAJDI_ADDR.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/najdi/najdi/cluster"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/internal/outbound"
	"github.com/najdi/najdi/nlu"
	"github.com/najdi/najdi/nlu/intent"
	"github.com/najdi/najdi/nlu/ner"
	"github.com/najdi/najdi/rerank"
	"github.com/najdi/najdi/server"
	"github.com/najdi/najdi/summary"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "hash-password":
		err = hashPassword()
	case "version":
		fmt.Println("najdi 0.1.0")
	case "ingest", "search", "collections", "models", "jobs":
		cmd := map[string]func([]string) error{"ingest": cmdIngest, "search": cmdSearch, "collections": cmdCollections, "models": cmdModels, "jobs": cmdJobs}[os.Args[1]]
		err = cmd(os.Args[2:])
		if code := exitCode(err); code != exitOK {
			if msg := err.Error(); msg != "" && !errors.Is(err, flag.ErrHelp) {
				fmt.Fprintln(os.Stderr, "najdi "+os.Args[1]+":", msg)
			}
			os.Exit(code)
		}
		return
	default:
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "najdi:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  najdi serve [flags]        run the HTTP service (najdi serve -h lists flags)
  najdi hash-password        read a password on stdin, print its bcrypt hash
  najdi ingest PATH... --collection C [--create]
                             upload files and directories (every format, recursive, resumable)
  najdi search QUERY --collection C[,D]   search (--json for scripts)
  najdi collections          list collections
  najdi models               list NLU models
  najdi jobs                 list ingest jobs
  najdi version

Client commands take --server URL (env NAJDI_SERVER, default http://127.0.0.1:8080),
--user U (env NAJDI_USER; password from NAJDI_PASSWORD or a prompt) and --json.
Exit codes: 0 ok, 1 error, 2 usage, 3 some files or records failed, 4 authentication,
5 not found, 130 interrupted (ingest resumes when run again).
`)
}

// serve runs `najdi serve`: flags → checks → engine options (embedders,
// reranker, answerer, backend) → engine → NLU service → HTTP server until
// SIGINT or SIGTERM.
func serve(args []string) error {
	f, err := parseServeFlags(args)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	us, err := loadUsers(f.users, f.addr, log)
	if err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	opts, release, err := f.engineOptions(log)
	if err != nil {
		return err
	}
	defer release()
	if err := os.MkdirAll(f.data, 0o755); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	eng, err := engine.Open(opts)
	if err != nil {
		return err
	}
	defer eng.Close()
	nluSvc, err := f.nluService(eng, opts, log)
	if err != nil {
		return err
	}
	srv := server.New(eng, nluSvc, server.Config{MaxBodyBytes: f.maxBody, Users: us, Logger: log, LoginFailuresPerMinute: f.loginFailures})
	if f.pprofAddr != "" {
		stop, err := servePprof(f.pprofAddr, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	return listenAndServe(srv, f.addr, f.data, log)
}

// serveFlags are the flags of `najdi serve`.
type serveFlags struct {
	addr, data, users     string
	models, ortLib        string
	maxBody               int
	ingestWorkers         int
	embedThreads          int
	queryEmbedThreads     int
	memLimit              string
	pprofAddr             string
	maxIngests            int
	maxJobs, maxJobsOwner int
	loginFailures         int
	llmURL, llmModel      string
	llmKeyEnv             string
	llmTimeout            time.Duration
	reranker              string
	noEmbed               bool
	nluTimeout            time.Duration
	allowOutbound         []string
	clusterURL            string
	clusterUser           string
	clusterPassword       string
	clusterAPIKeyEnv      string
	clusterCA             string
	clusterPrefix         string
	clusterJobLease       time.Duration
	secrets               secretFlag
	apiKeys               []engine.APIKey // from secrets, by check
}

// parseServeFlags reads the flags of `najdi serve` from the environment
// (NAJDI_<FLAG>, except --users) and then from args.
func parseServeFlags(args []string) (*serveFlags, error) {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	modelsDir, libPath := embed.CachePaths(embed.DefaultCacheDir())
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen address")
	fs.StringVar(&f.data, "data", "./data", "data directory")
	fs.StringVar(&f.users, "users", "", "credentials file: lines name:bcrypt-hash[:role]; NAJDI_USERS may hold the same lines")
	fs.StringVar(&f.models, "models", modelsDir, "directory of installed embedding models")
	fs.StringVar(&f.ortLib, "ort-lib", libPath, "path of the ONNX Runtime shared library")
	fs.IntVar(&f.maxBody, "max-body", 100<<20, "maximum request body in bytes")
	fs.IntVar(&f.ingestWorkers, "ingest-workers", 0, "ingests that parse, analyze and embed at once (0: max(1, CPUs-1), leaving a CPU to searches)")
	fs.IntVar(&f.embedThreads, "embed-threads", 0, "ONNX Runtime threads with which ingests embed passages (0: max(1, CPUs-1), leaving a CPU to searches)")
	fs.IntVar(&f.queryEmbedThreads, "query-embed-threads", 0, "ONNX Runtime threads with which searches embed queries, in a session of their own (0: CPUs)")
	fs.StringVar(&f.memLimit, "memory-limit", "", "soft limit of the Go heap and runtime memory (e.g. 1GiB): the garbage collector works harder near it, so resident memory stays under it while the data fits (empty: the GOMEMLIMIT environment variable, else none)")
	fs.StringVar(&f.pprofAddr, "pprof-addr", "", "serve Go's profiles (net/http/pprof: heap, CPU, goroutines) on this loopback address, e.g. 127.0.0.1:6060, without authentication (empty: off)")
	fs.IntVar(&f.maxIngests, "max-ingests", 8, "synchronous ingests running or waiting for a turn at once; beyond it 429")
	fs.IntVar(&f.maxJobs, "max-ingest-jobs", 32, "asynchronous ingest jobs queued or running on the server; beyond it 429")
	fs.IntVar(&f.maxJobsOwner, "max-ingest-jobs-per-owner", 8, "asynchronous ingest jobs of one owner queued or running; beyond it 429")
	fs.IntVar(&f.loginFailures, "login-failures-per-minute", 10, "failed logins allowed per client address and per user name in a burst, regained at this rate per minute; beyond it 429")
	fs.StringVar(&f.llmURL, "llm-url", "", "OpenAI-compatible chat API base URL for generated answers (default: extractive answers)")
	fs.StringVar(&f.llmModel, "llm-model", "", "model name for --llm-url")
	fs.StringVar(&f.llmKeyEnv, "llm-key-env", "NAJDI_LLM_API_KEY", "environment variable holding the LLM API key")
	fs.DurationVar(&f.llmTimeout, "llm-timeout", 60*time.Second, "timeout of one LLM call")
	fs.StringVar(&f.reranker, "reranker", rerank.DefaultDir(embed.DefaultCacheDir()), "directory of the cross-encoder that searches with \"rerank\" use (loaded on first use; \"\" refuses them)")
	fs.BoolVar(&f.noEmbed, "no-embeddings", false, "serve without embedding models (keyword-only collections)")
	fs.DurationVar(&f.nluTimeout, "nlu-timeout", 10*time.Second, "timeout of one call to an annotation microservice (NLU annotator models)")
	allowOutbound := fs.String("allow-outbound", "", "hosts that remote embedding endpoints and annotation microservices named by clients may be on: host[:port], *.domain or * (public addresses only), comma-separated; empty: none")
	fs.StringVar(&f.clusterURL, "cluster-url", "", "serve every collection from this Elasticsearch 8.x or OpenSearch 2.x/3.x cluster (http(s)://host:port) instead of the data directory; collection records, NLU models, phrase sets and ingest jobs live on the cluster too (docs/cluster.md)")
	fs.StringVar(&f.clusterUser, "cluster-user", "", "HTTP Basic user name for --cluster-url (NAJDI_CLUSTER_USER)")
	fs.StringVar(&f.clusterPassword, "cluster-password", "", "HTTP Basic password for --cluster-url; prefer the environment variable NAJDI_CLUSTER_PASSWORD")
	fs.StringVar(&f.clusterAPIKeyEnv, "cluster-api-key-env", cluster.EnvAPIKey, "environment variable holding an API key for --cluster-url (the base64 id:key form, sent as Authorization: ApiKey); used instead of --cluster-user when set")
	fs.StringVar(&f.clusterCA, "cluster-tls-ca", "", "PEM file of certificate authorities trusted for an https --cluster-url, besides the system's")
	fs.StringVar(&f.clusterPrefix, "cluster-prefix", "najdi-", "prefix of every index and alias najdi creates on --cluster-url, so several deployments can share a cluster")
	fs.DurationVar(&f.clusterJobLease, "cluster-job-lease", engine.DefaultJobLease, "with --cluster-url: how long an ingest job stays with the replica running it without a renewal; after it any replica resumes the job (docs/cluster.md)")
	fs.Var(&f.secrets, "secret", "declare an API key that collections may name (api_key_name): NAME=ENVVAR, the key read from the environment variable ENVVAR at start; repeatable or comma-separated")
	fs.VisitAll(func(fl *flag.Flag) {
		if v, ok := os.LookupEnv("NAJDI_" + strings.ToUpper(strings.ReplaceAll(fl.Name, "-", "_"))); ok && fl.Name != "users" {
			_ = fl.Value.Set(v)
		}
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.allowOutbound = strings.Split(*allowOutbound, ",")
	return &f, nil
}

// check validates the flags that need no model or network, and applies
// --memory-limit.
func (f *serveFlags) check() error {
	if _, err := outbound.New(f.allowOutbound); err != nil {
		return fmt.Errorf("--allow-outbound: %w", err)
	}
	var err error
	if f.apiKeys, err = f.secrets.keys(); err != nil {
		return err
	}
	if err := setMemoryLimit(f.memLimit); err != nil {
		return err
	}
	if err := checkLoopback(f.pprofAddr); err != nil {
		return fmt.Errorf("--pprof-addr: %w", err)
	}
	if f.embedThreads < 0 || f.queryEmbedThreads < 0 {
		return errors.New("--embed-threads and --query-embed-threads must be 0 (the default) or more")
	}
	if f.ingestWorkers < 0 || f.maxIngests < 1 || f.maxJobs < 1 || f.maxJobsOwner < 1 || f.loginFailures < 1 {
		return errors.New("--ingest-workers must be 0 or more; --max-ingests, --max-ingest-jobs, --max-ingest-jobs-per-owner and --login-failures-per-minute at least 1")
	}
	if f.nluTimeout <= 0 {
		return fmt.Errorf("--nlu-timeout %v: want a positive duration", f.nluTimeout)
	}
	if f.clusterJobLease <= 0 {
		return fmt.Errorf("--cluster-job-lease %v: want a positive duration", f.clusterJobLease)
	}
	return nil
}

// engineOptions builds the engine's options: limits, the embedding models
// and the reranker (unless --no-embeddings), the LLM answerer and the
// cluster backend. release closes the models.
func (f *serveFlags) engineOptions(log *slog.Logger) (opts engine.Options, release func(), err error) {
	opts = engine.Options{Dir: f.data, Logger: log, IngestWorkers: f.ingestWorkers, MaxIngests: f.maxIngests, MaxIngestJobs: f.maxJobs, MaxIngestJobsPerOwner: f.maxJobsOwner}
	var closers []func() error
	release = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			_ = closers[i]()
		}
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	if !f.noEmbed {
		prov, err := engine.NewModelProviderOptions(f.models, f.ortLib, engine.ProviderOptions{AllowOutbound: f.allowOutbound, APIKeys: f.apiKeys, Logger: log, EmbedThreads: f.embedThreads, QueryEmbedThreads: f.queryEmbedThreads})
		if err != nil {
			return opts, release, err
		}
		opts.Embedders = prov
		closers = append(closers, prov.Close)
		if f.reranker != "" {
			rr := rerank.NewLazy(f.reranker, rerank.Options{LibraryPath: f.ortLib})
			opts.Reranker = rr
			closers = append(closers, rr.Close)
		}
	}
	if f.llmURL != "" {
		if opts.Answerer, err = llmAnswerer(f.llmURL, f.llmModel, f.llmKeyEnv, f.llmTimeout, log); err != nil {
			return opts, release, err
		}
	}
	if f.clusterURL != "" {
		cl, err := f.clusterClient()
		if err != nil {
			return opts, release, err
		}
		opts.Backend = cluster.EngineBackend{C: cl}
		// Ingest jobs live on the cluster too: any replica reads them and
		// resumes one whose replica is gone.
		opts.Jobs, opts.JobLease = cluster.NewJobStore(cl), f.clusterJobLease
		log.Info("serving collections from the search cluster", "cluster", opts.Backend.Describe(), "url", f.clusterURL, "prefix", f.clusterPrefix)
	}
	return opts, release, nil
}

// clusterClient connects to --cluster-url (waiting at most 2 minutes) with
// the ranker's BM25 constants.
func (f *serveFlags) clusterClient() (*cluster.Client, error) {
	r := engine.DefaultRanker()
	ccfg := cluster.Config{URL: f.clusterURL, Username: f.clusterUser, Password: f.clusterPassword,
		APIKey: os.Getenv(f.clusterAPIKeyEnv), CAFile: f.clusterCA, Prefix: f.clusterPrefix, K1: float64(r.K1), B: float64(r.B)}
	if ccfg.APIKey != "" {
		ccfg.Username, ccfg.Password = "", ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := cluster.New(ctx, ccfg)
	if err != nil {
		return nil, fmt.Errorf("--cluster-url: %w", err)
	}
	return cl, nil
}

// nluService opens the NLU service with the engine's embedding models, its
// models stored in the engine's store (or on the cluster backend).
func (f *serveFlags) nluService(eng *engine.Engine, opts engine.Options, log *slog.Logger) (*nlu.Service, error) {
	nopts := nlu.Options{MicroserviceTimeout: f.nluTimeout, AllowOutbound: f.allowOutbound, Logger: log}
	nluEmbedders(&nopts, opts.Embedders)
	nluStore := server.NLUStore(eng.Store())
	if opts.Backend != nil {
		// NLU models and phrase sets live on the cluster too.
		nluStore = backendNLUStore{opts.Backend}
	}
	nluSvc, err := nlu.NewService(nluStore, nopts)
	if err != nil {
		return nil, fmt.Errorf("nlu: %w", err)
	}
	return nluSvc, nil
}

// llmAnswerer returns the answerer of --llm-url. The LLM endpoint and its
// key are the operator's: the URL from the flag (not subject to
// --allow-outbound), the key from the environment variable keyEnv names.
// No request can change either.
func llmAnswerer(url, model, keyEnv string, timeout time.Duration, log *slog.Logger) (*summary.LLM, error) {
	if model == "" {
		return nil, errors.New("--llm-url needs --llm-model")
	}
	if _, err := outbound.ParseURL(url); err != nil {
		return nil, fmt.Errorf("--llm-url: %w", err)
	}
	return &summary.LLM{URL: url, Model: model, APIKey: os.Getenv(keyEnv), Timeout: timeout, Logger: log}, nil
}

// setMemoryLimit applies --memory-limit (a size such as 1GiB; empty: leave
// GOMEMLIMIT or no limit) as the Go runtime's soft memory limit.
func setMemoryLimit(size string) error {
	if size == "" {
		return nil
	}
	n, err := parseSize(size)
	if err != nil {
		return fmt.Errorf("--memory-limit: %w", err)
	}
	if n == 0 {
		return errors.New("--memory-limit: want a positive size such as 1GiB")
	}
	debug.SetMemoryLimit(n)
	return nil
}

// loadUsers reads the credentials of --users (a file) or NAJDI_USERS
// (lines, or comma-separated). Without users najdi listens on loopback
// only: a non-loopback addr is an error.
func loadUsers(path, addr string, log *slog.Logger) (*server.Users, error) {
	var us *server.Users
	var err error
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("users file: %w", err)
		}
		us, err = server.ParseUsers(f)
		f.Close()
		if err != nil {
			return nil, err
		}
	} else if env := os.Getenv("NAJDI_USERS"); env != "" {
		if us, err = server.ParseUsers(strings.NewReader(strings.ReplaceAll(env, ",", "\n"))); err != nil {
			return nil, fmt.Errorf("NAJDI_USERS: %w", err)
		}
	}
	if us.Len() == 0 {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("--addr %q: %w", addr, err)
		}
		if !loopbackHost(host) {
			return nil, fmt.Errorf("no users are configured (--users or NAJDI_USERS), so najdi only listens on loopback; --addr %s is not a loopback address", addr)
		}
		log.Warn("no users configured: authentication is off and najdi listens on loopback only", "addr", addr)
	}
	return us, nil
}

// loopbackHost tells whether host (of a host:port address) is "localhost"
// or a loopback IP address.
func loopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// nluEmbedders gives the NLU service the engine's embedding models, when it
// has any: the default model for intents, and for Czech intent classifiers
// the multilingual model when it is installed (10-shot Czech intents 0.80
// top-1 against 0.68 with the English default; docs/nlu.md).
func nluEmbedders(nopts *nlu.Options, prov engine.EmbedderProvider) {
	if prov == nil {
		return
	}
	nopts.Embedder = engine.IntentEmbedder(prov)
	nopts.EmbedderFor = func(lang string) intent.Embedder {
		if lang != "cs" {
			return nil
		}
		if _, err := prov.Embedder(engine.EmbeddingConfig{Model: engine.MultilingualModel}); err != nil {
			return nil
		}
		return engine.IntentEmbedderOf(prov, engine.MultilingualModel)
	}
	// English builtin-ner reads the contextual word vectors of its model
	// (bge-small-en-v1.5, the default) when it is installed.
	nopts.WordStates = func(model string) ner.WordStates {
		emb, err := prov.Embedder(engine.EmbeddingConfig{Model: model})
		if err != nil {
			return nil
		}
		if ws, ok := emb.(embed.WordStater); ok {
			return ws.WordStates
		}
		return nil
	}
}

// listenAndServe serves srv on addr until it fails or the process gets
// SIGINT or SIGTERM, then shuts it down (waiting at most 10 s).
func listenAndServe(srv *server.Server, addr, data string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	log.Info("najdi listening", "addr", ln.Addr().String(), "data", data)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case err := <-errc:
		return err
	case <-sig:
		log.Info("shutting down")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done := make(chan struct{})
		go func() { srv.Shutdown(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
		}
		return nil
	}
}

// secretFlag collects --secret NAME=ENVVAR declarations (NAJDI_SECRET
// holds them comma-separated).
type secretFlag []string

func (f *secretFlag) String() string { return strings.Join(*f, ",") }

func (f *secretFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*f = append(*f, s)
		}
	}
	return nil
}

// keys reads the declared keys from the environment. A declaration that is
// malformed, repeated or names an empty variable stops the server: a
// collection naming the key would fail later, and less clearly.
func (f secretFlag) keys() ([]engine.APIKey, error) {
	var keys []engine.APIKey
	for _, d := range f {
		name, env, ok := strings.Cut(d, "=")
		if !ok || name == "" || env == "" {
			return nil, fmt.Errorf("--secret %q: want NAME=ENVVAR", d)
		}
		v := os.Getenv(env)
		if v == "" {
			return nil, fmt.Errorf("--secret %s: environment variable %s is empty", name, env)
		}
		keys = append(keys, engine.APIKey{Name: name, Env: env, Key: v})
	}
	if err := (engine.ProviderOptions{APIKeys: keys}).Validate(); err != nil {
		return nil, fmt.Errorf("--secret: %w", err)
	}
	return keys, nil
}

func hashPassword() error {
	sc := bufio.NewScanner(os.Stdin)
	if !sc.Scan() {
		return errors.New("hash-password: no password on stdin")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(strings.TrimRight(sc.Text(), "\r\n")), 10)
	if err != nil {
		return err
	}
	fmt.Println(string(h))
	return nil
}
