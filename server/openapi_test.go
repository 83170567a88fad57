package server_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/outbound"
)

// apiRoutes are the route names the router returns (server.go,
// documents.go, nlu.go) with the methods each serves. Placeholders are
// compared by position only.
var apiRoutes = []struct {
	route   string
	methods []string
}{
	{"/health", []string{"get"}},
	{"/metrics", []string{"get"}},
	{"/v1/openapi.json", []string{"get"}},
	{"/v1/collections", []string{"get"}},
	{"/v1/collections/{id}", []string{"get", "put", "delete"}},
	{"/v1/collections/{id}/documents", []string{"get", "post"}},
	{"/v1/collections/{id}/documents/{doc}", []string{"get", "delete"}},
	{"/v1/collections/{id}/jobs/{job}", []string{"get"}},
	{"/v1/collections/{id}/jobs", []string{"get"}},
	{"/v1/jobs", []string{"get"}},
	{"/v1/collections/{ids}/search", []string{"post"}},
	{"/v1/collections/{ids}/answer", []string{"post"}},
	{"/v1/collections/{ids}/query", []string{"get"}},
	{"/models", []string{"get", "post"}},
	{"/models/{id}", []string{"get", "put", "delete"}},
	{"/models/{id}/analyze", []string{"post"}},
	{"/phrase-sets", []string{"get", "post"}},
	{"/phrase-sets/{id}", []string{"get", "put", "delete"}},
}

var placeholder = regexp.MustCompile(`\{[^}]*\}`)

func shape(p string) string { return placeholder.ReplaceAllString(p, "{}") }

type openAPIDoc struct {
	OpenAPI    string                                `json:"openapi"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas         map[string]json.RawMessage `json:"schemas"`
		Parameters      map[string]json.RawMessage `json:"parameters"`
		Responses       map[string]json.RawMessage `json:"responses"`
		SecuritySchemes map[string]json.RawMessage `json:"securitySchemes"`
	} `json:"components"`
}

type openAPIParam struct {
	Ref    string `json:"$ref"`
	Name   string `json:"name"`
	In     string `json:"in"`
	Schema struct {
		Pattern string `json:"pattern"`
	} `json:"schema"`
}

type openAPIOp struct {
	Parameters []openAPIParam             `json:"parameters"`
	Responses  map[string]json.RawMessage `json:"responses"`
}

func loadOpenAPI(t *testing.T) ([]byte, openAPIDoc) {
	t.Helper()
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPIDoc
	d := json.NewDecoder(bytes.NewReader(raw))
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("openapi.json is not valid JSON: %v", err)
	}
	return raw, doc
}

// TestOpenAPIDocument checks the document's structure: every route of the
// router is described with exactly its methods, no other path is, every
// path placeholder is declared as a parameter, every $ref resolves and
// every error response uses the Error schema.
func TestOpenAPIDocument(t *testing.T) {
	raw, doc := loadOpenAPI(t)
	// 3.1: full JSON Schema (propertyNames, patternProperties for the
	// filter:{field} parameters, null in type arrays).
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if bytes.Contains(raw, []byte(`"nullable"`)) {
		t.Error("nullable is OpenAPI 3.0: write null in the type")
	}
	if _, ok := doc.Components.SecuritySchemes["basicAuth"]; !ok {
		t.Fatal("components.securitySchemes.basicAuth missing")
	}
	byShape := map[string]string{}
	for p := range doc.Paths {
		if old, dup := byShape[shape(p)]; dup {
			t.Fatalf("paths %q and %q have the same shape", old, p)
		}
		byShape[shape(p)] = p
	}
	verbs := []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}
	for _, r := range apiRoutes {
		p, ok := byShape[shape(r.route)]
		if !ok {
			t.Errorf("route %s has no path in openapi.json", r.route)
			continue
		}
		item := doc.Paths[p]
		var got []string
		for k := range item {
			if slices.Contains(verbs, k) {
				got = append(got, k)
			}
		}
		sort.Strings(got)
		want := slices.Clone(r.methods)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("path %s: methods %v, want %v", p, got, want)
		}
		// Every placeholder is declared as a path parameter, at path or
		// operation level.
		var pathLevel []openAPIParam
		if pr, ok := item["parameters"]; ok {
			if err := json.Unmarshal(pr, &pathLevel); err != nil {
				t.Fatalf("%s parameters: %v", p, err)
			}
		}
		for _, m := range got {
			var o openAPIOp
			if err := json.Unmarshal(item[m], &o); err != nil {
				t.Fatalf("%s %s: %v", m, p, err)
			}
			if len(o.Responses) == 0 {
				t.Errorf("%s %s has no responses", m, p)
			}
			params := append(slices.Clone(pathLevel), o.Parameters...)
			for _, ph := range placeholder.FindAllString(p, -1) {
				name := strings.Trim(ph, "{}")
				if !declaresPathParam(doc, params, name) {
					t.Errorf("%s %s: path parameter %q not declared", m, p, name)
				}
			}
		}
	}
	for s, p := range byShape {
		if !slices.ContainsFunc(apiRoutes, func(r struct {
			route   string
			methods []string
		}) bool {
			return shape(r.route) == s
		}) {
			t.Errorf("openapi.json describes %s, which the router does not serve", p)
		}
	}
	// Every $ref resolves.
	for _, m := range regexp.MustCompile(`"\$ref":\s*"#/components/(\w+)/(\w+)"`).FindAllSubmatch(raw, -1) {
		kind, name := string(m[1]), string(m[2])
		var ok bool
		switch kind {
		case "schemas":
			_, ok = doc.Components.Schemas[name]
		case "parameters":
			_, ok = doc.Components.Parameters[name]
		case "responses":
			_, ok = doc.Components.Responses[name]
		}
		if !ok {
			t.Errorf("$ref #/components/%s/%s does not resolve", kind, name)
		}
	}
	if n := strings.Count(string(raw), `"$ref"`); n == 0 {
		t.Fatal("no $ref at all: schemas are not shared")
	}
	// Error responses use the error body.
	for name, r := range doc.Components.Responses {
		if !bytes.Contains(r, []byte(`#/components/schemas/Error`)) {
			t.Errorf("response %s does not use the Error schema", name)
		}
	}
	var errSchema struct {
		Properties struct {
			Error struct {
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"error"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc.Components.Schemas["Error"], &errSchema); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"code", "message", "details"} {
		if _, ok := errSchema.Properties.Error.Properties[f]; !ok {
			t.Errorf("Error schema lacks error.%s", f)
		}
	}
}

