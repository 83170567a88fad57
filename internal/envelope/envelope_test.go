package envelope

import (
	"bytes"
	"errors"
	"testing"
)

func TestRoundTripAndEveryFlippedByte(t *testing.T) {
	for _, payload := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("payload "), 100)} {
		enc := Append([]byte("prefix"), "NJXX", 7, payload)[len("prefix"):]
		if len(enc) != len(payload)+Overhead {
			t.Fatalf("encoded %d bytes, want %d", len(enc), len(payload)+Overhead)
		}
		v, got, err := Open(enc, "NJXX")
		if err != nil || v != 7 || !bytes.Equal(got, payload) {
			t.Fatalf("Open = %d, %q, %v", v, got, err)
		}
		for i := range enc {
			for _, mask := range []byte{0x01, 0x80, 0xff, 0x5a} {
				bad := bytes.Clone(enc)
				bad[i] ^= mask
				if _, _, err := Open(bad, "NJXX"); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("byte %d ^ %#x: err = %v, want ErrCorrupt", i, mask, err)
				}
			}
		}
		for n := range Overhead {
			if _, _, err := Open(enc[:n], "NJXX"); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("truncated to %d: err = %v", n, err)
			}
		}
	}
	if _, _, err := Open(Append(nil, "NJYY", 1, []byte("a")), "NJXX"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("foreign magic: %v", err)
	}
}
