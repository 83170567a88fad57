package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/nlu"
	"github.com/najdi/najdi/ui"
)

// Config configures a Server.
type Config struct {
	// MaxBodyBytes limits request bodies (default 100 MiB).
	MaxBodyBytes int
	// Users authenticates requests; nil or empty disables authentication
	// (every request acts as the anonymous owner "").
	Users *Users
	// ReadTimeout and WriteTimeout bound one request (defaults 5 min).
	ReadTimeout, WriteTimeout time.Duration
	// Logger receives request errors (default slog.Default()).
	Logger *slog.Logger
	// LoginFailuresPerMinute limits failed logins per client address and
	// per user name: that many in a burst, regained at that rate (default
	// 10); beyond it 429 with Retry-After.
	LoginFailuresPerMinute int
	// BcryptWorkers bounds the password checks running at once (default
	// max(1, GOMAXPROCS/2)).
	BcryptWorkers int
}

// Server serves najdi's HTTP API over fasthttp. Handlers are thin: they
// decode the request, call the engine or the NLU service, and encode the
// answer. Nothing keeps a *fasthttp.RequestCtx after its handler returns.
type Server struct {
	eng     *engine.Engine
	nlu     *nlu.Service
	cfg     Config
	metrics *metrics
	ready   bool
	srv     *fasthttp.Server
	logins  *loginLimiter // failed logins (limit.go)
	bcrypt  chan struct{} // bcrypt workers
}

// New returns a server over the engine and the NLU service.
func New(eng *engine.Engine, nluSvc *nlu.Service, cfg Config) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 100 << 20
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 5 * time.Minute
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 5 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.LoginFailuresPerMinute <= 0 {
		cfg.LoginFailuresPerMinute = defaultLoginFailuresPerMinute
	}
	if cfg.BcryptWorkers <= 0 {
		cfg.BcryptWorkers = max(1, runtime.GOMAXPROCS(0)/2)
	}
	s := &Server{eng: eng, nlu: nluSvc, cfg: cfg, metrics: newMetrics(),
		logins: newLoginLimiter(cfg.LoginFailuresPerMinute, loginLimiterKeys), bcrypt: make(chan struct{}, cfg.BcryptWorkers)}
	s.srv = &fasthttp.Server{
		Handler:            s.Handle,
		Name:               "najdi",
		MaxRequestBodySize: cfg.MaxBodyBytes,
		ReadTimeout:        cfg.ReadTimeout,
		WriteTimeout:       cfg.WriteTimeout,
		StreamRequestBody:  false,
		ReadBufferSize:     maxHeaderBytes,
		// A connection gives its buffers back between requests: without
		// it, every keep-alive connection kept the request body buffer of
		// its largest upload (up to --max-body) and its 64 KiB read
		// buffer while idle, memory bounded only by the number of open
		// connections (TestIdleConnectionsHoldNoBodies).
		ReduceMemoryUsage: true,
		// fasthttp's own log lines name what failed, never the request's
		// bytes (its messages quote them, credentials included: conn.go).
		Logger: requestLogger{cfg.Logger},
		// Requests fasthttp cannot read are answered in JSON, without
		// echoing them (conn.go).
		ErrorHandler: func(ctx *fasthttp.RequestCtx, err error) {
			requestError(ctx, err, cfg.MaxBodyBytes)
		},
	}
	s.ready = true
	return s
}

// Serve serves on the listener until Shutdown.
func (s *Server) Serve(ln net.Listener) error { return s.srv.Serve(lingerListener{ln}) }

// Shutdown stops accepting connections and waits for handlers to finish.
func (s *Server) Shutdown() error { return s.srv.Shutdown() }

// Handle is the fasthttp request handler.
func (s *Server) Handle(ctx *fasthttp.RequestCtx) {
	start := time.Now()
	route := s.route(ctx)
	s.metrics.observe(route, string(ctx.Method()), ctx.Response.StatusCode(), time.Since(start))
}