func declaresPathParam(doc openAPIDoc, params []openAPIParam, name string) bool {
	for _, p := range params {
		if p.Ref != "" {
			var c openAPIParam
			if err := json.Unmarshal(doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")], &c); err != nil {
				return false
			}
			p = c
		}
		if p.In == "path" && p.Name == name {
			return true
		}
	}
	return false
}

// TestOpenAPIServedAndMethods checks against a running server that
// /v1/openapi.json serves this file and that every route answers the
// methods the document lists and refuses the others (404 or 405).
func TestOpenAPIServedAndMethods(t *testing.T) {
	raw, _ := loadOpenAPI(t)
	n := start(t, "", "--no-embeddings")
	r := must(t, n.getJSON("/v1/openapi.json"), 200)
	if !bytes.Equal(r.body, raw) {
		t.Fatal("GET /v1/openapi.json does not serve server/openapi.json")
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	// Concrete paths for the routes; resources do not exist, so documented
	// methods answer anything but 405, undocumented ones 404 or 405.
	concrete := strings.NewReplacer("{ids}", "c1,c2", "{id}", "c1", "{doc}", "d1", "{job}", "j1")
	for _, rt := range apiRoutes {
		if rt.route == "/health" || rt.route == "/metrics" || rt.route == "/v1/openapi.json" {
			continue // served for any method
		}
		path := concrete.Replace(rt.route)
		if strings.Contains(rt.route, "{ids}") {
			path = strings.Replace(path, "c1,c2", "c1", 1)
		}
		for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH"} {
			r := n.do(m, path, "application/json", []byte(`{}`))
			listed := slices.Contains(rt.methods, strings.ToLower(m))
			switch {
			case listed && r.status == 405:
				t.Errorf("%s %s: 405 but the document lists the method", m, path)
			case !listed && r.status != 405 && r.status != 404:
				t.Errorf("%s %s: %d, want 404 or 405 for a method the document does not list", m, path, r.status)
			}
			if r.status >= 400 {
				r.errorCode(t)
			}
		}
	}
}

