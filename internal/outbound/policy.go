package outbound

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Errors of package outbound. Errors returned by Check and New wrap one of
// them; CallError unwraps to ErrFailed or ErrTimeout.
var (
	// ErrNotAllowed reports a URL whose host is not on the allow-list, or
	// an address the dialer refused.
	ErrNotAllowed = errors.New("outbound: host not allowed")
	// ErrBadURL reports a URL that is not a plain http(s) base URL.
	ErrBadURL = errors.New("outbound: bad url")
	// ErrBadEntry reports a malformed allow-list entry.
	ErrBadEntry = errors.New("outbound: bad allow-list entry")
	// ErrFailed reports a call that gave no usable answer.
	ErrFailed = errors.New("outbound: call failed")
	// ErrTimeout reports a call that connected but got no answer in time.
	ErrTimeout = errors.New("outbound: no answer in time")
)

// Flag is the command-line flag that sets the allow-list; messages name
// it so that a client can tell its operator what to change.
const Flag = "--allow-outbound"

// Policy is an allow-list of hosts that client-named URLs may address. The
// zero value and nil allow nothing. A Policy is immutable and safe for
// concurrent use.
type Policy struct {
	entries []entry
}

// entry is one parsed allow-list entry.
type entry struct {
	name   string     // lower-case DNS name; "" for IP and wildcard entries
	addr   netip.Addr // the address of an IP entry
	suffix string     // ".domain" of a *.domain entry; "" for * and exact entries
	any    bool       // the * entry
	port   string     // "" for every port
}

// explicit reports whether the entry names its host itself, not by a
// wildcard: such hosts may resolve to non-public addresses.
func (e entry) explicit() bool { return !e.any && e.suffix == "" }

func (e entry) String() string {
	var h string
	switch {
	case e.any:
		h = "*"
	case e.suffix != "":
		h = "*" + e.suffix
	case e.addr.IsValid():
		h = e.addr.String()
		if e.addr.Is6() && e.port != "" {
			h = "[" + h + "]"
		}
	default:
		h = e.name
	}
	if e.port != "" {
		h += ":" + e.port
	}
	return h
}

// New parses an allow-list. Each element may hold several entries
// separated by commas; white space around entries and empty entries are
// ignored, so New(nil) and New([]string{""}) allow nothing.
func New(list []string) (*Policy, error) {
	p := &Policy{}
	for _, item := range list {
		for _, s := range strings.Split(item, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			e, err := parseEntry(s)
			if err != nil {
				return nil, err
			}
			p.entries = append(p.entries, e)
		}
	}
	return p, nil
}

func parseEntry(s string) (entry, error) {
	bad := func(why string) (entry, error) {
		return entry{}, fmt.Errorf("%q: %s (want host, host:port, [ipv6]:port, *.domain or *): %w", s, why, ErrBadEntry)
	}
	if strings.Contains(s, "/") {
		return bad("no scheme or path")
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return bad("port must be 1-65535")
		}
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	}
	host = strings.ToLower(host)
	var e entry
	e.port = port
	switch {
	case host == "*":
		e.any = true
	case strings.HasPrefix(host, "*."):
		if validName(host[2:]) != "" {
			return bad("not a DNS name after *.")
		}
		e.suffix = host[1:]
	default:
		if a, err := netip.ParseAddr(host); err == nil {
			if a.Zone() != "" || a.Is4In6() {
				return bad("use the plain IPv4 or IPv6 address")
			}
			e.addr = a
			break
		}
		if why := validName(host); why != "" {
			return bad(why)
		}
		e.name = host
	}
	return e, nil
}

// Empty reports whether the policy allows no host.
func (p *Policy) Empty() bool { return p == nil || len(p.entries) == 0 }

// String returns the entries in canonical form, separated by commas.
func (p *Policy) String() string {
	if p == nil {
		return ""
	}
	s := make([]string, len(p.entries))
	for i, e := range p.entries {
		s[i] = e.String()
	}
	return strings.Join(s, ",")
}

// match returns the entry that admits host (a canonical IP address or a
// lower-case DNS name, as Check leaves it) on port, preferring an entry
// that names the host explicitly.
func (p *Policy) match(host, port string) (entry, bool) {
	if p == nil {
		return entry{}, false
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	addr, aerr := netip.ParseAddr(host)
	var wild entry
	found := false
	for _, e := range p.entries {
		if e.port != "" && e.port != port {
			continue
		}
		switch {
		case e.addr.IsValid():
			if aerr == nil && addr.Unmap() == e.addr {
				return e, true
			}
		case e.name != "":
			if e.name == host {
				return e, true
			}
		case e.any:
			wild, found = e, true
		case e.suffix != "":
			if aerr != nil && strings.HasSuffix(host, e.suffix) {
				wild, found = e, true
			}
		}
	}
	return wild, found
}

// validName returns why s is not a DNS name of letters, digits, '-' and
// '_' labels, or "" when it is one. All-numeric names are refused: C
// resolvers read them as IPv4 addresses (2130706433, 0x7f000001, 127.1).
func validName(s string) string {
	if s == "" || len(s) > 253 {
		return "empty or too long host name"
	}
	labels := strings.Split(s, ".")
	numeric := true
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "empty or too long label in the host name"
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return "a host name label cannot start or end with '-'"
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "the host name may hold only letters, digits, '-', '_' and '.'"
			}
		}
		if !numericLabel(l) {
			numeric = false
		}
	}
	if numeric || numericLabel(labels[len(labels)-1]) && allDigits(labels[len(labels)-1]) {
		return "not a canonical IP address (write IPv4 as four decimal numbers without leading zeros)"
	}
	return ""
}

// numericLabel reports whether l is a number as inet_aton reads one:
// decimal, octal (leading 0) or hexadecimal (0x).
func numericLabel(l string) bool {
	l = strings.ToLower(l)
	if strings.HasPrefix(l, "0x") {
		for i := 2; i < len(l); i++ {
			c := l[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	return allDigits(l)
}

// allDigits reports whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
