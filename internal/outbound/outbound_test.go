package outbound

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func mustPolicy(t *testing.T, list ...string) *Policy {
	t.Helper()
	p, err := New(list)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNewEntries(t *testing.T) {
	good := map[string]string{
		"gpu-box":                 "gpu-box",
		"GPU-Box:8000":            "gpu-box:8000",
		"127.0.0.1:11434":         "127.0.0.1:11434",
		"[::1]:8080":              "[::1]:8080",
		"[::1]":                   "::1",
		"::1":                     "::1",
		"*.example.com":           "*.example.com",
		"*.example.com:443":       "*.example.com:443",
		"*":                       "*",
		"*:443":                   "*:443",
		" a.example , b.example ": "a.example,b.example",
		"ollama_1:11434":          "ollama_1:11434",
	}
	for in, want := range good {
		p, err := New([]string{in})
		if err != nil {
			t.Errorf("New(%q): %v", in, err)
			continue
		}
		if p.String() != want {
			t.Errorf("New(%q) = %q, want %q", in, p.String(), want)
		}
	}
	for _, in := range []string{"http://gpu-box", "gpu-box/v1", "gpu-box:0", "gpu-box:65536", "gpu-box:08", "gpu-box:x",
		"2130706433", "0x7f000001", "127.1", "0177.0.0.1", "*.", "*.*.example", "a b", "-a.example", "[::ffff:127.0.0.1]", "[fe80::1%lo]", "host:"} {
		if _, err := New([]string{in}); !errors.Is(err, ErrBadEntry) {
			t.Errorf("New(%q) err %v, want ErrBadEntry", in, err)
		}
	}
	for _, list := range [][]string{nil, {}, {""}, {" , "}} {
		if p := mustPolicy(t, list...); !p.Empty() {
			t.Errorf("New(%q) allows %s", list, p)
		}
	}
}

// hostile are URLs that no policy without an explicit entry for their
// host lets through Check: special addresses in every spelling, and URLs
// that could cancel the fixed path or carry credentials.
var hostile = []string{
	"http://127.0.0.1:8080",
	"http://127.0.0.1",
	"http://[::1]:8080",
	"http://2130706433",
	"http://2130706433:8080",
	"http://0x7f000001",
	"http://0x7F.0.0.1",
	"http://0177.0.0.1",
	"http://127.1",
	"http://017700000001",
	"http://[::ffff:127.0.0.1]",
	"http://[::ffff:7f00:1]:8080",
	"http://[0:0:0:0:0:ffff:127.0.0.1]",
	"http://user:pw@api.example.com",
	"http://user@api.example.com",
	"http://api.example.com@127.0.0.1",
	"http://169.254.169.254",
	"http://169.254.169.254/latest/meta-data",
	"http://[fe80::1]",
	"http://[fe80::1%25eth0]",
	"http://10.0.0.1",
	"http://172.16.0.1",
	"http://192.168.1.1",
	"http://[fd00::1]",
	"http://100.64.0.1",
	"http://0.0.0.0",
	"http://[::]",
	"http://224.0.0.1",
	"http://255.255.255.255",
	"http://[64:ff9b::7f00:1]",
	"http://[2002:7f00:1::1]",
	"http://api.example.com/admin?x=",
	"http://api.example.com/admin?",
	"http://api.example.com/admin#",
	"http://api.example.com/#x",
	"http://api.example.com/a/../admin",
	"http://api.example.com/./v1",
	"http://api.example.com/%2e%2e/admin",
	"http://api.example.com/a%3Fb",
	"http://api.example.com\\@127.0.0.1",
	"http://api.example.com:0",
	"http://api.example.com:99999",
	"http://api.example.com:",
	"ftp://api.example.com",
	"file:///etc/passwd",
	"gopher://api.example.com",
	"http:api.example.com",
	"//api.example.com",
	"api.example.com",
	"",
	"http://",
	"http://exa mple.com",
	"http://example.123",
}

func TestCheckHostile(t *testing.T) {
	policies := map[string]*Policy{
		"empty":    mustPolicy(t),
		"wildcard": mustPolicy(t, "*"),
		"domain":   mustPolicy(t, "*.example.com", "*.com"),
	}
	for name, p := range policies {
		for _, u := range hostile {
			if _, err := p.Check(u); !errors.Is(err, ErrNotAllowed) && !errors.Is(err, ErrBadURL) {
				t.Errorf("%s policy: Check(%q) err %v, want ErrNotAllowed or ErrBadURL", name, u, err)
			}
		}
	}
	// Without an allow-list even a harmless URL is refused, and the
	// message names the flag.
	_, err := mustPolicy(t).Check("https://api.openai.com")
	if !errors.Is(err, ErrNotAllowed) || !strings.Contains(err.Error(), Flag) {
		t.Errorf("empty policy: err %v, want ErrNotAllowed naming %s", err, Flag)
	}
	// Names are for the dialer to check.
	if _, err := policies["wildcard"].Check("http://localhost:8080"); err != nil {
		t.Errorf("wildcard policy: localhost: %v", err)
	}
}

func TestCheckAllowed(t *testing.T) {
	p := mustPolicy(t, "127.0.0.1:8080", "gpu-box", "[::1]:9000", "*.example.com:443", "api.openai.com:443", "10.1.2.3")
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080"},
		{"HTTP://127.0.0.1:8080/V1/", "http://127.0.0.1:8080/V1"},
		{"http://gpu-box:1234/base//v1", "http://gpu-box:1234/base/v1"},
		{"http://GPU-BOX", "http://gpu-box"},
		{"http://[::1]:9000/x", "http://[::1]:9000/x"},
		{"https://embed.example.com", "https://embed.example.com"},
		{"https://a.b.example.com/v1", "https://a.b.example.com/v1"},
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"http://10.1.2.3:8000", "http://10.1.2.3:8000"},
	}
	for _, tt := range tests {
		u, err := p.Check(tt.in)
		if err != nil {
			t.Errorf("Check(%q): %v", tt.in, err)
			continue
		}
		if u.String() != tt.want {
			t.Errorf("Check(%q) = %q, want %q", tt.in, u, tt.want)
		}
	}
	for _, in := range []string{
		"http://127.0.0.1:8081",        // another port
		"http://127.0.0.1",             // port 80
		"http://[::1]:8080",            // another address
		"http://example.com",           // *.example.com is only subdomains
		"http://embed.example.com",     // port 80, not 443
		"https://evil-example.com",     // not a subdomain
		"https://api.openai.com:8443",  // another port
		"http://10.1.2.4",              // another address
		"http://gpu-box.attacker.test", // not the name
	} {
		if _, err := p.Check(in); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("Check(%q) err %v, want ErrNotAllowed", in, err)
		}
	}
	// An explicit entry trusts its address, but unspecified and multicast
	// addresses are never called.
	q := mustPolicy(t, "0.0.0.0", "224.0.0.1", "[::]")
	for _, in := range []string{"http://0.0.0.0", "http://224.0.0.1", "http://[::]"} {
		if _, err := q.Check(in); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("Check(%q) err %v, want ErrNotAllowed", in, err)
		}
	}
}

