"""schemathesis hooks for scripts/schemathesis.sh (loaded with SCHEMATHESIS_HOOKS).

Some values are valid or not depending on the server's state and its
operator's configuration, which no schema can say:

- pipeline members and closed-ner phrase sets name models and phrase sets
  that must exist (of the same owner);
- remote embedding and annotation-microservice URLs must be on the
  operator's --allow-outbound list, and the endpoint must answer;
- api_key_name / api_key_env must name a key the operator declared with
  --secret, and dims must be the remote model's vector length.

Without help, schemathesis's positive_data_acceptance check would report
every schema-valid body holding such a value as "rejected" (400). Instead,
just before a request is sent, this hook replaces each such value that is
valid for the schema (it matches the schema's pattern; an invalid value is
left alone, so negative cases stay negative) by one valid on this server:
a freshly created model or phrase set, the URL of the fake endpoint below
(the only host the server allows) keeping the generated path, the declared
key, and the fake's vector length. Nothing else in a request is changed.

The fake is an external service a user would bring (an OpenAI-compatible
embedding endpoint and an annotation microservice), served on loopback in
this process: POST .../embeddings answers vectors of the length the
collection declares (the hook puts the declared dims in the URL's path,
/dims/N/..., since the OpenAI request carries no length; without it,
DEFAULT_DIMS), POST .../annotate answers no intents and no annotations.
A fake that answered another length would be a bad upstream, which the
server rightly answers with 502 (server/external_e2e_test.go).

Search, answer, query and the document operations need collections that
exist and hold documents, or every case ends in 404 before the request is
read. At start the hook creates three (st-kb and st-kb2 keyword-only,
st-hybrid with the default embedding model), each declaring the fields
kind and tags (enum), label (enum_text) and year and price (number), and
ingests a dozen documents. A schema-valid collection id of those
operations is mapped onto them (most of the time; one value in eight is
kept, so the 404 path stays covered), a document id onto a stored one
(DELETE onto a document created for it in st-scratch), and a schema-valid
filter onto one of a list of valid Filter DSL objects over those fields:
the Filter schema says only "an object with one construct", since the DSL
is recursive and names the collection's fields, which no schema of the
operation can know. filter:{field} parameters are renamed onto declared
fields the same way. retrievers "semantic" (body or query parameter) on
a search that names a keyword-only collection becomes "keyword": a
collection without an embedding model has no semantic retriever, and the
400 that names retrievers there is a rule of the collection's
configuration, not of the request.

Phrase texts and synonyms must hold a letter or a number in any script
(the pattern [\p{L}\p{N}&]). schemathesis's regex engine reads that
class as Latin letters up to U+024F (and ASCII digits), so it calls a text
like "ɷ" schema-invalid: it sends it as a negative case the server rightly
accepts, and flags the server's echo of a stored one as violating the
response schema. The hook replaces each letter or number beyond U+024F in
a phrase set body by "-": a text holding only such characters becomes
one the server rejects (a negative case stays negative), one holding a
Latin letter stays valid.

One negative case is read as sent, not as generated: schemathesis may
generate a request without the Authorization header (which --auth then
adds, so the server sees valid credentials) and with query properties
the HTTP client drops (a key whose value is [], {} or None is not sent):
the request on the wire is valid, and the 200 is right.
upload_negative_rejection judges such a case by the headers it sent.
"""

import base64
import json
import urllib.parse
import os
import re
import threading
import urllib.error
import unicodedata
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import schemathesis
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

BASE = os.environ["NAJDI_ST_BASE"]
AUTH = "Basic " + base64.b64encode(os.environ["NAJDI_ST_AUTH"].encode()).decode()
FAKE_PORT = int(os.environ["NAJDI_ST_FAKE_PORT"])
FAKE_HOST = f"127.0.0.1:{FAKE_PORT}"
KEY_NAME = os.environ["NAJDI_ST_KEY_NAME"]
KEY_ENV = os.environ["NAJDI_ST_KEY_ENV"]
DEFAULT_DIMS = 8
# The path prefix that carries a collection's declared dims to the fake.
DIMS_PATH = re.compile(r"^/dims/([0-9]+)(/.*)?$")

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# The document's own URL pattern: only URLs it accepts are replaced.
with urllib.request.urlopen(BASE + "/v1/openapi.json", timeout=30) as _r:
    _doc = json.loads(_r.read())
