package cluster

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Environment variables read by ConfigFromEnv.
const (
	// EnvAPIKey holds an API key (the base64 "id:key" form sent as
	// "Authorization: ApiKey ...").
	EnvAPIKey = "NAJDI_CLUSTER_API_KEY"
	// EnvUser and EnvPassword hold HTTP Basic credentials.
	EnvUser     = "NAJDI_CLUSTER_USER"
	EnvPassword = "NAJDI_CLUSTER_PASSWORD"
)

// Config configures a Client. Only URL is required.
type Config struct {
	// URL is the cluster's HTTP endpoint, e.g. http://127.0.0.1:9200.
	URL string
	// Username and Password are HTTP Basic credentials; APIKey, when set,
	// is sent instead as "Authorization: ApiKey <APIKey>".
	Username, Password, APIKey string
	// CAFile is a PEM file of certificate authorities trusted for an https
	// URL in addition to the system pool.
	CAFile string
	// Prefix starts every index and alias name najdi creates ("najdi-"
	// when empty), so several najdi deployments can share a cluster.
	Prefix string
	// Timeout bounds one HTTP request (60 s when zero).
	Timeout time.Duration
	// MaxRetries is the number of retries of a request answered 429, 502,
	// 503 or 504 or not answered at all (5 when zero; negative disables).
	MaxRetries int
	// RetryBase is the first backoff delay, doubled per retry with jitter
	// and capped at 5 s (100 ms when zero).
	RetryBase time.Duration
	// BulkDocs and BulkBytes bound one bulk request (500 actions, 8 MiB
	// when zero).
	BulkDocs, BulkBytes int
	// K1 and B are najdi's BM25 parameters (engine.RankerConfig; 1.2 and
	// 0.75 when zero), set on the indices najdi creates.
	K1, B float64
}

// ConfigFromEnv returns a Config for url with credentials from the
// environment (EnvAPIKey, EnvUser, EnvPassword).
func ConfigFromEnv(url string) Config {
	return Config{URL: url, APIKey: os.Getenv(EnvAPIKey), Username: os.Getenv(EnvUser), Password: os.Getenv(EnvPassword)}
}

// Flavour is the kind of cluster.
type Flavour string

// Supported flavours.
const (
	Elasticsearch Flavour = "elasticsearch"
	OpenSearch    Flavour = "opensearch"
)

// Info describes the cluster a Client talks to.
type Info struct {
	Flavour Flavour
	// Version is the node version, e.g. "8.19.8" or "3.5.0"; Major its
	// first number.
	Version string
	Major   int
}

// Client talks to one Elasticsearch 8.x or OpenSearch 2.x/3.x cluster over
// net/http. It is safe for concurrent use.
type Client struct {
	cfg  Config
	base *url.URL
	hc   *http.Client
	info Info

	metaReady atomic.Bool // the meta index exists
}

