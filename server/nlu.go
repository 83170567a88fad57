package server

import (
	"context"
	"fmt"

	"github.com/valyala/fasthttp"

	"github.com/najdi/najdi/internal/strictjson"
	"github.com/najdi/najdi/nlu"
)

// nluResource is a kind of NLU object that the server routes alike: the
// collection at route (GET lists, POST creates) and its members at
// route/{id} (GET, PUT, DELETE), each an nlu.Service method.
type nluResource[T any] struct {
	route   string // "/models"
	listKey string // the list's key in the GET answer
	list    func(*nlu.Service, context.Context, string) ([]T, error)
	create  func(*nlu.Service, context.Context, string, []byte) (T, error)
	get     func(*nlu.Service, context.Context, string, string) (T, error)
	update  func(*nlu.Service, context.Context, string, string, []byte) (T, error)
	del     func(*nlu.Service, context.Context, string, string) error
}

// modelRoutes and phraseSetRoutes are the NLU models' and phrase sets'
// routes.
var (
	modelRoutes = nluResource[nlu.Model]{route: "/models", listKey: "models",
		list: (*nlu.Service).ListModels, create: (*nlu.Service).CreateModel, get: (*nlu.Service).GetModel,
		update: (*nlu.Service).UpdateModel, del: (*nlu.Service).DeleteModel}
	phraseSetRoutes = nluResource[nlu.PhraseSet]{route: "/phrase-sets", listKey: "phrase_sets",
		list: (*nlu.Service).ListPhraseSets, create: (*nlu.Service).CreatePhraseSet, get: (*nlu.Service).GetPhraseSet,
		update: (*nlu.Service).UpdatePhraseSet, del: (*nlu.Service).DeletePhraseSet}
)

// models routes /models, /models/{id} and /models/{id}/analyze.
func (s *Server) models(ctx *fasthttp.RequestCtx, u *User, method string, rest []string) string {
	owner := u.owner(ctx)
	if !s.nluEnabled(ctx) {
		return "/models"
	}
	if len(rest) == 2 && rest[1] == "analyze" {
		s.analyze(ctx, owner, method, rest[0])
		return "/models/{id}/analyze"
	}
	return routeNLU(ctx, s.nlu, modelRoutes, owner, method, rest)
}

// phraseSets routes /phrase-sets and /phrase-sets/{id}.
func (s *Server) phraseSets(ctx *fasthttp.RequestCtx, u *User, method string, rest []string) string {
	owner := u.owner(ctx)
	if !s.nluEnabled(ctx) {
		return "/phrase-sets"
	}
	return routeNLU(ctx, s.nlu, phraseSetRoutes, owner, method, rest)
}

// nluEnabled reports whether the server has an NLU service, else answers
// 503.
func (s *Server) nluEnabled(ctx *fasthttp.RequestCtx) bool {
	if s.nlu == nil {
		writeErrorStatus(ctx, 503, "the NLU service is not enabled on this server", nil)
		return false
	}
	return true
}

// routeNLU answers a request to r's collection (rest empty) or to one of
// its members (rest is its id) and returns the route's label; anything
// else is 404.
func routeNLU[T any](ctx *fasthttp.RequestCtx, svc *nlu.Service, r nluResource[T], owner, method string, rest []string) string {
	switch len(rest) {
	case 0:
		switch method {
		case "GET":
			all, err := r.list(svc, ctx, owner)
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 200, map[string]any{r.listKey: all})
		case "POST":
			if !jsonBody(ctx) {
				break
			}
			v, err := r.create(svc, ctx, owner, ctx.PostBody())
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 201, v)
		default:
			methodNotAllowed(ctx, "GET, POST")
		}
		return r.route
	case 1:
		id := rest[0]
		switch method {
		case "GET":
			v, err := r.get(svc, ctx, owner, id)
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 200, v)
		case "PUT":
			// A missing object answers 404 before its body is looked at.
			if _, err := r.get(svc, ctx, owner, id); err != nil {
				writeError(ctx, err)
				break
			}
			if !jsonBody(ctx) {
				break
			}
			v, err := r.update(svc, ctx, owner, id, ctx.PostBody())
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 200, v)
		case "DELETE":
			if err := r.del(svc, ctx, owner, id); err != nil {
				writeError(ctx, err)
				break
			}
			ctx.SetStatusCode(204)
		default:
			methodNotAllowed(ctx, "GET, PUT, DELETE")
		}
		return r.route + "/{id}"
	}
	writeErrorStatus(ctx, 404, fmt.Sprintf("no route %s %s", method, ctx.Path()), nil)
	return "unknown"
}

// analyze answers POST /models/{id}/analyze: the model must exist before
// the body is looked at, and the body must hold "text".
func (s *Server) analyze(ctx *fasthttp.RequestCtx, owner, method, id string) {
	if method != "POST" {
		methodNotAllowed(ctx, "POST")
		return
	}
	if _, err := s.nlu.GetModel(ctx, owner, id); err != nil {
		writeError(ctx, err)
		return
	}
	var req struct {
		Text *string `json:"text"`
	}
	if !jsonBody(ctx) {
		return
	}
	if err := decodeBody("analyze request", ctx.PostBody(), &req, strictjson.Options{}); err != nil {
		writeError(ctx, err)
		return
	}
	if req.Text == nil {
		writeErrorStatus(ctx, 400, `analyze request: "text" is required`, map[string]any{"field": "text"})
		return
	}
	a, err := s.nlu.Analyze(ctx, owner, id, *req.Text)
	if err != nil {
		writeError(ctx, err)
		return
	}
	writeJSON(ctx, 200, a)
}