URL_VALID = re.compile(_doc["components"]["schemas"]["RemoteEmbedding"]["properties"]["url"]["pattern"])
DIMS_MAX = _doc["components"]["schemas"]["RemoteEmbedding"]["properties"]["dims"]["maximum"]
COLLECTION_IDS_VALID = re.compile(_doc["components"]["parameters"]["CollectionIDs"]["schema"]["pattern"])
COLLECTION_ID_VALID = re.compile(_doc["components"]["parameters"]["CollectionID"]["schema"]["pattern"])
DOCUMENT_ID_VALID = re.compile(_doc["components"]["parameters"]["DocumentID"]["schema"]["pattern"])
# The scheme and authority of a URL; the rest (the path) is kept.
URL_HEAD = re.compile(r"^([Hh][Tt][Tt][Pp][Ss]?)://([^/]+)(/.*)?$")


class Fake(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.split("?")[0]
        dims = DEFAULT_DIMS
        m = DIMS_PATH.match(path)
        if m:
            dims = int(m.group(1))
        if path.endswith("/embeddings"):
            try:
                inputs = json.loads(body).get("input") or []
            except (ValueError, AttributeError):
                inputs = []
            if isinstance(inputs, str):
                inputs = [inputs]
            data = [{"object": "embedding", "index": i, "embedding": [((i + j) % 7 + 1) / 7 for j in range(dims)]} for i in range(len(inputs))]
            out = {"object": "list", "data": data, "model": "fake"}
        elif path.endswith("/annotate"):
            out = {"intents": [], "annotations": []}
        else:
            self.send_response(404)
            self.end_headers()
            return
        raw = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args):
        pass


_server = ThreadingHTTPServer(("127.0.0.1", FAKE_PORT), Fake)
threading.Thread(target=_server.serve_forever, daemon=True).start()


def _create(path, body):
    req = urllib.request.Request(BASE + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": AUTH})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def _request(method, path, body=None, content_type="application/json"):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(BASE + path, data=data, method=method,
                                 headers={"Content-Type": content_type, "Authorization": AUTH})
    with urllib.request.urlopen(req, timeout=120) as r:
        raw = r.read()
        return json.loads(raw) if raw else None


# Collections with documents for search, answer, query and the document
# operations (see the module's docstring).
FIELDS = {"kind": {"type": "enum"}, "tags": {"type": "enum", "multi": True}, "label": {"type": "enum_text"},
          "year": {"type": "number"}, "price": {"type": "number"}}
