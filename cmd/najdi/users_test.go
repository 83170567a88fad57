package main

import (
	"io"
	"log/slog"
	"testing"
)

// TestNoUsersLoopbackOnly: without users, serve accepts only a loopback
// --addr (loopbackHost), and says why otherwise.
func TestNoUsersLoopbackOnly(t *testing.T) {
	t.Setenv("NAJDI_USERS", "")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tt := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{"0.0.0.0:8080", false},
		{":8080", false},
		{"192.168.1.5:8080", false},
	} {
		if _, err := loadUsers("", tt.addr, log); (err == nil) != tt.ok {
			t.Errorf("loadUsers with --addr %s: %v, want ok %v", tt.addr, err, tt.ok)
		}
	}
}
