package outbound

import (
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// maxURL bounds the length of a checked URL.
const maxURL = 2048

// ParseURL checks that raw is a plain http(s) base URL — no user
// information, query or fragment, a canonical host, a path of unreserved
// characters without dot segments — and returns it parsed, the scheme and
// host in lower case and the path without a trailing slash. It consults no
// allow-list; Check does. Errors wrap ErrBadURL and do not repeat raw.
func ParseURL(raw string) (*url.URL, error) {
	bad := func(why string) (*url.URL, error) {
		return nil, fmt.Errorf("%s: %w", why, ErrBadURL)
	}
	if len(raw) > maxURL {
		return bad(fmt.Sprintf("longer than %d bytes", maxURL))
	}
	if strings.ContainsAny(raw, "?#") {
		return bad("must not hold a query (?) or fragment (#): najdi appends a fixed path to the URL")
	}
	if strings.ContainsAny(raw, "%\\") {
		return bad("must not hold percent-escapes or backslashes")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Opaque != "" || u.Host == "" {
		return bad("must be an http:// or https:// URL with a host")
	}
	if u.User != nil || strings.Contains(u.Host, "@") {
		return bad("must not hold user information (user:password@): API keys come from the server's configuration")
	}
	if strings.HasSuffix(u.Host, ":") {
		return bad("empty port")
	}
	host, port := u.Hostname(), u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return bad("the port must be 1-65535")
		}
	}
	host = strings.ToLower(host)
	if strings.HasPrefix(u.Host, "[") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return bad("not an IPv6 address in brackets")
		}
		if a.Is4In6() {
			return bad("an IPv4-mapped IPv6 address: write the IPv4 address")
		}
		host = a.String()
		u.Host = "[" + host + "]"
	} else if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		host = a.String()
		u.Host = host
	} else if why := validName(host); why != "" {
		return bad(why)
	} else {
		u.Host = host
	}
	if port != "" {
		u.Host += ":" + port
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return bad("the path must not hold . or .. segments")
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
				return bad("the path may hold only letters, digits, '-', '.', '_', '~' and '/'")
			}
		}
	}
	u.Path = strings.TrimSuffix(path.Clean("/"+u.Path), "/")
	u.RawPath, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", "", false, "", ""
	return u, nil
}

// Check is ParseURL followed by the allow-list: the URL's host and port
// (80 or 443 when absent) must be admitted by an entry, and an IP address
// admitted only by a wildcard must be public. Errors wrap ErrBadURL or
// ErrNotAllowed and name Flag; they never list the allow-list.
func (p *Policy) Check(raw string) (*url.URL, error) {
	u, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	if p.Empty() {
		return nil, fmt.Errorf("this server calls no service that a client names: its operator allows hosts with %s host[:port]: %w", Flag, ErrNotAllowed)
	}
	e, ok := p.match(u.Hostname(), portOf(u))
	if !ok {
		return nil, fmt.Errorf("host %s is not on the server's outbound allow-list (its operator adds hosts with %s): %w", u.Host, Flag, ErrNotAllowed)
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil {
		if why := never(a); why != "" {
			return nil, fmt.Errorf("%s (%s) is never called: %w", a, why, ErrNotAllowed)
		}
		if why := special(a); why != "" && !e.explicit() {
			return nil, fmt.Errorf("%s is a %s address, which only an explicit %s entry allows: %w", a, why, Flag, ErrNotAllowed)
		}
	}
	return u, nil
}

// portOf returns the URL's port, or the scheme's default.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// JoinPath returns base with elem appended to its path by path.Join, and
// no query or fragment: whatever base holds, the result's path ends in
// elem.
func JoinPath(base *url.URL, elem string) *url.URL {
	u := *base
	u.User = nil
	u.Path = path.Join("/", base.Path, elem)
	u.RawPath, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", "", false, "", ""
	return &u
}
