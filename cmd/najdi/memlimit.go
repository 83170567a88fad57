package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseSize reads a byte size: a whole number with an optional unit B,
// KiB, MiB, GiB or TiB (also KB, MB, GB, TB in powers of 1000), e.g.
// "1536MiB" or "2GiB".
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mul    int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mul := int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mul = strings.TrimSpace(n), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mul {
		return 0, fmt.Errorf("size %q: want a whole number of bytes with an optional unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", s)
	}
	return n * mul, nil
}