// route dispatches a request and returns its route name for metrics.
func (s *Server) route(ctx *fasthttp.RequestCtx) string {
	path := string(ctx.Path())
	method := string(ctx.Method())
	var partsBuf [8]string
	parts := splitAppend(partsBuf[:0], strings.Trim(path, "/"), '/')
	switch path {
	case "/health", "/metrics", "/v1/openapi.json", "/":
		if method != "GET" && method != "HEAD" {
			methodNotAllowed(ctx, "GET, HEAD")
			return path
		}
	}
	switch path {
	case "/health":
		s.health(ctx)
		return "/health"
	case "/v1/openapi.json":
		ctx.Response.Header.SetContentType("application/json")
		ctx.SetBody(openAPI)
		return "/v1/openapi.json"
	case "/":
		// The web console (package ui), behind authentication below.
		ctx.Redirect(ui.Prefix, fasthttp.StatusFound)
		return "/"
	}
	user, ok := s.authenticate(ctx)
	if !ok {
		return "unauthorized"
	}
	if path == "/ui" || strings.HasPrefix(path, ui.Prefix) {
		sess := ui.Session{Auth: s.cfg.Users.Len() > 0}
		if user != nil {
			sess.User = user.Name
		}
		ui.Serve(ctx, sess)
		return "/ui"
	}
	if path == "/metrics" {
		// Metrics name owners and collections: with authentication on,
		// only admins may read them.
		if s.cfg.Users.Len() > 0 && !user.admin() {
			writeErrorStatus(ctx, 403, "metrics are readable by admin users only", nil)
			return "/metrics"
		}
		s.metrics.write(ctx, s.eng)
		return "/metrics"
	}
	if s.rejectUnknownParams(ctx, user, method, parts) {
		return "unknown parameter"
	}
	switch {
	case len(parts) >= 2 && parts[0] == "v1" && parts[1] == "collections":
		return s.collections(ctx, user, method, parts[2:])
	case len(parts) == 2 && parts[0] == "v1" && parts[1] == "jobs":
		return s.listJobs(ctx, user.owner(ctx), method, string(ctx.QueryArgs().Peek("collection_id")), "/v1/jobs")
	case parts[0] == "models":
		return s.models(ctx, user, method, parts[1:])
	case parts[0] == "phrase-sets":
		return s.phraseSets(ctx, user, method, parts[1:])
	}
	writeErrorStatus(ctx, 404, fmt.Sprintf("no route %s %s: see /v1/openapi.json", method, path), nil)
	return "unknown"
}

func (s *Server) health(ctx *fasthttp.RequestCtx) {
	if !s.ready {
		writeErrorStatus(ctx, 503, "starting", nil)
		return
	}
	writeJSON(ctx, 200, map[string]any{"status": "ok"})
}

func methodNotAllowed(ctx *fasthttp.RequestCtx, allowed string) {
	ctx.Response.Header.Set("Allow", allowed)
	writeErrorStatus(ctx, 405, fmt.Sprintf("method %s is not allowed here (allowed: %s)", ctx.Method(), allowed), nil)
}

// collections routes /v1/collections/...
func (s *Server) collections(ctx *fasthttp.RequestCtx, u *User, method string, rest []string) string {
	owner := u.owner(ctx)
	switch len(rest) {
	case 0:
		return s.listCollections(ctx, u, owner, method)
	case 1:
		s.collection(ctx, owner, method, rest[0])
		return "/v1/collections/{id}"
	}
	var idsBuf [4]string
	ids := splitAppend(idsBuf[:0], rest[0], ',')
	switch rest[1] {
	case "documents":
		return s.documents(ctx, owner, method, ids, rest[2:])
	case "jobs":
		return s.collectionJobs(ctx, owner, method, ids, rest[2:])
	case "search", "answer", "query":
		if len(rest) != 2 {
			break
		}
		return s.search(ctx, owner, method, ids, rest[1])
	}
	writeErrorStatus(ctx, 404, fmt.Sprintf("no route %s %s: see /v1/openapi.json", method, ctx.Path()), nil)
	return "unknown"
}

