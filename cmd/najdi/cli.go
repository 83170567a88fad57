package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/najdi/najdi/client"
)

// Exit codes of the client commands (ingest, search, collections, models,
// jobs), documented in README.md.
const (
	exitOK          = 0   // everything done
	exitError       = 1   // the command failed: the server answered an error, or it could not be reached
	exitUsage       = 2   // bad flags or arguments
	exitPartial     = 3   // ingest finished, but some files or records were not ingested
	exitAuth        = 4   // the server refused the credentials (401) or the access (403)
	exitNotFound    = 5   // the collection (or other resource) does not exist
	exitInterrupted = 130 // interrupted (Ctrl-C); ingest resumes where it stopped when run again
)

// usageError is a mistake in the command line (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitCode maps a command's error to its exit code.
func exitCode(err error) int {
	var ue usageError
	var ec exitErr
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ec):
		return ec.code
	case errors.As(err, &ue), errors.Is(err, flag.ErrHelp):
		return exitUsage
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case client.IsUnauthorized(err):
		return exitAuth
	case client.IsNotFound(err):
		return exitNotFound
	}
	return exitError
}

// exitErr carries an exit code with its message ("" when the command
// printed its own report).
type exitErr struct {
	code int
	msg  string
}

func (e exitErr) Error() string { return e.msg }

// conn holds the flags every client command takes.
type conn struct {
	server  string
	user    string
	jsonOut bool
}

func (c *conn) flags(fs *flag.FlagSet) {
	def := os.Getenv("NAJDI_SERVER")
	if def == "" {
		def = "http://127.0.0.1:8080"
	}
	fs.StringVar(&c.server, "server", def, "server URL (env NAJDI_SERVER)")
	fs.StringVar(&c.user, "user", os.Getenv("NAJDI_USER"), "user name for HTTP Basic authentication (env NAJDI_USER); the password comes from NAJDI_PASSWORD or a prompt")
	fs.BoolVar(&c.jsonOut, "json", false, "print JSON on stdout (for scripts)")
}

// client returns an API client; with a user and no NAJDI_PASSWORD it asks
// for the password on the terminal.
func (c *conn) client() (*client.Client, error) {
	if !strings.Contains(c.server, "://") {
		c.server = "http://" + c.server
	}
	cl := client.New(c.server)
	if c.user == "" {
		return cl, nil
	}
	cl.User = c.user
	if pw, ok := os.LookupEnv("NAJDI_PASSWORD"); ok {
		cl.Password = pw
		return cl, nil
	}
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return nil, usagef("--user %s: set NAJDI_PASSWORD (stdin is not a terminal to ask for the password)", c.user)
	}
	fmt.Fprintf(os.Stderr, "password for %s at %s: ", c.user, c.server)
	pw, err := term.ReadPassword(fd)
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return nil, fmt.Errorf("read the password: %w", err)
	}
	cl.Password = string(pw)
	return cl, nil
}

// parseArgs parses flags that may come before, between or after the
// positional arguments (najdi ingest docs/ --collection c), and returns
// the positional arguments. "--" ends the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitErr{exitOK, ""}
			}
			return nil, exitErr{exitUsage, ""} // the flag package printed the error and the usage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: najdi %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// printJSON writes v as indented JSON on w.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// describe adds a hint to errors a person can act on.
func describe(err error, server string) error {
	var ne *net.OpError
	if errors.As(err, &ne) && ne.Op == "dial" {
		return fmt.Errorf("%w\n(is najdi running at %s? start it with `make run` or `najdi serve`, or pass --server)", err, server)
	}
	if client.IsUnauthorized(err) {
		return fmt.Errorf("%w\n(check --user and NAJDI_PASSWORD)", err)
	}
	return err
}

// stdoutWriter buffers stdout for one command.
func stdoutWriter() *bufio.Writer { return bufio.NewWriter(os.Stdout) }
