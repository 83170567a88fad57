package server

import _ "embed"

// openAPI is the OpenAPI 3 description of every route, served at
// /v1/openapi.json.
//
//go:embed openapi.json
var openAPI []byte