// listCollections answers GET /v1/collections: the owner's collections
// (an admin without owner: every owner's).
func (s *Server) listCollections(ctx *fasthttp.RequestCtx, u *User, owner, method string) string {
	if method != "GET" {
		methodNotAllowed(ctx, "GET")
		return "/v1/collections"
	}
	colls, err := s.eng.Collections(ctx, owner, u.admin() && owner == u.Name)
	if err != nil {
		writeError(ctx, err)
		return "/v1/collections"
	}
	writeJSON(ctx, 200, map[string]any{"collections": colls})
	return "/v1/collections"
}

// collection answers GET, PUT and DELETE /v1/collections/{id}.
func (s *Server) collection(ctx *fasthttp.RequestCtx, owner, method, id string) {
	switch method {
	case "PUT":
		s.putCollection(ctx, owner, id)
	case "GET":
		c, err := s.eng.GetCollection(ctx, owner, id)
		if err != nil {
			writeError(ctx, err)
			return
		}
		writeJSON(ctx, 200, c)
	case "DELETE":
		if err := s.eng.DeleteCollection(ctx, owner, id); err != nil {
			writeError(ctx, err)
			return
		}
		ctx.SetStatusCode(204)
	default:
		methodNotAllowed(ctx, "GET, PUT, DELETE")
	}
}

// putCollection creates (201) or updates (200) a collection from a JSON
// configuration.
func (s *Server) putCollection(ctx *fasthttp.RequestCtx, owner, id string) {
	if !jsonBody(ctx) {
		return
	}
	if bytes.Equal(bytes.TrimSpace(ctx.PostBody()), []byte("null")) {
		writeErrorStatus(ctx, 400, "collection configuration: null is not an object (send {} or no body for the defaults)", nil)
		return
	}
	cfg, err := engine.ParseCollectionConfig(ctx.PostBody())
	if err != nil {
		writeError(ctx, err)
		return
	}
	c, created, err := s.eng.PutCollection(ctx, owner, id, cfg)
	if err != nil {
		writeError(ctx, err)
		return
	}
	status := 200
	if created {
		status = 201
	}
	writeJSON(ctx, status, c)
}

// collectionJobs routes /v1/collections/{id}/jobs and
// /v1/collections/{id}/jobs/{job_id} (rest is what follows jobs).
func (s *Server) collectionJobs(ctx *fasthttp.RequestCtx, owner, method string, ids, rest []string) string {
	if len(rest) == 0 && len(ids) == 1 {
		return s.listJobs(ctx, owner, method, ids[0], "/v1/collections/{id}/jobs")
	}
	const route = "/v1/collections/{id}/jobs/{job}"
	if len(rest) != 1 || len(ids) != 1 {
		writeErrorStatus(ctx, 404, "use GET /v1/collections/{id}/jobs/{job_id}", nil)
		return route
	}
	if method != "GET" {
		methodNotAllowed(ctx, "GET")
		return route
	}
	st, err := s.eng.Job(owner, ids[0], rest[0])
	if err != nil {
		writeError(ctx, err)
	} else {
		writeJSON(ctx, 200, st)
	}
	return route
}

// listJobs answers GET /v1/jobs and GET /v1/collections/{id}/jobs: the
// owner's ingest jobs, newest first, optionally of one collection and in
// one status; at most limit (default 100, at most 1000).
func (s *Server) listJobs(ctx *fasthttp.RequestCtx, owner, method, coll, route string) string {
	if method != "GET" {
		methodNotAllowed(ctx, "GET")
		return route
	}
	if rejectEmptyParams(ctx, "collection_id", "status", "limit") {
		return route
	}
	limit := 100
	if v := ctx.QueryArgs().Peek("limit"); len(v) > 0 {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 1 || n > 1000 {
			writeErrorStatus(ctx, 400, fmt.Sprintf("limit: %q is not an integer between 1 and 1000", v), map[string]any{"field": "limit"})
			return route
		}
		limit = n
	}
	jobs, err := s.eng.Jobs(owner, coll, string(ctx.QueryArgs().Peek("status")))
	if err != nil {
		writeError(ctx, err)
		return route
	}
	writeJSON(ctx, 200, map[string]any{"jobs": jobs[:min(limit, len(jobs))]})
	return route
}