DOCS = [
    ("river-1", "note", ["water", "travel"], "Rivers of Europe", 2019, 12.5, "The Vltava flows through Prague before it joins the Elbe at Melnik."),
    ("river-2", "guide", ["water"], "Danube cruise", 2021, 450, "A cruise on the Danube passes Vienna, Bratislava and Budapest."),
    ("bake-1", "recipe", ["food", "czech"], "Kolache", 2018, 3.2, "Kolache are sweet pastries filled with poppy seeds, plum jam or curd cheese."),
    ("bake-2", "recipe", ["food"], "Sourdough bread", 2022, 4.0, "Sourdough bread rises slowly; the starter needs flour and water every day."),
    ("db-1", "note", ["tech"], "Pebble compaction", 2020, 0, "Compaction merges sorted runs of an LSM tree into larger ones."),
    ("db-2", "guide", ["tech", "search"], "Inverted indexes", 2023, 99.9, "An inverted index maps each term to the documents that contain it; BM25 scores them."),
    ("db-3", "faq", ["tech", "search"], "Vector search", 2024, 149, "Approximate nearest neighbour search finds embeddings close to the query vector."),
    ("city-1", "faq", ["travel", "czech"], "Brno", 2017, 25, "Brno is the second largest Czech city, known for its trade fair and functionalist villas."),
    ("city-2", "note", ["travel"], "Ostrava", 2016, 18, "Ostrava grew around coal mines and steel works near the Polish border."),
    ("misc-1", "faq", [], "Opening hours", 2015, 1, "The office is open from nine to five on weekdays and closed on public holidays."),
    ("misc-2", "guide", ["czech"], "Diacritics", 2025, 7, "Czech writes háčky and čárky: příliš žluťoučký kůň úpěl ďábelské ódy."),
    ("misc-3", "note", ["food", "travel"], "Beer", 2014, 2.5, "Pilsner lager was first brewed in Plzen in 1842."),
]
SEARCH_COLLECTIONS = ["st-kb", "st-hybrid", "st-kb,st-kb2", "st-kb2"]
# The collections without a semantic retriever (embedding_config.model
# "none"): retrievers "semantic" on them is refused with 400 naming
# retrievers, a rule of the collection's configuration.
KEYWORD_ONLY = {"st-kb", "st-kb2", "st-scratch"}
DOC_IDS = [d[0] for d in DOCS]


def _setup():
    docs = [{"document_id": i, "sections": [{"type": "title", "content": t}, {"type": "p", "content": body}],
             "fields": {"kind": k, "tags": tags, "label": t, "year": y, "price": pr}}
            for i, k, tags, t, y, pr, body in DOCS]
    for coll, model in (("st-kb", "none"), ("st-kb2", "none"), ("st-hybrid", "default"), ("st-scratch", "none")):
        _request("PUT", f"/v1/collections/{coll}", {"embedding_config": {"model": model}, "fields": FIELDS})
        if coll != "st-scratch":
            _request("POST", f"/v1/collections/{coll}/documents", {"documents": docs})


_setup()
_scratch_n = [0]


def _scratch_doc():
    """A fresh document in st-scratch, for a DELETE to remove."""
    _scratch_n[0] += 1
    i = f"del-{_scratch_n[0]}"
    doc = {"documents": [{"document_id": i, "sections": [{"type": "p", "content": "to be deleted"}]}]}
    try:
        _request("POST", "/v1/collections/st-scratch/documents", doc)
    except urllib.error.HTTPError as e:
        if e.code != 404:
            raise
        _request("PUT", "/v1/collections/st-scratch", {"embedding_config": {"model": "none"}, "fields": FIELDS})
        _request("POST", "/v1/collections/st-scratch/documents", doc)
    return i


VALID_FILTERS = [
    {"term": {"kind": "note"}},
    {"term": {"kind": {"value": "GUIDE", "case_insensitive": True}}},
    {"terms": {"tags": ["food", "tech"]}},
    {"range": {"year": {"gte": 2018, "lt": 2023}}},
    {"range": {"price": {"gt": 10}}},
    {"prefix": {"label": "Riv"}},
    {"regexp": {"kind": "gu.*|faq"}},
    {"exists": {"field": "price"}},
    {"match_all": {}},
    {"match_none": {}},
    {"contains": {"label": "(?i)search"}},
    {"bool": {"must": [{"term": {"tags": "travel"}}], "must_not": {"term": {"kind": "faq"}}}},
    {"bool": {"should": [{"term": {"kind": "recipe"}}, {"range": {"year": {"lte": 2016}}}], "minimum_should_match": 1}},
    {"bool": {"filter": [{"exists": {"field": "year"}}], "should": [{"prefix": {"tags": "cz"}}], "minimum_should_match": "50%"}},
    {},
]
# filter:{field} parameters: the string fields take any value (an RE2
# expression, or a literal when invalid); number fields need a number.
STRING_FIELDS = ["kind", "tags", "label"]
NUMBER_FIELDS = ["year", "price"]