// New returns a client for cfg after detecting the cluster's flavour and
// version. A cluster that does not answer is an ErrUnavailable error; an
// unsupported one (Elasticsearch before 8, OpenSearch before 2) ErrInvalid.
func New(ctx context.Context, cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(cfg.URL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, clusterError(ErrInvalid, 0, "cluster url", fmt.Sprintf("%q is not an http(s) URL", cfg.URL), nil)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "najdi-"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 5
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = 100 * time.Millisecond
	}
	if cfg.K1 <= 0 {
		cfg.K1 = 1.2
	}
	if cfg.B <= 0 || cfg.B > 1 {
		cfg.B = 0.75
	}
	if cfg.BulkDocs <= 0 {
		cfg.BulkDocs = 500
	}
	if cfg.BulkBytes <= 0 {
		cfg.BulkBytes = 8 << 20
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 32
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, clusterError(ErrInvalid, 0, "cluster CA file", "", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, clusterError(ErrInvalid, 0, "cluster CA file", cfg.CAFile+" holds no PEM certificate", nil)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	c := &Client{cfg: cfg, base: u, hc: &http.Client{Transport: tr, Timeout: cfg.Timeout}}
	if err := c.detect(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Info returns the detected flavour and version.
func (c *Client) Info() Info { return c.info }

// Prefix returns the index name prefix.
func (c *Client) Prefix() string { return c.cfg.Prefix }

// detect reads GET / (or, where the root handler is absent as in the
// Elasticsearch integ-test distribution, the local node's info).
func (c *Client) detect(ctx context.Context) error {
	var root struct {
		Version struct {
			Number       string `json:"number"`
			Distribution string `json:"distribution"`
		} `json:"version"`
	}
	status, body, hdr, err := c.send(ctx, "GET", "/", nil, nil)
	if err != nil {
		return clusterError(ErrUnavailable, 0, "detect cluster at "+c.base.Redacted(), "", err)
	}
	elastic := hdr.Get("X-Elastic-Product") == "Elasticsearch"
	if status == 200 {
		if err := json.Unmarshal(body, &root); err != nil {
			return clusterError(ErrInvalid, 0, "detect cluster", "GET / is not a search cluster's answer", nil)
		}
	} else {
		if status == 401 || status == 403 {
			return clusterError(ErrInvalid, status, "detect cluster", "the cluster refused najdi's credentials", nil)
		}
		var nodes struct {
			Nodes map[string]struct {
				Version string `json:"version"`
			} `json:"nodes"`
		}
		if err := c.doJSON(ctx, "GET", "/_nodes/_local", url.Values{"filter_path": {"nodes.*.version"}}, nil, &nodes); err != nil {
			return err
		}
		for _, n := range nodes.Nodes {
			root.Version.Number = n.Version
		}
	}
	info := Info{Version: root.Version.Number, Flavour: Elasticsearch}
	if root.Version.Distribution == "opensearch" {
		info.Flavour = OpenSearch
	} else if !elastic && root.Version.Distribution == "" && status != 200 {
		info.Flavour = OpenSearch
	}
	major, _, _ := strings.Cut(info.Version, ".")
	info.Major, _ = strconv.Atoi(major)
	switch {
	case info.Flavour == Elasticsearch && info.Major < 8,
		info.Flavour == OpenSearch && info.Major < 2:
		return clusterError(ErrInvalid, 0, "detect cluster", fmt.Sprintf("%s %s is not supported (Elasticsearch 8.x, OpenSearch 2.x or 3.x)", info.Flavour, info.Version), nil)
	}
	c.info = info
	return nil
}

// send performs one HTTP request without retries.
func (c *Client) send(ctx context.Context, method, path string, q url.Values, body []byte) (int, []byte, http.Header, error) {
	u := *c.base
	u.RawPath = c.base.Path + path
	if p, err := url.PathUnescape(u.RawPath); err == nil {
		u.Path = p
	} else {
		u.Path, u.RawPath = u.RawPath, ""
	}
	u.RawQuery = q.Encode()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		ct := "application/json"
		if strings.HasSuffix(path, "/_bulk") {
			ct = "application/x-ndjson"
		}
		req.Header.Set("Content-Type", ct)
	}
	switch {
	case c.cfg.APIKey != "":
		req.Header.Set("Authorization", "ApiKey "+c.cfg.APIKey)
	case c.cfg.Username != "":
		req.SetBasicAuth(c.cfg.Username, c.cfg.Password)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, data, resp.Header, nil
}

// retryable reports whether a status is worth retrying.
func retryable(status int) bool {
	return status == 429 || status == 502 || status == 503 || status == 504
}

// backoff sleeps before retry n (0-based), honouring ctx.
func (c *Client) backoff(ctx context.Context, n int) error {
	d := c.cfg.RetryBase << min(n, 6)
	d = min(d, 5*time.Second)
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// do performs a request with retries on 429/502/503/504 and on connection
// failures, and returns the status and body of the last answer. Statuses
// other than 2xx are returned as *Error with the cluster's reason.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body []byte) ([]byte, error) {
	op := method + " " + path
	for n := 0; ; n++ {
		status, data, _, err := c.send(ctx, method, path, q, body)
		if err != nil {
			if ctx.Err() != nil {
				return nil, clusterError(ErrUnavailable, 0, op, "", ctx.Err())
			}
			if n < c.cfg.MaxRetries && !isRefused(err) || n < min(c.cfg.MaxRetries, 2) {
				if berr := c.backoff(ctx, n); berr == nil {
					continue
				}
			}
			return nil, clusterError(ErrUnavailable, 0, op, "cannot reach the search cluster at "+c.base.Redacted(), err)
		}
		if status >= 200 && status < 300 {
			return data, nil
		}
		if retryable(status) && n < c.cfg.MaxRetries {
			if berr := c.backoff(ctx, n); berr == nil {
				continue
			}
		}
		return data, clusterError(kindOf(status), status, op, reason(data), nil)
	}
}

// isRefused reports a connection refused (the node is down): retried only
// twice, so a stopped cluster is reported quickly.
func isRefused(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// doJSON performs a request with a JSON body (nil for none) and decodes the
// answer into out (nil to discard).
func (c *Client) doJSON(ctx context.Context, method, path string, q url.Values, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if raw, ok := in.(json.RawMessage); ok {
			body = raw
		} else if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("cluster: encode %s %s: %w", method, path, err)
		}
	}
	data, err := c.do(ctx, method, path, q, body)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return clusterError(ErrCluster, 0, method+" "+path, "unexpected answer", err)
	}
	return nil
}

// reason extracts the cluster's error reason from an error body.
func reason(data []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &e) != nil || len(e.Error) == 0 {
		s := strings.TrimSpace(string(data))
		if len(s) > 300 {
			s = s[:300] + "…"
		}
		return s
	}
	var obj struct {
		Type      string `json:"type"`
		Reason    string `json:"reason"`
		RootCause []struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"root_cause"`
		CausedBy *struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"caused_by"`
	}
	if json.Unmarshal(e.Error, &obj) != nil {
		return string(e.Error)
	}
	r := obj.Type + ": " + obj.Reason
	if obj.CausedBy != nil {
		r += " (" + obj.CausedBy.Type + ": " + obj.CausedBy.Reason + ")"
	} else if len(obj.RootCause) > 0 && obj.RootCause[0].Reason != obj.Reason {
		r += " (" + obj.RootCause[0].Type + ": " + obj.RootCause[0].Reason + ")"
	}
	return r
}
