// Package evaldata reads the public evaluation sets under shared/data that
// both the tests and the bench workloads score against: the SNIPS intent
// files and the cs_restaurant closed-entity surface forms. One reader per
// file format keeps the tests and najdi-bench measuring the same thing.
package evaldata