def _pick(options, seed):
    return options[zlib.crc32(repr(seed).encode()) % len(options)]


def _is_positive(case, location):
    meta = case.meta
    if meta is None:
        return False
    info = meta.components.get(location)
    return info is None or info.mode.is_positive


def _search_case(case):
    """Maps a search, answer or query case onto the collections with
    documents, its filters onto valid ones."""
    path = case.path_parameters or {}
    ids = path.get("collection_ids")
    if _is_positive(case, ParameterLocation.PATH) and isinstance(ids, str) and COLLECTION_IDS_VALID.search(ids):
        if zlib.crc32(ids.encode()) % 8 != 0:
            path["collection_ids"] = _pick(SEARCH_COLLECTIONS, ids)
    if _is_positive(case, ParameterLocation.BODY) and isinstance(case.body, dict) and isinstance(case.body.get("filter"), dict):
        case.body["filter"] = _pick(VALID_FILTERS, case.body["filter"])
    ids = path.get("collection_ids")
    keyword_only = isinstance(ids, str) and any(c in KEYWORD_ONLY for c in urllib.parse.unquote(ids).split(","))
    if keyword_only and _is_positive(case, ParameterLocation.BODY) and isinstance(case.body, dict) and case.body.get("retrievers") == "semantic":
        case.body["retrievers"] = "keyword"
    if keyword_only and _is_positive(case, ParameterLocation.QUERY) and isinstance(case.query, dict) and case.query.get("retrievers") == "semantic":
        case.query["retrievers"] = "keyword"
    query = case.query
    if _is_positive(case, ParameterLocation.QUERY) and isinstance(query, dict):
        if isinstance(query.get("filter"), str):
            query["filter"] = json.dumps(_pick(VALID_FILTERS, query["filter"]))
        keys = [k for k in query if isinstance(k, str) and k.startswith("filter:")]
        strings, numbers = list(STRING_FIELDS), list(NUMBER_FIELDS)
        for k in keys:
            v = query.pop(k)
            try:
                is_number = isinstance(v, str) and float(v) == float(v) and abs(float(v)) != float("inf")
            except ValueError:
                is_number = False
            pool = numbers if is_number and numbers else strings
            if pool:
                query["filter:" + pool.pop(0)] = v


def _document_case(case, method):
    """Maps a document operation onto st-kb and a stored document (DELETE:
    st-scratch and a document created for it)."""
    if not _is_positive(case, ParameterLocation.PATH):
        return
    path = case.path_parameters or {}
    coll, doc = path.get("collection_id"), path.get("document_id")
    if not (isinstance(coll, str) and COLLECTION_ID_VALID.search(coll)) or zlib.crc32(coll.encode()) % 8 == 0:
        return
    if doc is None:  # the listing
        path["collection_id"] = "st-kb"
        return
    if not (isinstance(doc, str) and DOCUMENT_ID_VALID.search(doc)):
        return
    if method == "DELETE":
        path["collection_id"], path["document_id"] = "st-scratch", _scratch_doc()
    else:
        path["collection_id"], path["document_id"] = "st-kb", _pick(DOC_IDS, doc)


def _new_model():
    return _create("/models", {"name": "builtin-ner", "language": "en"})["model_id"]


def _new_phrase_set():
    return _create("/phrase-sets", {"name": "city", "phrases": [{"text": "Praha"}]})["phrase_set_id"]


def _url(v, dims=None):
    if isinstance(v, str) and len(v) <= 2048 and URL_VALID.search(v):
        m = URL_HEAD.match(v)
        if m:
            prefix = f"/dims/{dims}" if dims else ""
            rest = m.group(3) or ""
            if m.group(2) == FAKE_HOST:
                # Already the fake's (a body rewritten twice): replace its
                # dims prefix instead of nesting a second one.
                d = DIMS_PATH.match(rest)
                if d:
                    rest = d.group(2) or ""
            out = f"http://{FAKE_HOST}{prefix}{rest}"  # the fake speaks plain HTTP
            return out if len(out) <= 2048 else f"http://{FAKE_HOST}{prefix}"
    return v


