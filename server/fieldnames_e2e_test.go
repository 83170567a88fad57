package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestFieldNameLength: a declared field name is 1-128 characters, as the
// OpenAPI document's propertyNames maxLength counts them (code points), not
// bytes: schemathesis sent a name of 43 four-byte characters (valid for the
// schema) and got 400 ("1-128 bytes").
func TestFieldNameLength(t *testing.T) {
	n := start(t, "")
	for _, tc := range []struct {
		name   string
		status int
	}{
		{strings.Repeat("𝖋", 128), 201},
		{strings.Repeat("é", 100), 201},
		{strings.Repeat("a", 128), 201},
		{strings.Repeat("𝖋", 129), 400},
		{strings.Repeat("a", 129), 400},
	} {
		id := fmt.Sprintf("f%d", len(tc.name))
		r := n.putJSON("/v1/collections/"+id, `{"embedding_config": {"model": "none"}, "fields": {"`+tc.name+`": {"type": "enum"}}}`)
		if r.status != tc.status {
			t.Errorf("field name of %d characters (%d bytes): %d %s, want %d", len([]rune(tc.name)), len(tc.name), r.status, r.body, tc.status)
		}
	}
}
