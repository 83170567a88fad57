// Package nlu is najdi's language-understanding service: NLU model
// management (annotators and pipelines), closed-entity phrase sets, and the
// analysis of a text into intents and entity annotations, for Czech and
// English.
//
// # What
//
// A Service keeps, per owner, Models and PhraseSets in a durable Store (the
// server passes a pebble-backed one; MemStore serves tests). Models are
// created, read, fully replaced and deleted through raw JSON bodies that the
// Service validates itself (unknown fields, model_id/owner sent by the
// client, unknown type, missing or invalid pipeline mode, members that do
// not exist, cycles of pipelines, closed-ner models without phrase sets are
// ErrInvalid with a message naming the field). Errors wrap ErrNotFound,
// ErrInvalid, ErrConflict, ErrUpstream and ErrUpstreamTimeout.
//
// Annotator models run in-process (annotator.service "builtin"):
// intent-classifier (package intent; trained on create/update from
// config.examples with the sentence embedder of the model's language —
// Options.EmbedderFor, else Options.Embedder — out_of_scope under
// config.threshold, default 0.5), regex
// (named RE2 patterns → entities), builtin-ner (package entity: person,
// location, organization, date, time, duration, number, ordinal, money,
// percent, email, url, phone for "en" and "cs") and closed-ner (package
// phrase over the model's phrase sets); or they delegate to an annotation
// microservice at annotator.service (POST {url}/annotate, bounded by
// Options.MicroserviceTimeout). The service's host must be on the
// operator's allow-list (Options.AllowOutbound, najdi serve
// --allow-outbound; empty by default, so no client-written URL is called)
// and is dialed through internal/outbound's guard; its failures answer one
// message whatever the cause, the details going to Options.Logger.
// Pipeline models list member model ids;
// inline {"name": "builtin-ner", "language": "cs"} and {"name":
// "closed-ner", "phrase_set_ids": [...]} members are created as models of
// their own (their ids replace them in the pipeline's response) and are
// deleted with the pipeline when nothing else lists them.
//
// # How it works inside
//
// Every stored model is compiled into an annotator when it is written and
// when the Service starts (intent classifiers are re-trained, which is
// deterministic). Analyze resolves the model tree under a read lock into a
// snapshot of nodes, releases the lock and runs it: a sequential pipeline
// hands each member the text plus the intents and annotations accumulated so
// far (microservices receive them in the request as "annotations" and
// "intents"); a parallel pipeline runs every member in its own goroutine on
// the text alone and cancels the rest on the first error. Results are
// merged in member order; intents are then sorted by confidence and
// annotations by offset. Every intent is also an annotation of type
// "intent" spanning the whole text; source is the name of the leaf model
// that produced an annotation (what a person reads) and source_id its
// model_id. Offsets are code points.
//
// Phrase sets are compiled into token tries (package phrase) once per write;
// updating a set changes what its closed-ner models match from the next
// analysis on. Deleting a set that a model uses, or a model that a pipeline
// lists, is ErrConflict.
package nlu