func (s *Server) search(ctx *fasthttp.RequestCtx, owner, method string, ids []string, op string) string {
	route := "/v1/collections/{ids}/" + op
	var req engine.SearchRequest
	var err error
	if op == "query" {
		if method != "GET" {
			methodNotAllowed(ctx, "GET")
			return route
		}
		if !s.collectionsExist(ctx, owner, ids) {
			return route
		}
		req, err = queryRequest(ctx.QueryArgs())
		if err == nil && emptyParamName(ctx) {
			err = &engine.Error{Kind: engine.ErrInvalid, Message: `unknown query parameter "" (a parameter without a name)`, Details: map[string]any{"parameter": ""}}
		}
	} else {
		if method != "POST" {
			methodNotAllowed(ctx, "POST")
			return route
		}
		if !s.collectionsExist(ctx, owner, ids) {
			return route
		}
		if !isJSON(ctx) {
			writeErrorStatus(ctx, 415, "send the request as Content-Type: application/json", nil)
			return route
		}
		req, err = engine.ParseSearchRequest(ctx.PostBody())
	}
	if err != nil {
		writeError(ctx, err)
		return route
	}
	var resp engine.SearchResponse
	if op == "answer" {
		resp, err = s.eng.Answer(ctx, owner, ids, req)
	} else {
		resp, err = s.eng.Search(ctx, owner, ids, req)
	}
	if err != nil {
		writeError(ctx, err)
		return route
	}
	writeSearchResponse(ctx, &resp)
	return route
}

// searchBufs holds response buffers for writeSearchResponse.
var searchBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// writeSearchResponse encodes a search response without reflection
// (engine.SearchResponse.AppendJSON, the same bytes as writeJSON) and
// reports the encoding time in metadata.timings.encode_ms.
func writeSearchResponse(ctx *fasthttp.RequestCtx, resp *engine.SearchResponse) {
	bp := searchBufs.Get().(*[]byte)
	b := resp.AppendJSON((*bp)[:0], time.Now())
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(200)
	ctx.SetBody(b) // copies
	if cap(b) <= 1<<20 {
		*bp = b[:0]
		searchBufs.Put(bp)
	}
}

// collectionsExist reports whether every id names a collection of the
// owner, and answers the request with the error (404, or 400 for an
// invalid id) when one does not. Handlers call it before they look at the
// parameters or the body: a missing collection is the first thing wrong
// with such a request.
func (s *Server) collectionsExist(ctx *fasthttp.RequestCtx, owner string, ids []string) bool {
	for _, id := range ids {
		if err := s.eng.CheckCollection(owner, id); err != nil {
			writeError(ctx, err)
			return false
		}
	}
	return true
}

// queryRequest builds a search request from the query endpoint's
// parameters; unknown parameters are rejected. The first bad parameter is
// the error.
func queryRequest(args *fasthttp.Args) (engine.SearchRequest, error) {
	var req engine.SearchRequest
	for k, v := range args.All() {
		if err := queryParam(&req, string(k), string(v)); err != nil {
			return req, err
		}
	}
	return req, nil
}

