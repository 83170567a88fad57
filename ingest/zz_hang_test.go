package ingest

import (
	"math/rand"
	"testing"
	"time"
)

func TestZZHang(t *testing.T) {
	data := recReadDoc(t, "country-codes.csv")
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		d := append([]byte(nil), data...)
		for k := 0; k < 1+rng.Intn(5); k++ {
			d[rng.Intn(len(d))] = byte(rng.Intn(256))
		}
		start := time.Now()
		recFuzzRead(t, FormatCSV, d)
		if el := time.Since(start); el > 200*time.Millisecond {
			t.Logf("iter %d took %v", i, el)
		}
	}
}
