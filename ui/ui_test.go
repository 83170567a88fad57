package ui_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/server"
	"github.com/najdi/najdi/ui"
)

// console is a real server (engine on a temporary directory, HTTP Basic
// with one user) listening on a loopback port.
type console struct {
	base string
	t    *testing.T
}

const user, pass = "alice", "s3cret-console"

func startConsole(t *testing.T) *console { return startServer(t, true) }

// startServer starts the server, with the user alice when auth is set,
// else without users (no authentication, as on loopback).
func startServer(t *testing.T, auth bool) *console {
	t.Helper()
	eng, err := engine.Open(engine.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var users *server.Users
	if auth {
		hash, err := bcrypt.GenerateFromPassword([]byte(pass), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		users, err = server.ParseUsers(strings.NewReader(user + ":" + string(hash) + ":user\n"))
		if err != nil {
			t.Fatal(err)
		}
	}
	srv := server.New(eng, nil, server.Config{Users: users})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Shutdown()
		_ = eng.Close()
	})
	return &console{base: "http://" + ln.Addr().String(), t: t}
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

// get requests path, with the user's credentials when auth is set, and
// does not follow redirects.
func (c *console) do(method, path string, auth bool, header map[string]string) answer {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	if auth {
		req.SetBasicAuth(user, pass)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

func TestConsoleNeedsAuthentication(t *testing.T) {
	c := startConsole(t)
	paths := []string{"/ui", "/ui/", "/ui/index.html", "/ui/app.js", "/ui/style.css", "/ui/session.json", "/ui/nothing-here"}
	for _, p := range paths {
		a := c.do("GET", p, false, nil)
		if a.status != 401 {
			t.Errorf("GET %s without credentials: %d, want 401", p, a.status)
		}
		if !strings.HasPrefix(a.header.Get("WWW-Authenticate"), `Basic realm="najdi"`) {
			t.Errorf("GET %s: WWW-Authenticate %q, want the Basic challenge", p, a.header.Get("WWW-Authenticate"))
		}
		if bytes.Contains(a.body, []byte("<script")) || bytes.Contains(a.body, []byte("function")) {
			t.Errorf("GET %s without credentials leaks the page: %.80s", p, a.body)
		}
	}
	req, _ := http.NewRequest("GET", c.base+"/ui/app.js", nil)
	req.SetBasicAuth(user, "wrong")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("wrong password: %d, want 401", resp.StatusCode)
	}
}

func TestConsoleServesAssets(t *testing.T) {
	c := startConsole(t)
	tests := []struct {
		path, ctype, contains string
	}{
		{"/ui/", "text/html; charset=utf-8", `<script src="app.js" defer></script>`},
		{"/ui/index.html", "text/html; charset=utf-8", "<main id=\"main\""},
		{"/ui/app.js", "text/javascript; charset=utf-8", "function pageSearch"},
		{"/ui/style.css", "text/css; charset=utf-8", "mark {"},
		{"/ui/favicon.svg", "image/svg+xml", "<svg"},
		{"/ui/session.json", "application/json", `{"user":"alice","auth":true}`},
	}
	for _, tt := range tests {
		a := c.do("GET", tt.path, true, nil)
		if a.status != 200 {
			t.Errorf("GET %s: %d %s", tt.path, a.status, a.body)
			continue
		}
		if got := a.header.Get("Content-Type"); got != tt.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", tt.path, got, tt.ctype)
		}
		if !bytes.Contains(a.body, []byte(tt.contains)) {
			t.Errorf("GET %s: body lacks %q", tt.path, tt.contains)
		}
		if a.header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(a.header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("GET %s: security headers %v", tt.path, a.header)
		}
		if h := c.do("HEAD", tt.path, true, nil); h.status != 200 || len(h.body) != 0 {
			t.Errorf("HEAD %s: %d, %d bytes", tt.path, h.status, len(h.body))
		}
	}

	// Revalidation: the ETag answers 304.
	a := c.do("GET", "/ui/app.js", true, nil)
	etag := a.header.Get("ETag")
	if etag == "" || a.header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("app.js: ETag %q Cache-Control %q", etag, a.header.Get("Cache-Control"))
	}
	if b := c.do("GET", "/ui/app.js", true, map[string]string{"If-None-Match": etag}); b.status != 304 || len(b.body) != 0 {
		t.Errorf("If-None-Match: %d with %d bytes, want 304", b.status, len(b.body))
	}

	// Redirects: / and /ui lead to /ui/.
	for _, p := range []string{"/", "/ui"} {
		r := c.do("GET", p, true, nil)
		if r.status/100 != 3 || !strings.HasSuffix(r.header.Get("Location"), "/ui/") {
			t.Errorf("GET %s: %d Location %q, want a redirect to /ui/", p, r.status, r.header.Get("Location"))
		}
	}

	// Unknown pages and other methods are JSON errors of the API's form.
	for _, tt := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/ui/missing.js", 404, "not_found"},
		{"GET", "/ui/../v1/collections", 200, ""}, // cleaned by the client and server to /v1/collections
		{"POST", "/ui/", 405, "method_not_allowed"},
		{"POST", "/", 405, "method_not_allowed"},
		{"DELETE", "/ui/app.js", 405, "method_not_allowed"},
	} {
		r := c.do(tt.method, tt.path, true, nil)
		if r.status != tt.status {
			t.Errorf("%s %s: %d, want %d (%s)", tt.method, tt.path, r.status, tt.status, r.body)
			continue
		}
		if tt.code == "" {
			continue
		}
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Code != tt.code || e.Error.Message == "" {
			t.Errorf("%s %s: body %s, want error code %s", tt.method, tt.path, r.body, tt.code)
		}
	}
}