// queryParam reads one query endpoint parameter into req.
func queryParam(req *engine.SearchRequest, key, val string) error {
	switch {
	case key == "query":
		req.Query = val
	case key == "max_results", key == "offset", key == "min_score", key == "max_tokens":
		return queryNumber(req, key, val)
	case key == "result_format":
		// Given, it must name a format: an empty value is not "absent".
		if val != "flat" && val != "sections" {
			return &engine.Error{Kind: engine.ErrInvalid, Message: fmt.Sprintf("result_format: %q is not supported (use flat or sections)", val), Details: map[string]any{"field": "result_format"}}
		}
		req.ResultFormat = val
	case key == "include_fields":
		for _, f := range strings.Split(val, ",") {
			if f = strings.TrimSpace(f); f != "" {
				req.IncludeFields = append(req.IncludeFields, f)
			}
		}
	case key == "include_content":
		// Items trimmed of spaces only, as the OpenAPI pattern reads
		// them: a tab or a newline is part of an (unknown) name.
		for _, f := range strings.Split(val, ",") {
			if f = strings.Trim(f, " "); f != "" {
				req.IncludeContent = append(req.IncludeContent, f)
			}
		}
	case key == "highlight", key == "restore_diacritics":
		b, err := parseBoolParam(key, val)
		if err != nil {
			return err
		}
		if key == "highlight" {
			req.Highlight = &b
		} else {
			req.RestoreDiacritics = &b
		}
	case key == "retrievers":
		// Given, it must name a retriever: an empty value is not "absent"
		// (as result_format). The engine checks the value and that the
		// searched collections have it.
		if val == "" {
			return &engine.Error{Kind: engine.ErrInvalid, Message: `retrievers: "" is not a retriever (use keyword or semantic, or leave the parameter out)`, Details: map[string]any{"field": "retrievers"}}
		}
		req.Retrievers = val
	case strings.HasPrefix(key, "filter:"):
		field := strings.TrimPrefix(key, "filter:")
		if field == "" {
			return &engine.Error{Kind: engine.ErrInvalid, Message: "filter parameter without a field name: use filter:{field}=value"}
		}
		req.SimpleFilters = append(req.SimpleFilters, [2]string{field, val})
	case key == "filter":
		req.Filter = json.RawMessage(val)
	case key == "owner":
		// admin impersonation, handled by User.owner
	default:
		return &engine.Error{Kind: engine.ErrInvalid, Message: fmt.Sprintf("unknown query parameter %q (known: query, max_results, offset, min_score, result_format, include_fields, include_content, highlight, restore_diacritics, max_tokens, retrievers, filter, filter:{field}, owner)", key)}
	}
	return nil
}

// queryNumber reads a numeric query endpoint parameter into req:
// max_results and offset (integers), max_tokens (a positive integer),
// min_score (a number). The engine checks their ranges.
func queryNumber(req *engine.SearchRequest, key, val string) error {
	if key == "min_score" {
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return &engine.Error{Kind: engine.ErrInvalid, Message: fmt.Sprintf("min_score: %q is not a number", val)}
		}
		req.MinScore = &f
		return nil
	}
	n, err := strconv.Atoi(val)
	switch {
	case key == "max_tokens" && (err != nil || n <= 0):
		return &engine.Error{Kind: engine.ErrInvalid, Message: fmt.Sprintf("max_tokens: %q is not a positive integer", val)}
	case err != nil:
		return &engine.Error{Kind: engine.ErrInvalid, Message: fmt.Sprintf("%s: %q is not an integer", key, val)}
	}
	switch key {
	case "max_results":
		req.MaxResults = &n
	case "offset":
		req.Offset = &n
	case "max_tokens":
		req.SummaryConfig = &engine.RequestSummaryConfig{MaxTokens: n}
	}
	return nil
}

func isJSON(ctx *fasthttp.RequestCtx) bool {
	raw := ctx.Request.Header.ContentType()
	if len(raw) == 0 || string(raw) == "application/json" {
		return true // be lenient with curl -d without a type
	}
	mt, _, err := mime.ParseMediaType(string(raw))
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "application/x-www-form-urlencoded")
}

func writeJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeErrorStatus(ctx, 500, "internal error: encode response: "+err.Error(), nil)
		return
	}
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(status)
	ctx.SetBody(buf.Bytes())
}

// splitAppend appends the pieces of s between sep bytes to dst, as
// strings.Split(s, string(sep)) returns them (one empty piece for an empty
// s), without allocating while dst has room: the router splits the path
// of every request.
func splitAppend(dst []string, s string, sep byte) []string {
	for {
		i := strings.IndexByte(s, sep)
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+1:]
	}
}
