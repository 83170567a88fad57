package main

import "errors"

// runVector runs the vector workload (placeholder until the workload lands).
func runVector(args []string) error { return errors.New("vector: not implemented yet") }
