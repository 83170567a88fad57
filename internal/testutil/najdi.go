package testutil

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// atExit holds the directories RunWithNajdi removes when the tests end
// (RemoveAtExit).
var atExit struct {
	sync.Mutex
	dirs []string
}

// RemoveAtExit has RunWithNajdi remove dir when the package's tests and
// benchmarks end: for the data of a setup done once per process (a
// benchmark's engine, kept for every run of it), which no test's Cleanup
// outlives.
func RemoveAtExit(dir string) {
	atExit.Lock()
	defer atExit.Unlock()
	atExit.dirs = append(atExit.dirs, dir)
}

// removeAtExit removes the directories of RemoveAtExit.
func removeAtExit() {
	atExit.Lock()
	defer atExit.Unlock()
	for _, d := range atExit.dirs {
		os.RemoveAll(d)
	}
	atExit.dirs = nil
}

// RunWithNajdi is the TestMain of end-to-end tests that run the najdi
// binary: it builds the command in pkg (a directory relative to the test's
// package, e.g. "../cmd/najdi") into a temporary directory, sets *bin to
// the binary's path, runs the tests, removes the binary and the
// directories of RemoveAtExit and exits with the tests' code. With
// NAJDI_E2E_BIN set it uses that binary instead of building one
// (benchmarks timed in a measurement window build nothing).
func RunWithNajdi(m *testing.M, pkg string, bin *string) {
	if prebuilt := os.Getenv("NAJDI_E2E_BIN"); prebuilt != "" {
		*bin = prebuilt
		code := m.Run()
		removeAtExit()
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "najdi-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "najdi")
	cmd := exec.Command("go", "build", "-o", *bin, pkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build najdi:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	removeAtExit()
	os.RemoveAll(dir)
	os.Exit(code)
}

// FreeAddr returns a loopback address with a port that was free a moment
// ago.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Serve starts `bin serve` on a free loopback port with the data directory
// data and the further flags args, its output going to log, and waits up to
// 60 seconds for GET /health to answer 200, failing the test otherwise. It returns the running process (the
// caller stops it) and the server's base URL.
func Serve(tb testing.TB, bin, data string, log *bytes.Buffer, args ...string) (*exec.Cmd, string) {
	tb.Helper()
	addr := FreeAddr(tb)
	base := "http://" + addr
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr, "--data", data}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := http.Get(base + "/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return cmd, base
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Fatalf("najdi serve did not become healthy: %s", log)
	return nil, ""
}

// UsersFile writes a credentials file for `najdi serve --users` in a
// temporary directory of the test and returns its path. Each entry is
// "name:password" or "name:password:role"; the password is stored as a
// bcrypt hash (cost 4, fast enough for tests).
func UsersFile(tb testing.TB, entries ...string) string {
	tb.Helper()
	var lines []string
	for _, e := range entries {
		name, rest, _ := strings.Cut(e, ":")
		pass, role, hasRole := strings.Cut(rest, ":")
		h, err := bcrypt.GenerateFromPassword([]byte(pass), 4)
		if err != nil {
			tb.Fatal(err)
		}
		line := name + ":" + string(h)
		if hasRole {
			line += ":" + role
		}
		lines = append(lines, line)
	}
	path := filepath.Join(tb.TempDir(), "users")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}
