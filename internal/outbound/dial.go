package outbound

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// specialRanges are the non-public ranges that netip.Addr's predicates do
// not cover, with the reason Check and the dialer give.
var specialRanges = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\""},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// never returns why a is never dialed, or "": unspecified addresses
// (which reach the local host) and multicast.
func never(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast():
		return "multicast"
	}
	return ""
}

// special returns why a is not a public unicast address (loopback,
// private, link-local, ...), or "" when it is one.
func special(a netip.Addr) string {
	a = a.Unmap()
	if why := never(a); why != "" {
		return why
	}
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsInterfaceLocalMulticast(), a.IsLinkLocalMulticast():
		return "multicast"
	}
	for _, r := range specialRanges {
		if r.prefix.Contains(a) {
			return r.why
		}
	}
	return ""
}

// permits reports why e does not let the dialer connect to a, or "".
func (e entry) permits(a netip.Addr) string {
	if why := never(a); why != "" {
		return why
	}
	if e.explicit() {
		return ""
	}
	return special(a)
}

// Dialer timeouts of Policy clients: connecting, and the TLS handshake.
const (
	dialTimeout = 10 * time.Second
	tlsTimeout  = 10 * time.Second
)

// DialContext connects to addr ("host:port") if the policy admits the host
// and port and the resolved address it connects to passes the entry's
// address check, made in the net.Dialer's Control hook for every address
// tried. A refusal wraps ErrNotAllowed.
func (p *Policy) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	e, ok := p.match(host, port)
	if !ok {
		return nil, fmt.Errorf("dial %s: %w", addr, ErrNotAllowed)
	}
	d := net.Dialer{
		Timeout:   dialTimeout,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("dial %s: address %s: %w", addr, address, ErrNotAllowed)
			}
			if why := e.permits(ap.Addr()); why != "" {
				return fmt.Errorf("dial %s: %s resolves to a %s address: %w", addr, host, why, ErrNotAllowed)
			}
			return nil
		},
	}
	return d.DialContext(ctx, network, addr)
}

// Client returns an HTTP client that dials through p (see DialContext),
// ignores the proxy environment variables and returns redirects as answers
// instead of following them. Callers bound each request with a context
// deadline. Each call returns a new client with its own connection pool.
func (p *Policy) Client() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           p.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   tlsTimeout,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
