// Package ui is najdi's web console: a single page of hand-written HTML,
// CSS and JavaScript, embedded in the binary with embed and served under
// /ui/ by the server, behind the API's authentication.
//
// # Why vanilla JavaScript
//
// The console is a thin client of the JSON API (collections, ingestion,
// jobs, search, answers, NLU models, phrase sets, analysis). A framework
// would bring a build step, an npm dependency tree to audit and update,
// and a bundle many times the size of the whole console; server-rendered
// templates would duplicate the API's handlers in Go. Plain ES2020 with
// fetch, XMLHttpRequest (for upload progress) and the DOM needs no build:
// `go build` on a fresh clone embeds the files as they are in the
// repository, nothing is fetched at run time (no CDN; the page works
// offline), and every request the page makes is one a user could make
// with curl — the search page shows that command.
//
// # Authentication
//
// The console is served behind the same HTTP Basic authentication as the
// API: the browser asks for the user name and password once (its own
// login prompt, on the first 401 with WWW-Authenticate) and then sends
// them with every request of the page, including the API calls. With no
// users configured the server needs no login, as for the API. Close the
// browser to forget the credentials.
//
// # Files
//
// assets/index.html is the shell, assets/app.js the whole application
// (hash routes #/collections, #/upload, #/search, #/nlu; Czech and English
// texts), assets/style.css the styles. Responses carry a strict
// Content-Security-Policy (scripts, styles and connections from the
// server's own origin only) and an ETag.
package ui
