package ui

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/valyala/fasthttp"
)

//go:embed assets
var assets embed.FS

// Prefix is the path the console is served under.
const Prefix = "/ui/"

// contentTypes maps the asset extensions to their media types (set
// explicitly: the system's MIME table differs between machines).
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
}

// csp allows the page only its own origin: no inline script, no external
// script, style, font, image or connection.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

type asset struct {
	body  []byte
	ctype string
	etag  string
}

// files holds every embedded asset by its path under /ui/.
var files = mustLoad()

func mustLoad() map[string]asset {
	m := map[string]asset{}
	err := fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			return fmt.Errorf("ui: asset %s has no known content type", p)
		}
		b, err := assets.ReadFile(p)
		if err != nil {
			return fmt.Errorf("ui: read %s: %w", p, err)
		}
		sum := sha256.Sum256(b)
		m[strings.TrimPrefix(p, "assets/")] = asset{body: b, ctype: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return m
}

// Session describes the authenticated user to the page.
type Session struct {
	// User is the authenticated user name ("" without authentication).
	User string `json:"user"`
	// Auth reports whether the server requires authentication.
	Auth bool `json:"auth"`
}

// Names returns the paths of the embedded assets under /ui/, for tests.
func Names() []string {
	out := make([]string, 0, len(files))
	for n := range files {
		out = append(out, n)
	}
	return out
}

// Serve answers a request for /ui or a path under /ui/. The caller has
// authenticated the request; s describes the user. /ui redirects to /ui/,
// /ui/ is the page, /ui/session.json the session, and other paths the
// embedded assets (404 for anything else). Only GET and HEAD are allowed.
func Serve(ctx *fasthttp.RequestCtx, s Session) {
	method := string(ctx.Method())
	if method != "GET" && method != "HEAD" {
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		plainError(ctx, 405, "method "+method+" is not allowed here (allowed: GET, HEAD)")
		return
	}
	p := string(ctx.Path())
	if p == "/ui" {
		ctx.Redirect(Prefix, fasthttp.StatusMovedPermanently)
		return
	}
	name := strings.TrimPrefix(p, Prefix)
	h := &ctx.Response.Header
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", csp)
	if name == "session.json" {
		b, _ := json.Marshal(s)
		h.Set("Cache-Control", "no-store")
		h.SetContentType("application/json")
		ctx.SetBody(b)
		return
	}
	if name == "" {
		name = "index.html"
	}
	a, ok := files[name]
	if !ok {
		plainError(ctx, 404, fmt.Sprintf("no console page %s: the console is at %s", p, Prefix))
		return
	}
	// Revalidated on every load, so a new binary's assets are used at once.
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	if string(ctx.Request.Header.Peek("If-None-Match")) == a.etag {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	h.SetContentType(a.ctype)
	ctx.SetBody(a.body)
}

// plainError answers with the API's error body.
func plainError(ctx *fasthttp.RequestCtx, status int, msg string) {
	code := map[int]string{404: "not_found", 405: "method_not_allowed"}[status]
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": msg}})
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(status)
	ctx.SetBody(b)
}
