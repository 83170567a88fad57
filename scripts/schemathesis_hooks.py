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
this process: POST .../embeddings answers vectors of FAKE_DIMS numbers,
POST .../annotate answers no intents and no annotations.
"""

import base64
import json
import os
import re
import threading
import urllib.request
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
FAKE_DIMS = 8

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# The document's own URL pattern: only URLs it accepts are replaced.
with urllib.request.urlopen(BASE + "/v1/openapi.json", timeout=30) as _r:
    URL_VALID = re.compile(json.loads(_r.read())["components"]["schemas"]["RemoteEmbedding"]["properties"]["url"]["pattern"])
# The scheme and authority of a URL; the rest (the path) is kept.
URL_HEAD = re.compile(r"^([Hh][Tt][Tt][Pp][Ss]?)://([^/]+)(/.*)?$")


class Fake(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.split("?")[0]
        if path.endswith("/embeddings"):
            try:
                inputs = json.loads(body).get("input") or []
            except (ValueError, AttributeError):
                inputs = []
            if isinstance(inputs, str):
                inputs = [inputs]
            data = [{"object": "embedding", "index": i, "embedding": [((i + j) % 7 + 1) / 7 for j in range(FAKE_DIMS)]} for i in range(len(inputs))]
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


def _new_model():
    return _create("/models", {"name": "builtin-ner", "language": "en"})["model_id"]


def _new_phrase_set():
    return _create("/phrase-sets", {"name": "city", "phrases": [{"text": "Praha"}]})["phrase_set_id"]


def _url(v):
    if isinstance(v, str) and len(v) <= 2048 and URL_VALID.search(v):
        m = URL_HEAD.match(v)
        if m:
            return f"http://{FAKE_HOST}{m.group(3) or ''}"  # the fake speaks plain HTTP
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


def _collection_body(body):
    emb = body.get("embedding_config") if isinstance(body, dict) else None
    remote = emb.get("model") if isinstance(emb, dict) else None
    if not isinstance(remote, dict):
        return
    remote["url"] = _url(remote.get("url"))
    if isinstance(remote.get("dims"), int) and not isinstance(remote.get("dims"), bool) and remote["dims"] >= 1:
        remote["dims"] = FAKE_DIMS
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
    elif method == "PUT" and path == "/v1/collections/{collection_id}":
        _collection_body(case.body)


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
    invalid part is the body are let through in those two cases. The
    script excludes the built-in check; for every other operation this
    is the built-in check.
    """
    meta = case.meta
    if meta is None:
        return None
    if not _is_ingest(case):
        return negative_data_rejection(ctx, response, case)
    negative = {loc for loc, info in meta.components.items() if info.mode.is_negative}
    query = case.query or {}
    fmt = query.get("format")
    if negative == {ParameterLocation.BODY} and (str(query.get("async")).lower() == "true" or fmt not in (None, "json")):
        return None
    return negative_data_rejection(ctx, response, case)


QUERY = ("GET", "/v1/collections/{collection_ids}/query")


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
    - The query endpoint needs a query, a filter or a filter:{field}
      parameter, each optional on its own; OpenAPI cannot require one of
      several parameters. A request with none of them may be refused.
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
    if op == QUERY and not (str(query.get("query") or "").strip() or query.get("filter") or any(str(k).startswith("filter:") for k in query)):
        return None
    return positive_data_acceptance(ctx, response, case)
