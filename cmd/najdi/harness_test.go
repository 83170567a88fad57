package main_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/najdi/najdi/client"
	"github.com/najdi/najdi/internal/testutil"
)

// bin is the najdi binary built once for these end-to-end tests: the
// server and the CLI are the same binary.
var bin string

func TestMain(m *testing.M) { testutil.RunWithNajdi(m, ".", &bin) }

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
	s := &server{log: &bytes.Buffer{}}
	s.cmd, s.url = testutil.Serve(t, bin, t.TempDir(), s.log, args...)
	t.Cleanup(func() {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		_, _ = s.cmd.Process.Wait()
	})
	return s
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
