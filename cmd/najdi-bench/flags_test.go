package main

import (
	"flag"
	"io"
	"reflect"
	"testing"
)

// TestListFlag checks that a list flag keeps its default until given, that
// a given value replaces the default (repeated flags append), and that a
// non-number is refused naming the item.
func TestListFlag(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		ints    []int
		floats  []float64
		wantErr string
	}{
		{"defaults", nil, []int{20}, nil, ""},
		{"replaced", []string{"-k", "5, 10,,", "-w", "0.5,1"}, []int{5, 10}, []float64{0.5, 1}, ""},
		{"repeated", []string{"-k", "1", "-k", "2"}, []int{1, 2}, nil, ""},
		{"bad int", []string{"-k", "5,x"}, nil, nil, `invalid value "5,x" for flag -k: "x" is not a number`},
		{"bad float", []string{"-w", "0.5,1e"}, nil, nil, `invalid value "0.5,1e" for flag -w: "1e" is not a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var ints []int
			var floats []float64
			listFlag(fs, &ints, "k", "20", "ints")
			listFlag(fs, &floats, "w", "", "floats")
			err := fs.Parse(tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ints, tc.ints) || !reflect.DeepEqual(floats, tc.floats) {
				t.Errorf("got %v %v, want %v %v", ints, floats, tc.ints, tc.floats)
			}
		})
	}
}