// TestOpenAPIRequestsAsServed checks the request side against what the
// server accepts: request bodies list no property the server rejects
// (ids and owners it assigns), every path id parameter carries the id
// pattern, no parameter is named with a placeholder, and the filter:{field}
// family of the query endpoint is a pattern of parameter names.
func TestOpenAPIRequestsAsServed(t *testing.T) {
	_, doc := loadOpenAPI(t)
	for name, rejected := range map[string][]string{
		"IntentClassifierInput":      {"model_id", "owner"},
		"RegexAnnotatorInput":        {"model_id", "owner"},
		"MicroserviceAnnotatorInput": {"model_id", "owner"},
		"PipelineInput":              {"model_id", "owner"},
		"PhraseSetInput":             {"phrase_set_id", "owner"},
		"SearchRequest":              {"owner"},
	} {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(doc.Components.Schemas[name], &s); err != nil {
			t.Fatal(err)
		}
		for _, p := range rejected {
			if _, ok := s.Properties[p]; ok {
				t.Errorf("schema %s lists %q, which the server rejects in a request body", name, p)
			}
		}
	}
	for name, raw := range doc.Components.Parameters {
		var p struct {
			In     string `json:"in"`
			Schema struct {
				Pattern string `json:"pattern"`
			} `json:"schema"`
		}
		json.Unmarshal(raw, &p)
		if p.In == "path" && p.Schema.Pattern == "" {
			t.Errorf("path parameter %s has no pattern", name)
		}
	}
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			var op openAPIOp
			if method == "parameters" {
				json.Unmarshal(raw, &op.Parameters)
			} else {
				json.Unmarshal(raw, &op)
			}
			for _, p := range op.Parameters {
				if strings.ContainsAny(p.Name, "{}") {
					t.Errorf("%s %s: parameter %q is not a literal name", method, path, p.Name)
				}
				if p.In == "path" && p.Ref == "" && p.Schema.Pattern == "" {
					t.Errorf("%s %s: path parameter %q has no pattern", method, path, p.Name)
				}
			}
			// Every authenticated operation can answer 429 (failed-login
			// limit); every one with a body 413 (--max-body).
			if method != "parameters" && path != "/health" && path != "/v1/openapi.json" {
				if _, ok := op.Responses["429"]; !ok {
					t.Errorf("%s %s: no 429 response (failed-login limit)", method, path)
				}
				var withBody struct {
					RequestBody json.RawMessage `json:"requestBody"`
				}
				json.Unmarshal(raw, &withBody)
				if _, ok := op.Responses["413"]; len(withBody.RequestBody) > 0 && !ok {
					t.Errorf("%s %s: no 413 response for a body over --max-body", method, path)
				}
			}
			// Every endpoint but these rejects unknown query parameters.
			if _, ok := op.Responses["400"]; !ok && method != "parameters" && path != "/health" && path != "/metrics" && path != "/v1/openapi.json" {
				t.Errorf("%s %s: no 400 response (unknown query parameters, bad ids)", method, path)
			}
		}
	}
}