// TestAssetsAreSelfContained: the page loads nothing from outside the
// server (no CDN, works offline), and everything it references exists.
func TestAssetsAreSelfContained(t *testing.T) {
	c := startConsole(t)
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9-]+(\.[a-z0-9-]+)+`)
	cssExternal := regexp.MustCompile(`@import|\burl\(`)
	names := ui.Names()
	if len(names) < 4 {
		t.Fatalf("assets: %v", names)
	}
	for _, n := range names {
		a := c.do("GET", "/ui/"+n, true, nil)
		if a.status != 200 {
			t.Fatalf("GET /ui/%s: %d", n, a.status)
		}
		body := string(a.body)
		// The SVG namespace is a name, not something fetched.
		body = strings.ReplaceAll(body, `xmlns="http://www.w3.org/2000/svg"`, "")
		m := external.FindString(body)
		if strings.HasSuffix(n, ".css") && m == "" {
			m = cssExternal.FindString(body)
		}
		if m != "" {
			t.Errorf("/ui/%s references something outside the server: %q", n, m)
		}
	}
	index := string(c.do("GET", "/ui/", true, nil).body)
	refs := regexp.MustCompile(`(?:src|href)="([^"#]+)"`).FindAllStringSubmatch(index, -1)
	if len(refs) < 3 {
		t.Fatalf("index.html references %v", refs)
	}
	for _, r := range refs {
		if a := c.do("GET", "/ui/"+r[1], true, nil); a.status != 200 {
			t.Errorf("index.html references %s: %d", r[1], a.status)
		}
	}
}

// TestConsoleWithoutUsers: without configured users the console, like the
// API, needs no login, and the page is told so.
func TestConsoleWithoutUsers(t *testing.T) {
	c := startServer(t, false)
	if a := c.do("GET", "/ui/", false, nil); a.status != 200 || !bytes.Contains(a.body, []byte("app.js")) {
		t.Fatalf("GET /ui/ without users: %d %.80s", a.status, a.body)
	}
	a := c.do("GET", "/ui/session.json", false, nil)
	var s ui.Session
	if err := json.Unmarshal(a.body, &s); err != nil || s.Auth || s.User != "" {
		t.Fatalf("session without users: %s (%v)", a.body, err)
	}
}