func TestJoinPath(t *testing.T) {
	tests := []struct{ base, elem, want string }{
		{"http://h:1", "v1/embeddings", "http://h:1/v1/embeddings"},
		{"http://h:1/", "v1/embeddings", "http://h:1/v1/embeddings"},
		{"http://h:1/proxy", "annotate", "http://h:1/proxy/annotate"},
		{"http://h:1/v1", "embeddings", "http://h:1/v1/embeddings"},
	}
	for _, tt := range tests {
		u, err := ParseURL(tt.base)
		if err != nil {
			t.Fatal(err)
		}
		if got := JoinPath(u, tt.elem).String(); got != tt.want {
			t.Errorf("JoinPath(%q, %q) = %q, want %q", tt.base, tt.elem, got, tt.want)
		}
	}
	// Even a base that bypassed ParseURL cannot cancel the suffix.
	for _, raw := range []string{"http://h/admin?x=", "http://h/admin#", "http://u:p@h/admin?x=1#y"} {
		u, err := http.NewRequest("GET", raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := JoinPath(u.URL, "v1/embeddings")
		if got.Path != "/admin/v1/embeddings" || got.RawQuery != "" || got.Fragment != "" || got.User != nil || strings.ContainsAny(got.String(), "?#@") {
			t.Errorf("JoinPath(%q) = %q", raw, got)
		}
	}
}

func TestSpecialAddresses(t *testing.T) {
	tests := map[string]string{
		"127.0.0.1": "loopback", "127.255.0.9": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"10.0.0.1": "private", "172.16.0.1": "private", "172.31.255.255": "private", "192.168.1.1": "private", "fd00::1": "private", "::ffff:10.0.0.1": "private",
		"169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "0.1.2.3": "\"this network\"",
		"224.0.0.1": "multicast", "ff02::1": "multicast", "239.1.1.1": "multicast",
		"100.64.0.1": "shared (carrier-grade NAT)", "198.18.0.1": "benchmarking", "255.255.255.255": "reserved", "240.0.0.1": "reserved",
		"64:ff9b::7f00:1": "NAT64", "2002:7f00:1::": "6to4", "2001:db8::1": "documentation", "192.0.2.1": "documentation",
		"8.8.8.8": "", "1.1.1.1": "", "172.32.0.1": "", "100.128.0.1": "", "2606:4700::1111": "", "::ffff:8.8.8.8": "",
	}
	for s, want := range tests {
		if got := special(netip.MustParseAddr(s)); got != want {
			t.Errorf("special(%s) = %q, want %q", s, got, want)
		}
	}
	wild := mustPolicy(t, "*").entries[0]
	exact := mustPolicy(t, "localhost").entries[0]
	for _, s := range []string{"127.0.0.1", "::ffff:127.0.0.1", "10.0.0.1", "169.254.169.254"} {
		a := netip.MustParseAddr(s)
		if wild.permits(a) == "" {
			t.Errorf("a wildcard entry permits %s", s)
		}
		if exact.permits(a) != "" {
			t.Errorf("an explicit entry refuses %s", s)
		}
	}
	for _, s := range []string{"0.0.0.0", "::", "224.0.0.1", "::ffff:0.0.0.0"} {
		if exact.permits(netip.MustParseAddr(s)) == "" {
			t.Errorf("an explicit entry permits %s", s)
		}
	}
}

// hello is a local HTTP server answering "hello" on /, redirecting /moved
// to /, and counting requests.
func hello(t *testing.T) (*httptest.Server, *int) {
	t.Helper()
	n := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*n++
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/", http.StatusFound)
			return
		}
		w.Write([]byte("hello"))
	}))
	t.Cleanup(srv.Close)
	return srv, n
}

