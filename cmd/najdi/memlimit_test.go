package main

import "testing"

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1048576", 1 << 20, true},
		{"512MiB", 512 << 20, true},
		{"2GiB", 2 << 30, true},
		{" 3 GB ", 3e9, true},
		{"10KiB", 10 << 10, true},
		{"100B", 100, true},
		{"", 0, false},
		{"1.5GiB", 0, false},
		{"-1MiB", 0, false},
		{"lots", 0, false},
		{"9999999999TiB", 0, false},
	} {
		got, err := parseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