def _phrase_set_ids(v):
    if isinstance(v, list):
        return [_new_phrase_set() if isinstance(x, str) and UUID.match(x) else x for x in v]
    return v


def _model_body(body):
    if not isinstance(body, dict):
        return
    if "phrase_set_ids" in body:
        body["phrase_set_ids"] = _phrase_set_ids(body["phrase_set_ids"])
    ann = body.get("annotator")
    if isinstance(ann, dict) and ann.get("service") != "builtin":
        ann["service"] = _url(ann.get("service"))
    pipe = body.get("pipeline")
    members = pipe.get("models") if isinstance(pipe, dict) else None
    if isinstance(members, list):
        for i, m in enumerate(members):
            if isinstance(m, str) and UUID.match(m):
                members[i] = _new_model()
            elif isinstance(m, dict):
                if isinstance(m.get("model_id"), str) and UUID.match(m["model_id"]):
                    m["model_id"] = _new_model()
                if "phrase_set_ids" in m:
                    m["phrase_set_ids"] = _phrase_set_ids(m["phrase_set_ids"])


def _latin_word_chars(t):
    if not isinstance(t, str):
        return t
    return "".join("-" if ord(c) > 0x24F and unicodedata.category(c)[0] in "LN" else c for c in t)


def _phrase_set_body(body):
    phrases = body.get("phrases") if isinstance(body, dict) else None
    if not isinstance(phrases, list):
        return
    for p in phrases:
        if not isinstance(p, dict):
            continue
        if "text" in p:
            p["text"] = _latin_word_chars(p["text"])
        syn = p.get("synonyms")
        if isinstance(syn, list):
            p["synonyms"] = [_latin_word_chars(x) for x in syn]


def _collection_body(body):
    emb = body.get("embedding_config") if isinstance(body, dict) else None
    remote = emb.get("model") if isinstance(emb, dict) else None
    if not isinstance(remote, dict):
        return
    dims = remote.get("dims")
    # An integer as JSON Schema counts them (8 or 8.0) within the schema's
    # bounds: the fake answers vectors of that length.
    valid_dims = isinstance(dims, (int, float)) and not isinstance(dims, bool) and dims == int(dims) and 1 <= dims <= DIMS_MAX
    remote["url"] = _url(remote.get("url"), int(dims) if valid_dims else None)
    if isinstance(remote.get("api_key_name"), str) and remote["api_key_name"]:
        remote["api_key_name"] = KEY_NAME
    if isinstance(remote.get("api_key_env"), str) and remote["api_key_env"]:
        remote["api_key_env"] = KEY_ENV


@schemathesis.hook
def before_call(context, case, kwargs):
    op = case.operation
    method, path = op.method.upper(), op.path
    if method in ("POST", "PUT") and path in ("/models", "/models/{model_id}"):
        _model_body(case.body)
    elif method in ("POST", "PUT") and path in ("/phrase-sets", "/phrase-sets/{phrase_set_id}"):
        _phrase_set_body(case.body)
    elif method == "PUT" and path == "/v1/collections/{collection_id}":
        _collection_body(case.body)
        _spare_fixtures(case)
    elif path in ("/v1/collections/{collection_id}", "/v1/collections/{collection_id}/documents") and method in ("DELETE", "POST"):
        _spare_fixtures(case)
    elif path in SEARCH_PATHS:
        _search_case(case)
    elif path in ("/v1/collections/{collection_id}/documents/{document_id}",) or (method == "GET" and path == "/v1/collections/{collection_id}/documents"):
        _document_case(case, method)


def _spare_fixtures(case):
    """Keeps the fixture collections as they are: a generated (or learned
    from a listing) PUT, DELETE or ingest naming one acts on another
    collection instead."""
    path = case.path_parameters or {}
    if path.get("collection_id") in FIXTURES:
        path["collection_id"] = "st-other"


