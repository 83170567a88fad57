// Package filter implements najdi's document filters: the Elasticsearch
// (7.x and later) query DSL subset accepted in the `filter` object of search
// and answer requests, the `filter:{field}` parameters of the query
// endpoint, and their evaluation into roaring bitmaps over one segment.
//
// # Why
//
// Filters select documents by exact field values before or while ranking.
// Clients already speak Elasticsearch's DSL, so najdi accepts it unchanged
// and answers 400 (ErrInvalid, ErrUnsupported, ErrTooComplex) naming the
// offending path for anything outside the subset, instead of guessing.
//
// # Grammar
//
// A filter is one clause object {"name": body}; an empty object matches all.
// Clauses, one Go type each (a tagged union decoded by a dispatch table on
// the clause name, one file per clause):
//
//	bool       {"must"|"filter"|"should"|"must_not": clause or [clauses],
//	            "minimum_should_match": 2 | "-1" | "50%" | "-25%"}      Bool
//	term       {"f": value} | {"f": {"value": v, "case_insensitive": b}} Term
//	terms      {"f": [v, ...]}                                          Terms
//	range      {"f": {"gt"|"gte"|"lt"|"lte": number, ...}}              Range
//	regexp     {"f": "re"} | {"f": {"value": "re", "flags": "ALL",
//	            "case_insensitive": b, "max_determinized_states": n}}   Regexp
//	prefix     {"f": "p"} | {"f": {"value": "p", "case_insensitive": b}} Prefix
//	exists     {"field": "f"}                                           Exists
//	match_all  {}                                                       MatchAll
//	match_none {}                                                       MatchNone
//	contains   {"f": "re"}  (najdi extension, see Contains)             Contains
//
// "boost" and "_name" are accepted everywhere and ignored (filters do not
// score). Anything else (match, query_string, terms lookup, range
// from/to/format, conditional minimum_should_match "3<90%") is rejected as
// unsupported; a misspelt parameter is invalid. Every Query prints its
// canonical JSON with String, and Parse(q.String()) gives q back.
//
// # Semantics
//
// Exactly Elasticsearch's: must and filter clauses must all match, must_not
// clauses must not. With no must/filter clause at least one should clause
// must match; otherwise should clauses narrow only when minimum_should_match
// asks (computed like Elasticsearch: negative values count missing clauses,
// percentages truncate toward zero; more than the number of should clauses
// matches nothing; a bool of must_not clauses only ignores it). A bool
// without clauses matches every document.
// Fields may be multi-valued: a clause matches a document when any value
// matches. term/terms are exact and case-sensitive (case_insensitive uses
// Unicode simple folding); on a number field a numeric value (or numeric
// string) compares numerically, so {"term": {"price": 10}} matches 10.0.
// range applies to number fields only: a range on an enum field is a 400,
// not a lexicographic keyword range. Validate rejects unknown fields and
// fields that are not enum, enum_text or number, naming field, type and
// construct.
//
// # Regular expressions
//
// regexp uses Lucene's syntax (org.apache.lucene.util.automaton.RegExp), not
// RE2, and must match the whole value: `.` any character, `? * + {n} {n,}
// {n,m}`, `|`, `( )`, `[...]` and `[^...]` classes with ranges, `"..."`
// literal strings, `\` escapes, `\d \s \w` (and negations), and `^`/`$` are
// plain characters. The flags parameter (default ALL) enables the optional
// operators: INTERSECTION `&`, COMPLEMENT `~` (complement of the following
// expression's language), EMPTY `#`, ANYSTRING `@` and INTERVAL `<n-m>`
// (decimal integers n..m; with bounds of equal width the width is fixed,
// otherwise leading zeros are allowed). Named automata `<name>` are
// unsupported. case_insensitive folds every literal and class with Unicode
// simple folding (Lucene folds ASCII only; najdi also folds Č/č).
//
// Inside, the pattern becomes a hash-consed regular-expression term with
// complement and intersection as first-class nodes; matching follows
// Brzozowski derivatives, each distinct derivative being one state of a
// lazily built DFA with memoized transitions (a dense table for ASCII). A
// scan seeks the field's sorted term dictionary to the pattern's literal
// prefix, reuses the states of the prefix shared with the previous term,
// and jumps past every term under a prefix that reached the dead state.
// Limits answer ErrTooComplex rather than hang: MaxRegexpLength characters,
// repetition counts up to 1000, 200000 automaton nodes, and
// max_determinized_states (default DefaultMaxDeterminizedStates, like
// Elasticsearch) distinct states.
//
// # Query-endpoint filters
//
// ParseQueryParams turns `filter:{field}=value` pairs into Contains clauses
// ANDed together: the value is a Go RE2 expression found anywhere in a field
// value, case-insensitively (a value that is not valid RE2 is searched as a
// literal substring); on number fields the value must be a number and is
// compared for equality.
//
// # Evaluation
//
// Eval writes the matching documents of one segment (an Index) into a
// caller-owned bitmap. Conjunctions estimate each clause's size (posting
// cardinality, number of values in a range) and start from the smallest;
// term postings are used in place, the other clauses are evaluated
// restricted to the documents still left (range checks per-doc values when
// that is cheaper), and evaluation stops as soon as nothing is left.
// Scratch bitmaps come from a pool; the evaluator itself allocates nothing
// in steady state, roaring's result containers aside.
package filter
