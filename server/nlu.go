package server

import (
	"fmt"

	"github.com/valyala/fasthttp"

	"github.com/najdi/najdi/internal/strictjson"
)

// models routes /models, /models/{id} and /models/{id}/analyze.
func (s *Server) models(ctx *fasthttp.RequestCtx, u *User, method string, rest []string) string {
	owner := u.owner(ctx)
	if s.nlu == nil {
		writeErrorStatus(ctx, 503, "the NLU service is not enabled on this server", nil)
		return "/models"
	}
	switch len(rest) {
	case 0:
		switch method {
		case "GET":
			ms, err := s.nlu.ListModels(ctx, owner)
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 200, map[string]any{"models": ms})
		case "POST":
			if !jsonBody(ctx) {
				break
			}
			m, err := s.nlu.CreateModel(ctx, owner, ctx.PostBody())
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 201, m)
		default:
			methodNotAllowed(ctx, "GET, POST")
		}
		return "/models"
	case 1:
		id := rest[0]
		switch method {
		case "GET":
			m, err := s.nlu.GetModel(ctx, owner, id)
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 200, m)
		case "PUT":
			// A missing model answers 404 before its body is looked at.
			if _, err := s.nlu.GetModel(ctx, owner, id); err != nil {
				writeError(ctx, err)
				break
			}
			if !jsonBody(ctx) {
				break
			}
			m, err := s.nlu.UpdateModel(ctx, owner, id, ctx.PostBody())
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 200, m)
		case "DELETE":
			if err := s.nlu.DeleteModel(ctx, owner, id); err != nil {
				writeError(ctx, err)
				break
			}
			ctx.SetStatusCode(204)
		default:
			methodNotAllowed(ctx, "GET, PUT, DELETE")
		}
		return "/models/{id}"
	case 2:
		if rest[1] != "analyze" {
			break
		}
		if method != "POST" {
			methodNotAllowed(ctx, "POST")
			return "/models/{id}/analyze"
		}
		if _, err := s.nlu.GetModel(ctx, owner, rest[0]); err != nil {
			writeError(ctx, err)
			return "/models/{id}/analyze"
		}
		var req struct {
			Text *string `json:"text"`
		}
		if !jsonBody(ctx) {
			return "/models/{id}/analyze"
		}
		if err := decodeBody("analyze request", ctx.PostBody(), &req, strictjson.Options{}); err != nil {
			writeError(ctx, err)
			return "/models/{id}/analyze"
		}
		if req.Text == nil {
			writeErrorStatus(ctx, 400, `analyze request: "text" is required`, map[string]any{"field": "text"})
			return "/models/{id}/analyze"
		}
		a, err := s.nlu.Analyze(ctx, owner, rest[0], *req.Text)
		if err != nil {
			writeError(ctx, err)
			return "/models/{id}/analyze"
		}
		writeJSON(ctx, 200, a)
		return "/models/{id}/analyze"
	}
	writeErrorStatus(ctx, 404, fmt.Sprintf("no route %s %s", method, ctx.Path()), nil)
	return "unknown"
}

// phraseSets routes /phrase-sets and /phrase-sets/{id}.
func (s *Server) phraseSets(ctx *fasthttp.RequestCtx, u *User, method string, rest []string) string {
	owner := u.owner(ctx)
	if s.nlu == nil {
		writeErrorStatus(ctx, 503, "the NLU service is not enabled on this server", nil)
		return "/phrase-sets"
	}
	switch len(rest) {
	case 0:
		switch method {
		case "GET":
			ps, err := s.nlu.ListPhraseSets(ctx, owner)
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 200, map[string]any{"phrase_sets": ps})
		case "POST":
			if !jsonBody(ctx) {
				break
			}
			p, err := s.nlu.CreatePhraseSet(ctx, owner, ctx.PostBody())
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 201, p)
		default:
			methodNotAllowed(ctx, "GET, POST")
		}
		return "/phrase-sets"
	case 1:
		id := rest[0]
		switch method {
		case "GET":
			p, err := s.nlu.GetPhraseSet(ctx, owner, id)
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 200, p)
		case "PUT":
			// A missing phrase set answers 404 before its body is looked at.
			if _, err := s.nlu.GetPhraseSet(ctx, owner, id); err != nil {
				writeError(ctx, err)
				break
			}
			if !jsonBody(ctx) {
				break
			}
			p, err := s.nlu.UpdatePhraseSet(ctx, owner, id, ctx.PostBody())
			if err != nil {
				writeError(ctx, err)
				break
			}
			writeJSON(ctx, 200, p)
		case "DELETE":
			if err := s.nlu.DeletePhraseSet(ctx, owner, id); err != nil {
				writeError(ctx, err)
				break
			}
			ctx.SetStatusCode(204)
		default:
			methodNotAllowed(ctx, "GET, PUT, DELETE")
		}
		return "/phrase-sets/{id}"
	}
	writeErrorStatus(ctx, 404, fmt.Sprintf("no route %s %s", method, ctx.Path()), nil)
	return "unknown"
}
