// Package outbound guards the HTTP calls najdi makes to services that a
// client's configuration names: the remote embedding endpoint of a
// collection (embedding_config.model.url) and the annotation microservice
// of an NLU model (annotator.service).
//
// # Motivation
//
// Any logged-in user can write those URLs, and the server calls them from
// inside the operator's network. Unguarded, that is server-side request
// forgery: a user reaches 127.0.0.1, the cloud metadata service at
// 169.254.169.254 or hosts of a private network, tells open from closed
// ports by the error message, and reads what answered in the echoed error
// body. The operator therefore decides which hosts may be called at all,
// and the calls themselves leak nothing but "no usable answer".
//
// # Policy
//
// A Policy is built from the operator's allow-list (najdi serve
// --allow-outbound, NAJDI_ALLOW_OUTBOUND). An entry is
//
//	host          a DNS name or IP address, every port
//	host:port     that port only ([v6]:port for IPv6)
//	*.domain      every name under domain (not domain itself)
//	*             every host
//
// optionally with :port after a wildcard too. The empty list allows no host:
// by default nothing a client names is called. Names and addresses are
// compared case-insensitively, IP addresses in canonical form.
//
// Hosts named by an entry explicitly ("gpu-box:8000", "127.0.0.1:11434")
// are trusted to be wherever they resolve, loopback and private networks
// included: that is how an operator lets users reach a local Ollama or a
// box on the LAN. Hosts admitted by a wildcard must be public: the address
// actually dialed, after DNS resolution, is checked in the dialer's Control
// hook (so a name resolving to 127.0.0.1, or rebinding to it between the
// check and the connection, is refused), and an IP literal of a special
// range is refused already by Check. Non-public means loopback, private
// (RFC 1918, fc00::/7), link-local (169.254/16, fe80::/10), shared address
// space (100.64/10), "this network" (0/8), benchmarking, documentation and
// reserved ranges, NAT64 and 6to4 prefixes (which embed IPv4 addresses).
// Unspecified (0.0.0.0, ::) and multicast addresses are never dialed.
//
// # URLs
//
// Check accepts only http and https URLs without user information, query
// or fragment (a "?x=" or "#" at the end would turn the fixed path that
// najdi appends, /v1/embeddings or /annotate, into a query or fragment
// and let the URL address any path), with a host that is a canonical IP
// address or a DNS name — not one of the numeric spellings that C
// resolvers accept for IPv4 (2130706433, 0x7f000001, 0177.0.0.1, 127.1),
// not an IPv4-mapped IPv6 literal, not an IPv6 zone — and a path of
// unreserved characters without dot segments. JoinPath appends the fixed
// path to the checked base with path.Join on a url.URL, never by string
// concatenation.
//
// # Calls
//
// Policy.Client returns an http.Client whose transport dials through the
// guard, ignores proxy environment variables (a proxy would be dialed
// instead of the host) and does not follow redirects (a 3xx is an answer
// like any other). Do sends a request and turns every failure into a
// CallError whose message is the same whatever went wrong — refused
// connection, reset, unreachable network, a wrong protocol, an error
// status, a malformed body — so a client cannot scan ports or read what
// answered; only a timeout after the connection was made is told apart
// ("no answer in time", 504). CallError.Detail carries the transport error,
// or the status and the first 200 bytes of the body with control
// characters replaced, for the operator's log.
package outbound
