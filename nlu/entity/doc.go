// Package entity recognizes the built-in entity classes in English and
// Czech text: person, location, organization, date, time, duration, number,
// ordinal, money, percent, email, url and phone, each with a normalized
// value where the class has one.
//
// # Values
//
//   - number, ordinal, percent: a JSON number (125, 3.5; percent 15 for "15 %").
//   - money: {"amount": 20000, "currency": "CZK"} (ISO 4217 codes).
//   - date: ISO 8601 calendar date "2025-03-15"; relative dates ("zítra",
//     "pozítří", "příští středu", "next Friday") resolve against the
//     reference time passed to Extract.
//   - time: ISO 8601 local time "20:30".
//   - duration: ISO 8601 duration "PT2H", "P3D", "PT1.5H".
//   - phone: E.164-like "+420603123456" (a Czech 9-digit number gets +420).
//   - email, url: the matched text; person, location, organization: the
//     matched text.
//
// # How it works inside
//
// Recognition is rule-based over the tokens of package token (folded forms,
// so "pondělí" and "pondeli" are one word), with Czech inflection handled by
// listing the case forms of the closed classes (numerals, months, weekdays,
// currencies, units). Email, URL, phone and numeric dates are regular
// expressions over the raw text. Every recognizer proposes candidates;
// candidates are then chosen greedily by tier (patterns, then typed
// expressions such as dates and money, then bare numbers, then names) and
// within a tier by length, so "15. března 2025" is one date and not a number
// and a month, and "603 123 456" is a phone and not three numbers.
// Names (person, location, organization) come from package ner: an averaged
// perceptron trained on CoNLL-2003 for English and a gazetteer and
// capitalization tagger for Czech.
package entity