FIXTURES = ("st-kb", "st-kb2", "st-hybrid", "st-scratch")
SEARCH_PATHS = ("/v1/collections/{collection_ids}/search", "/v1/collections/{collection_ids}/answer", "/v1/collections/{collection_ids}/query")


INGEST = ("POST", "/v1/collections/{collection_id}/documents")


def _is_ingest(case):
    return (case.operation.method.upper(), case.operation.path) == INGEST


@schemathesis.check
def upload_negative_rejection(ctx, response, case):
    """negative_data_rejection for the ingest operation, where it applies.

    A JSON body that breaks the document's application/json schema is
    refused at once (400), except in two cases the API defines and no
    schema can tie to a query parameter: with async=true the upload is
    read by the job (its errors are in the job's status), and with a
    format parameter other than json the body is a file of that format
    (format wins over the Content-Type), not JSON. Only cases whose sole
    invalid part, as sent, is the body are let through in those two cases
    (headers are judged by _declared_headers_valid). The
    script excludes the built-in check; for every other operation this
    is the built-in check.
    """
    meta = case.meta
    if meta is None:
        return None
    with _headers_as_sent(case, response):
        if not _is_ingest(case):
            return negative_data_rejection(ctx, response, case)
        return _ingest_negative_rejection(ctx, response, case)


class _headers_as_sent:
    """Judges a case by the Authorization header it was sent with.

    schemathesis's negative generation may drop the required Authorization
    header, but --auth adds it to every request, so the server reads valid
    credentials; the built-in check would judge the generated headers, not
    those sent (in the case reported, together with query properties the
    HTTP client does not send, leaving a valid request that answered 200).
    For the check, the case's headers carry the Authorization that was
    sent; they are restored afterwards.
    """

    def __init__(self, case, response):
        self.case, self.response, self.added = case, response, False

    def __enter__(self):
        headers = self.case.headers
        sent = getattr(getattr(self.response, "request", None), "headers", None) or {}
        auth = sent.get("Authorization")
        if auth and not any(str(k).lower() == "authorization" for k in (headers or {})):
            if headers is None:
                self.case.headers = headers = {}
            headers["Authorization"] = auth
            self.added = True
        return self

    def __exit__(self, *exc):
        if self.added:
            self.case.headers.pop("Authorization", None)
        return False


def _declared_headers_valid(case, response):
    """Whether the headers the case was sent with are valid for the
    operation's declared headers (the Authorization of the security
    scheme), leaving out the headers it does not declare.

    The declared headers are read from the request as sent. A header
    negation that only drops Authorization (which --auth adds back) or
    mangles it (--auth sets it) and adds headers of other
    names (which HTTP lets any client send, and every server ignores) is
    no negation on the wire. The built-in check lets such a case through
    (has_only_additional_properties_in_non_body_parameters) only when no
    other part is negative; for the ingest, whose body is exempt in the
    cases above, it is judged here. A failure from schemathesis 4.32.5:
    POST ...?format=plain with headers fuu, i, if, ... and two random
    bytes stored a plain-text document (200), reported as "header
    violates required (was Authorization)".
    """
    params = case.operation.get_parameter_set(ParameterLocation.HEADER)
    declared = {str(k).lower(): k for k in (params.schema.get("properties") or {})} if params else {}
    sent = {}
    wire = getattr(getattr(response, "request", None), "headers", None) or case.headers or {}
    for k, v in wire.items():
        if str(k).lower() in declared:
            sent[declared[str(k).lower()]] = v.strip(" \t") if isinstance(v, str) else v
    try:
        return params is not None and params.get_strict_validator().is_valid(sent)
    except Exception:
        return False


def _ingest_negative_rejection(ctx, response, case):
    meta = case.meta
    negative = {loc for loc, info in meta.components.items() if info.mode.is_negative}
    if ParameterLocation.HEADER in negative and _declared_headers_valid(case, response):
        negative.discard(ParameterLocation.HEADER)
    query = case.query or {}
    fmt = query.get("format")
    if negative == {ParameterLocation.BODY} and (str(query.get("async")).lower() == "true" or fmt not in (None, "json")):
        return None
    return negative_data_rejection(ctx, response, case)