func get(c *http.Client, u string) (int, string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func TestDialerGuard(t *testing.T) {
	srv, calls := hello(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")

	// A name admitted by a wildcard is refused at its resolved address.
	for _, list := range []string{"*", "*:" + port, "*.localhost"} {
		c := mustPolicy(t, list).Client()
		for _, u := range []string{"http://localhost:" + port, "http://127.0.0.1:" + port, "http://[::1]:" + port} {
			if _, _, err := get(c, u); !errors.Is(err, ErrNotAllowed) {
				t.Errorf("policy %s: GET %s: err %v, want ErrNotAllowed", list, u, err)
			}
		}
	}
	// Hosts not on the list are refused before dialing.
	c := mustPolicy(t, "example.com").Client()
	if _, _, err := get(c, srv.URL); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("GET %s with another host allowed: err %v", srv.URL, err)
	}
	if *calls != 0 {
		t.Fatalf("the loopback server was called %d times", *calls)
	}

	// Explicit entries may be loopback; the proxy variables are ignored.
	for _, list := range []string{"127.0.0.1:" + port, "127.0.0.1", "localhost:" + port} {
		c := mustPolicy(t, list).Client()
		u := srv.URL
		if strings.HasPrefix(list, "localhost") {
			u = "http://localhost:" + port
		}
		if status, body, err := get(c, u); err != nil || status != 200 || body != "hello" {
			t.Errorf("policy %s: GET %s = %d %q %v", list, u, status, body, err)
		}
	}
	// Redirects are answers, not followed.
	c = mustPolicy(t, "127.0.0.1").Client()
	before := *calls
	if status, _, err := get(c, srv.URL+"/moved"); err != nil || status != http.StatusFound || *calls != before+1 {
		t.Errorf("redirect: status %d, err %v, %d calls", status, err, *calls-before)
	}
}

// TestCallErrorsAlike: a closed port, an open port of another protocol,
// an HTTP error and a connection that hangs while connecting give the same
// message; a timeout after connecting is told apart.
func TestCallErrorsAlike(t *testing.T) {
	c := mustPolicy(t, "127.0.0.1").Client()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	banner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer banner.Close()
	go func() {
		for {
			conn, err := banner.Accept()
			if err != nil {
				return
			}
			conn.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			conn.Close()
		}
	}()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-stop:
			case <-time.After(5 * time.Second):
			}
		default:
			http.Error(w, "secret admin console", 404)
		}
	}))
	defer srv.Close()
	defer close(stop) // before srv.Close

	call := func(client *http.Client, u string, timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", u, strings.NewReader("{}"))
		resp, err := Do(client, req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return StatusError(resp, body)
		}
		return Malformed("unexpected 200")
	}
	// A dial that outlives the request's deadline, like one to a port
	// behind a firewall that drops packets.
	hanging := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(300 * time.Millisecond):
			return nil, errors.New("i/o timeout")
		}
	}}}
	errs := map[string]error{
		"closed":    call(c, "http://"+closed, time.Second),
		"banner":    call(c, "http://"+banner.Addr().String(), time.Second),
		"404":       call(c, srv.URL, time.Second),
		"hanging":   call(hanging, srv.URL, 100*time.Millisecond),
		"forbidden": call(mustPolicy(t, "*").Client(), srv.URL, time.Second),
	}
	for name, err := range errs {
		var ce *CallError
		if !errors.As(err, &ce) || err.Error() != "no usable answer" || !errors.Is(err, ErrFailed) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err %v (%T), want the generic CallError", name, err, err)
		}
		if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "SSH") {
			t.Errorf("%s: the message echoes the answer: %v", name, err)
		}
	}
	var ce *CallError
	if errors.As(errs["404"], &ce) && (ce.Status != 404 || ce.Detail != "HTTP 404: secret admin console") {
		t.Errorf("404 detail %+v", ce)
	}
	err = call(c, srv.URL+"/slow", 100*time.Millisecond)
	if !errors.As(err, &ce) || !ce.Timeout || !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || err.Error() != "no answer in time" {
		t.Errorf("slow: err %v, want a timeout", err)
	}
	// The caller's own cancellation is not the upstream's failure.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	if _, err := Do(c, req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  model\r\n\toverloaded  ", "model overloaded"},
		{"a\x00b\x1b[31mc", "a.b.[31mc"},
		{"\xff\xfeok", "..ok"},
		{strings.Repeat("é", 150), strings.Repeat("é", 100) + "…"},
		{strings.Repeat("x", 199) + "é", strings.Repeat("x", 199) + "…"},
	}
	for _, tt := range tests {
		if got := Summarize([]byte(tt.in)); got != tt.want {
			t.Errorf("Summarize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
