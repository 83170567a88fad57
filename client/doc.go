// Package client is a small Go client of najdi's HTTP API: collections,
// ingestion (synchronous and as jobs), search, answers and NLU models. It
// depends on the standard library and package api only (its response types
// are api's, the ones the server encodes); the najdi command's CLI
// (najdi ingest, search, collections, models, jobs) is built on it.
//
//	c := client.New("http://127.0.0.1:8080")
//	c.User, c.Password = "alice", os.Getenv("NAJDI_PASSWORD")
//	res, err := c.Search(ctx, []string{"papers"}, client.SearchRequest{Query: "trace compilation"})
//
// Requests refused for overload (429, 503) are retried after the
// Retry-After the server sends, up to MaxRetries times; every other error
// status is returned as an *Error carrying the API's error code and
// message.
//
// The client is the one the najdi command's client commands use; its
// behaviour is tested end to end over real HTTP against a real server in
// cmd/najdi (ingest with authentication, interruption and resume, 429
// retries, search paging, every exit code).
package client