@schemathesis.check
def data_acceptance(ctx, response, case):
    """positive_data_acceptance, except where the schema cannot say it.

    The built-in check is excluded by the script and runs here, unchanged,
    for every operation, with two exceptions:

    - The ingest takes files: a raw body of any media type or multipart
      file parts. Whether bytes are a document najdi reads (a well-formed
      PDF, DOCX, XLSX or ODS, a CSV with a record, text rather than an
      image) no schema can state, nor that async=true takes one file per
      request. A schema-valid file upload may be refused with 415 (no
      format najdi reads) or 400 naming the file; a JSON body (the
      envelope, JSON records) without a format parameter other than json
      is still held to the strict rule.
    - Search, answer and query page at most 10000 deep: offset +
      max_results <= 10000, a bound on the sum of two parameters that
      OpenAPI cannot state (each has its own bounds). A request past it
      is refused with 400 naming offset.
    - rerank needs a query (both optional on their own): a search body
      with rerank and no query is refused with 400 naming rerank.
    - retrievers "semantic" on a keyword-only collection is refused with
      400 naming retrievers (the collection has no embedding model).
    """
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    op = (case.operation.method.upper(), case.operation.path)
    query = case.query or {}
    if op == INGEST and response.status_code in (400, 415):
        media = (case.media_type or "").split(";")[0].strip()
        json_body = media == "application/json" and isinstance(case.body, (dict, list)) and query.get("format") in (None, "json")
        if not json_body:
            return None
    if op[1] in SEARCH_PATHS and response.status_code == 400 and (_page_too_deep(case, response) or _rerank_without_query(case, response) or _semantic_on_keyword_only(case, response)):
        return None
    return positive_data_acceptance(ctx, response, case)


def _error_field(response):
    try:
        return response.json()["error"]["details"]["field"]
    except Exception:
        return None


def _semantic_on_keyword_only(case, response):
    """retrievers "semantic" needs an embedding model on every searched
    collection, a rule of the collections' configuration (the search hook
    maps such cases onto "keyword", but a case the coverage phase builds
    may keep it). True when the request asks for it on a keyword-only
    fixture and the 400 names retrievers."""
    src = case.query if case.operation.method.upper() == "GET" else case.body
    ids = (case.path_parameters or {}).get("collection_ids")
    if not isinstance(src, dict) or not isinstance(ids, str):
        return False
    keyword_only = any(c in KEYWORD_ONLY for c in urllib.parse.unquote(ids).split(","))  # the path value may be quoted by then
    return keyword_only and src.get("retrievers") == "semantic" and _error_field(response) == "retrievers"


def _rerank_without_query(case, response):
    """rerank needs a query: a rule between two properties, each optional
    on its own, that OpenAPI cannot state. True when the body asks for
    reranking without a query (absent, null or white space as \\S reads
    it) and the 400 names rerank."""
    body = case.body if isinstance(case.body, dict) else {}
    query = body.get("query")
    blank = not isinstance(query, str) or not re.search(r"[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]", query)
    return body.get("rerank") is not None and blank and _error_field(response) == "rerank"


def _page_too_deep(case, response):
    """offset + max_results is at most 10000 (MaxResultWindow, as in
    Elasticsearch): each is within its schema bounds, but OpenAPI cannot
    bound their sum. True when the request breaks that rule and the 400
    names offset."""
    src = case.query if case.operation.method.upper() == "GET" else case.body
    if not isinstance(src, dict):
        return False
    try:
        offset = int(float(src.get("offset") or 0))
        size = src.get("max_results")
        size = 10 if size is None else int(float(size))
    except (TypeError, ValueError):
        return False
    try:
        field = response.json()["error"]["details"]["field"]
    except Exception:
        return False
    return offset + size > 10000 and field == "offset"
