package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/bombs"
)

// procStatus returns a field of /proc/<pid>/status in bytes (VmRSS,
// VmHWM).
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read the server's memory figures (Linux /proc): %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %q", field, rest)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// resetPeak resets VmHWM to the current RSS (clear_refs 5, Linux ≥ 4.0);
// false when the kernel does not allow it.
func resetPeak(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}

// TestBombsE2E uploads every bomb of the corpus (internal/bombs,
// scripts/make-bombs.go) to a running server and checks the answer: 413
// for a file over a limit, 400 for a lying archive, 200 with an error for
// the rest of the upload when the limit shows after valid rows, 200 for
// the harmless ones; each within 2 s, the server's peak RSS under 200 MB
// above its RSS before the upload, and the message naming the limit.
func TestBombsE2E(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "bombs", "")
	pid := n.cmd.Process.Pid
	// Warm up: a real spreadsheet and document, so that what the first
	// ingest allocates once is not charged to a bomb.
	ingestOK(t, n.do("POST", "/v1/collections/bombs/documents?filename=testEXCEL.xlsx", "application/octet-stream", readFile(t, "testEXCEL.xlsx")))
	ingestOK(t, n.do("POST", "/v1/collections/bombs/documents?filename=testWORD.docx", "application/octet-stream", readFile(t, "testWORD.docx")))
	peaks := resetPeak(pid)
	if !peaks {
		t.Log("cannot reset VmHWM: peaks are since the server started")
	}
	for _, b := range bombs.Corpus() {
		t.Run(b.Name, func(t *testing.T) {
			if peaks {
				resetPeak(pid)
			}
			before := procStatus(t, pid, "VmRSS")
			start := time.Now()
			r := n.do("POST", "/v1/collections/bombs/documents?filename="+b.Name, "application/octet-stream", b.Data)
			elapsed := time.Since(start)
			peak := procStatus(t, pid, "VmHWM")
			growth := max(peak-before, 0)
			msg := bombMessage(r)
			t.Logf("%-30s %6.2f MB -> %d in %6.1f ms, RSS %4d MB, peak +%4d MB: %s",
				b.Name, float64(len(b.Data))/1e6, r.status, float64(elapsed.Microseconds())/1000, before>>20, growth>>20, truncate([]byte(msg), 160))
			want := map[bombs.Outcome]int{bombs.TooLarge: 413, bombs.Corrupt: 400, bombs.Stopped: 200, bombs.Harmless: 200}[b.Want]
			if r.status != want {
				t.Errorf("status %d, want %d: %s", r.status, want, truncate(r.body, 400))
			}
			if b.Want == bombs.TooLarge && r.errorCode(t) != "payload_too_large" {
				t.Errorf("error code %q, want payload_too_large", r.errorCode(t))
			}
			if b.Want == bombs.Harmless {
				if ir := ingestOK(t, r); len(ir.Documents) == 0 || len(ir.Errors) > 0 {
					t.Errorf("%d documents, errors %v", len(ir.Documents), ir.Errors)
				}
			} else if !strings.Contains(msg, b.Limit) {
				t.Errorf("message %q does not name the limit (%q)", msg, b.Limit)
			}
			if elapsed > 2*time.Second {
				t.Errorf("answered in %v, want under 2 s", elapsed)
			}
			if growth > 200<<20 {
				t.Errorf("peak RSS %d MB above the %d MB before the upload, want under 200 MB", growth>>20, before>>20)
			}
		})
	}
	// The server still answers, and holds what the harmless files and the
	// rows before a stopped bomb gave.
	must(t, n.getJSON("/v1/collections/bombs"), 200)
}

// bombMessage returns the error message of an error answer, or the
// messages of the errors listed in an ingest answer.
func bombMessage(r resp) string {
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if json.Unmarshal(r.body, &body) != nil {
		return string(r.body)
	}
	msgs := []string{body.Error.Message}
	for _, e := range body.Errors {
		msgs = append(msgs, e.Message)
	}
	return strings.TrimSpace(strings.Join(msgs, " "))
}
