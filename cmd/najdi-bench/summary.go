package main

import "errors"

// runSummary runs the summary workload (placeholder until the workload lands).
func runSummary(args []string) error { return errors.New("summary: not implemented yet") }
