package server

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitAppendMatchesSplit holds the router's allocation-free split to
// strings.Split, empty pieces and more pieces than the buffer included.
func TestSplitAppendMatchesSplit(t *testing.T) {
	for _, s := range []string{"", "v1", "v1/collections", "v1/collections/a,b/search", "a//b", "/", "//", "a/", "/a",
		"v1/collections/kw/documents/d1/x/y/z/w/v", "a,b,,c", ","} {
		for _, sep := range []byte{'/', ','} {
			var buf [2]string
			got := splitAppend(buf[:0], s, sep)
			if want := strings.Split(s, string(sep)); !slices.Equal(got, want) {
				t.Errorf("splitAppend(%q, %q) = %q, want %q", s, sep, got, want)
			}
		}
	}
}

// TestEmptyParamIn checks the scan for a parameter without a name against
// the split it replaced.
func TestEmptyParamIn(t *testing.T) {
	ref := func(qs string) bool {
		for _, seg := range strings.Split(qs, "&") {
			if strings.HasPrefix(seg, "=") {
				return true
			}
		}
		return false
	}
	for _, qs := range []string{"", "=", "=x", "a=1", "a=1&=x", "a=1&b=2", "&", "&=", "a&", "a=1&&b", "a==1", "a=&=", "==", "a=1&b=2&=3"} {
		if got, want := emptyParamIn([]byte(qs)), ref(qs); got != want {
			t.Errorf("emptyParamIn(%q) = %v, want %v", qs, got, want)
		}
	}
}

// TestRouteAllocs checks that routing a search request's path costs no
// allocation for the split.
func TestRouteAllocs(t *testing.T) {
	path := "/v1/collections/kw/search"
	n := testing.AllocsPerRun(100, func() {
		var buf [8]string
		parts := splitAppend(buf[:0], strings.Trim(path, "/"), '/')
		var ids [4]string
		if len(splitAppend(ids[:0], parts[2], ',')) != 1 {
			t.Fatal("ids")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
	if emptyParamIn([]byte("a=1&b=2")) {
		t.Error("no empty name")
	}
}
