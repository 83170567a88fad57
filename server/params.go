package server

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"
)

// knownParams returns the query parameters a route takes besides owner,
// or nil when its handler checks its own (ingest, query) or the route or
// method is not served (the handler answers 404 or 405).
func knownParams(method string, parts []string) []string {
	none := []string{}
	switch {
	case len(parts) >= 2 && parts[0] == "v1" && parts[1] == "collections":
		rest := parts[2:]
		switch {
		case len(rest) == 0 && method == "GET":
			return none
		case len(rest) == 1 && (method == "GET" || method == "PUT" || method == "DELETE"):
			return none
		case len(rest) == 2 && rest[1] == "documents" && method == "GET":
			return []string{"limit", "cursor"}
		case len(rest) == 3 && rest[1] == "documents" && method == "GET":
			return []string{"result_format"}
		case len(rest) == 3 && rest[1] == "documents" && method == "DELETE":
			return none
		case len(rest) == 3 && rest[1] == "jobs" && method == "GET":
			return none
		case len(rest) == 2 && rest[1] == "jobs" && method == "GET":
			return []string{"status", "limit"}
		case len(rest) == 2 && (rest[1] == "search" || rest[1] == "answer") && method == "POST":
			return none
		}
	case len(parts) == 2 && parts[0] == "v1" && parts[1] == "jobs" && method == "GET":
		return []string{"collection_id", "status", "limit"}
	case parts[0] == "models" || parts[0] == "phrase-sets":
		switch {
		case len(parts) == 1 && (method == "GET" || method == "POST"):
			return none
		case len(parts) == 2 && (method == "GET" || method == "PUT" || method == "DELETE"):
			return none
		case len(parts) == 3 && parts[0] == "models" && parts[2] == "analyze" && method == "POST":
			return none
		}
	}
	return nil
}

// rejectUnknownParams answers a request carrying a query parameter its
// route does not take: 400 naming it, after a 404 for a resource of the
// path that does not exist (a request is checked from its path on). It
// reports whether it answered.
func (s *Server) rejectUnknownParams(ctx *fasthttp.RequestCtx, u *User, method string, parts []string) bool {
	known := knownParams(method, parts)
	if known == nil {
		return false
	}
	bad, found := "", emptyParamName(ctx)
	for k := range ctx.QueryArgs().All() {
		if key := string(k); key != "owner" && !slices.Contains(known, key) && !found {
			bad, found = key, true
		}
	}
	if !found {
		return false
	}
	owner := u.owner(ctx)
	switch {
	case parts[0] == "v1" && len(parts) >= 3 && !(len(parts) == 3 && method == "PUT"):
		ids := strings.Split(parts[2], ",")
		if !s.collectionsExist(ctx, owner, ids) {
			return true
		}
		if len(parts) == 5 && parts[3] == "documents" {
			if _, err := s.eng.GetDocument(ctx, owner, ids[0], parts[4]); err != nil {
				writeError(ctx, err)
				return true
			}
		}
		if len(parts) == 5 && parts[3] == "jobs" {
			if _, err := s.eng.Job(owner, ids[0], parts[4]); err != nil {
				writeError(ctx, err)
				return true
			}
		}
	case (parts[0] == "models" || parts[0] == "phrase-sets") && len(parts) >= 2:
		if s.nlu == nil {
			return false // 503 from the handler
		}
		var err error
		if parts[0] == "models" {
			_, err = s.nlu.GetModel(ctx, owner, parts[1])
		} else {
			_, err = s.nlu.GetPhraseSet(ctx, owner, parts[1])
		}
		if err != nil {
			writeError(ctx, err)
			return true
		}
	}
	msg := fmt.Sprintf("unknown query parameter %q (this endpoint takes owner", bad)
	for _, k := range known {
		msg += ", " + k
	}
	writeErrorStatus(ctx, 400, msg+")", map[string]any{"parameter": bad})
	return true
}

// emptyParamName reports whether the query string holds a parameter
// without a name ("?=" or "?a=1&=x"), which fasthttp's argument parser
// drops when its value is empty too: such a parameter is unknown, not
// absent.
func emptyParamName(ctx *fasthttp.RequestCtx) bool {
	return emptyParamIn(ctx.URI().QueryString())
}

// emptyParamIn reports whether a query string holds a segment (between
// '&') that starts with '=', without allocating (every request asks).
func emptyParamIn(qs []byte) bool {
	for len(qs) > 0 {
		if qs[0] == '=' {
			return true
		}
		i := bytes.IndexByte(qs, '&')
		if i < 0 {
			return false
		}
		qs = qs[i+1:]
	}
	return false
}

// rejectEmptyParams answers 400 when one of the named query parameters is
// given with an empty value: ?format= is as wrong as ?format=bogus, not a
// request for the default. It reports whether it answered.
func rejectEmptyParams(ctx *fasthttp.RequestCtx, names ...string) bool {
	args := ctx.QueryArgs()
	for _, name := range names {
		if args.Has(name) && len(args.Peek(name)) == 0 {
			writeErrorStatus(ctx, 400, fmt.Sprintf("%s: empty value (leave the parameter out for the default)", name), map[string]any{"field": name})
			return true
		}
	}
	return false
}
