package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMemAvailable checks memAvailable's reading of /proc/meminfo and of a
// memory cgroup (v2, v1, the process's own v2 group, unlimited, unreadable)
// on files laid out as Linux shows them.
func TestMemAvailable(t *testing.T) {
	const meminfo = "MemTotal:       24683520 kB\nMemFree:        10686000 kB\nMemAvailable:   17324000 kB\nBuffers:           10000 kB\n"
	const host = 17324000 << 10
	tests := []struct {
		name      string
		files     map[string]string // under the cgroup mount
		procGroup string
		want      int64
	}{
		{"no cgroup", nil, "", host},
		{"v2 unlimited", map[string]string{"memory.max": "max\n", "memory.current": "100\n"}, "0::/\n", host},
		{"v2 limit", map[string]string{"memory.max": "4294967296\n", "memory.current": "3221225472\n", "memory.stat": "anon 2147483648\nfile 1073741824\ninactive_file 536870912\nactive_file 536870912\n"}, "0::/\n", 4294967296 - (3221225472 - 536870912)},
		{"v2 over", map[string]string{"memory.max": "1073741824\n", "memory.current": "2147483648\n"}, "", 0},
		{"v2 own group", map[string]string{"memory.max": "max\n", "svc/memory.max": "2147483648\n", "svc/memory.current": "1073741824\n", "svc/memory.stat": "inactive_file 0\n"}, "1:name=systemd:/svc\n0::/svc\n", 1073741824},
		{"v1 limit", map[string]string{"memory/memory.limit_in_bytes": "8589934592\n", "memory/memory.usage_in_bytes": "4294967296\n", "memory/memory.stat": "cache 100\ntotal_inactive_file 1073741824\n"}, "4:memory:/x\n", 8589934592 - (4294967296 - 1073741824)},
		{"v1 unlimited", map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n", "memory/memory.usage_in_bytes": "13910646784\n"}, "4:memory:/x\n", host},
		{"v2 unreadable usage", map[string]string{"memory.max": "4294967296\n"}, "", host},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			mi := filepath.Join(dir, "meminfo")
			if err := os.WriteFile(mi, []byte(meminfo), 0o644); err != nil {
				t.Fatal(err)
			}
			pc := filepath.Join(dir, "cgroup-list")
			if err := os.WriteFile(pc, []byte(tt.procGroup), 0o644); err != nil {
				t.Fatal(err)
			}
			cg := filepath.Join(dir, "cg")
			for name, body := range tt.files {
				p := filepath.Join(cg, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := memAvailableAt(mi, pc, cg); got != tt.want {
				t.Fatalf("memAvailable = %d, want %d", got, tt.want)
			}
		})
	}
	if got := memAvailableAt(filepath.Join(t.TempDir(), "none"), "", ""); got != 0 {
		t.Fatalf("without meminfo: %d, want 0", got)
	}
}