// TestOpenAPIFilterFieldsPattern: the query endpoint's filter:{field}
// parameters are one exploded form parameter whose property names follow
// the pattern ^filter:.+$, so that a client generator or schemathesis
// sends filter:brand=x, and nothing else, through it.
func TestOpenAPIFilterFieldsPattern(t *testing.T) {
	_, doc := loadOpenAPI(t)
	var op struct {
		Parameters []struct {
			Name    string `json:"name"`
			In      string `json:"in"`
			Style   string `json:"style"`
			Explode bool   `json:"explode"`
			Schema  struct {
				Type                 string                     `json:"type"`
				PatternProperties    map[string]json.RawMessage `json:"patternProperties"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			} `json:"schema"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(doc.Paths["/v1/collections/{collection_ids}/query"]["get"], &op); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range op.Parameters {
		if _, ok := p.Schema.PatternProperties["^filter:.+$"]; !ok {
			continue
		}
		found = true
		if p.In != "query" || p.Style != "form" || !p.Explode || p.Schema.Type != "object" || p.Schema.AdditionalProperties == nil || *p.Schema.AdditionalProperties {
			t.Errorf("filter:{field} parameter %q: in %q style %q explode %v type %q: want an exploded form object of only filter:{field} properties", p.Name, p.In, p.Style, p.Explode, p.Schema.Type)
		}
		re := regexp.MustCompile("^filter:.+$")
		for _, name := range []string{"filter:brand", "filter:a b"} {
			if !re.MatchString(name) {
				t.Errorf("%q should be a filter:{field} name", name)
			}
		}
		for _, name := range []string{"filter:", "filter", "query", "xfilter:a"} {
			if re.MatchString(name) {
				t.Errorf("%q should not be a filter:{field} name", name)
			}
		}
	}
	if !found {
		t.Fatal("GET /v1/collections/{collection_ids}/query: no parameter models filter:{field} with patternProperties ^filter:.+$")
	}
}

// TestOpenAPIURLPattern: the URL pattern of remote embedding endpoints and
// annotation microservices accepts what outbound.ParseURL (the server's
// check) accepts and rejects what it rejects, on hand-picked URLs and on
// URLs put together from parts at random. Two classes are known to differ
// and left out: host names holding a label that starts with a digit
// without being a number (3com, a.1b.0xff: the server accepts them; a
// pattern without lookahead cannot tell them from numbers), and
// IPv4-mapped IPv6 addresses (the server refuses them).
func TestOpenAPIURLPattern(t *testing.T) {
	_, doc := loadOpenAPI(t)
	patterns := map[string]string{}
	for _, sp := range []struct{ schema, path string }{
		{"RemoteEmbedding", "url"},
		{"MicroserviceAnnotatorInput", "annotator.service"},
	} {
		var s any
		if err := json.Unmarshal(doc.Components.Schemas[sp.schema], &s); err != nil {
			t.Fatal(err)
		}
		for _, k := range strings.Split(sp.path, ".") {
			s = s.(map[string]any)["properties"].(map[string]any)[k]
		}
		patterns[sp.schema] = s.(map[string]any)["pattern"].(string)
	}
	if patterns["RemoteEmbedding"] != patterns["MicroserviceAnnotatorInput"] {
		t.Fatal("the two URL patterns differ")
	}
	re := regexp.MustCompile(patterns["RemoteEmbedding"])
	check := func(u string) {
		t.Helper()
		_, err := outbound.ParseURL(u)
		if want := err == nil; re.MatchString(u) != want {
			t.Errorf("%q: pattern matches %v, server accepts %v (%v)", u, re.MatchString(u), want, err)
		}
	}
	for _, u := range []string{
		"http://0", "http://example.com", "https://Example.COM:8443/v1", "HTTP://a", "http://a_b.c-d.e",
		"http://127.0.0.1", "http://127.0.0.01", "http://256.0.0.1", "http://1.2.3", "http://2130706433", "http://0x7f.1",
		"http://[::1]", "http://[2001:db8::1]:8080/x", "http://[::1", "http://[1.2.3.4]", "http://[::ffff:127.0.0.1]",
		"http://a:0", "http://a:65535", "http://a:65536", "http://a:080", "http://a:", "http://user:pw@a", "http://a?x=", "http://a#",
		"http://a/.", "http://a/..", "http://a/...", "http://a/.b", "http://a//b", "http://a/b/", "http://a/%2e", "http://a/b c", "http://a\\b",
		"ftp://a", "http:/a", "http://", "http://-a", "http://a-", "http://a..b", "http://a.", "//a", "",
	} {
		check(u)
	}
	numeric := regexp.MustCompile(`^([0-9]+|0[xX][0-9a-fA-F]*)$`)
	rng := rand.New(rand.NewPCG(18, 7))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for range 20000 {
		host := pick("a", "ab", "x-y", "_", "A1", "0", "1", "255", "256", "01", "0x1f", "0X", "z9")
		for range rng.IntN(4) {
			host += "." + pick("a", "com", "1", "0", "255", "b-c", "0xff", "-x", "x-", "", "_a")
		}
		if slices.ContainsFunc(strings.Split(host, "."), func(l string) bool {
			return l != "" && l[0] >= '0' && l[0] <= '9' && !numeric.MatchString(l)
		}) {
			continue // the known difference (see above)
		}
		if rng.IntN(6) == 0 {
			host = pick("[::1]", "[fe80::1]", "[1:2:3:4:5:6:7:8]", "[1::2::3]", "[::]", "[g::1]")
		}
		u := pick("http://", "https://", "HtTp://", "http:/", "ftp://") + host
		u += pick("", "", ":80", ":0", ":65535", ":65536", ":", ":8a")
		for range rng.IntN(3) {
			u += "/" + pick("", "a", ".", "..", "...", ".x", "v1", "a b", "%41", "~_-", "?", "#", "@")
		}
		check(u)
	}
}
