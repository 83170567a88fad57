package main_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/najdi/najdi/client"
)

// bin is the najdi binary built once for these end-to-end tests: the
// server and the CLI are the same binary.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "najdi-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "najdi")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build najdi:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a running `najdi serve`.
type server struct {
	url string
	cmd *exec.Cmd
	log *bytes.Buffer
}

// startServer runs najdi serve on a free loopback port with a fresh data
// directory and waits until it is healthy.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &server{url: "http://" + addr, log: &bytes.Buffer{}}
	s.cmd = exec.Command(bin, append([]string{"serve", "--addr", addr, "--data", t.TempDir()}, args...)...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		_, _ = s.cmd.Process.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := http.Get(s.url + "/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("najdi serve did not become healthy: %s", s.log)
	return nil
}

// usersFile writes a credentials file with user:password pairs.
func usersFile(t *testing.T, pairs ...string) string {
	t.Helper()
	var lines []string
	for _, p := range pairs {
		name, pass, _ := strings.Cut(p, ":")
		h, err := bcrypt.GenerateFromPassword([]byte(pass), 4)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, name+":"+string(h))
	}
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// run is one finished CLI invocation.
type run struct {
	code           int
	stdout, stderr string
}

// cli runs the najdi CLI with args and environment env (added to a clean
// environment: PATH, HOME, XDG_STATE_HOME in a temporary directory).
func cli(t *testing.T, env []string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(baseEnv(t), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := run{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("najdi %v: %v", args, err)
	}
	return r
}

var stateHomes = map[*testing.T]string{}

// baseEnv is the environment of CLI runs: a state directory of the test.
func baseEnv(t *testing.T) []string {
	home, ok := stateHomes[t]
	if !ok {
		home = t.TempDir()
		stateHomes[t] = home
	}
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
}

// apiClient returns a Go client of s (package client, as a program would
// use it).
func apiClient(s *server, user, pass string) *client.Client {
	c := client.New(s.url)
	c.User, c.Password = user, pass
	return c
}

// allIDs lists every document id of a collection.
func allIDs(t *testing.T, c *client.Client, coll string) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for {
		page, next, err := c.ListDocuments(context.Background(), coll, 1000, cursor)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, page...)
		if next == "" {
			return ids
		}
		cursor = next
	}
}
