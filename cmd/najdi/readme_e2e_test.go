package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlocks returns the shell blocks of the README's "Five minutes"
// section.
func readmeBlocks(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "\n## Five minutes")
	if i < 0 {
		t.Fatal(`README.md has no "## Five minutes" section`)
	}
	s = s[i+1:]
	if j := strings.Index(s[3:], "\n## "); j >= 0 {
		s = s[:j+3]
	}
	var blocks []string
	for _, part := range strings.Split(s, "```sh\n")[1:] {
		blocks = append(blocks, part[:strings.Index(part, "```")])
	}
	return blocks
}

// TestReadmeFiveMinutes runs the README's "five minutes" commands verbatim
// with bash, from a directory laid out like a fresh clone after `make run`
// (bin/najdi and examples/), against a real server with the default
// embedding model, and checks what each step answers. curl is made to
// fail on an error status, and the script stops at the first failure.
func TestReadmeFiveMinutes(t *testing.T) {
	blocks := readmeBlocks(t)
	if len(blocks) != 2 || !strings.Contains(blocks[0], "make run") {
		t.Fatalf("the section should have the make run block and the commands block, got %d blocks", len(blocks))
	}
	s := startServer(t)
	dir := t.TempDir()
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "najdi")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	script := "set -euo pipefail\ncurl() { command curl --fail-with-body --show-error \"$@\"; echo; }\n" + blocks[1]
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(t), "NAJDI_SERVER="+s.url)
	raw, err := cmd.CombinedOutput()
	out := string(raw)
	if err != nil {
		t.Fatalf("the README commands failed: %v\n%s\nserver log:\n%s", err, out, s.log)
	}
	for _, want := range []string{
		`"collection_id":"demo"`,                                               // 1. created
		"ingested 5 of 5 files into demo (305 documents",                       // 2. the CLI
		`{"documents":[{"document_id":"tracing-jit.pdf","status":"replaced"}]`, // 2. curl, again
		`"type":"title","content":"Trace Compilation of Hot Loops"`,            // 3.
		"  1. tracing-jit.pdf ",                                                // 4. CLI search
		`"continent":"OC"`,                                                     // 4. term filter
		`"name":"San Marino"`,                                                  // 4. range filter
		"searched for: hlavní město na Vltavě", "  1. praha.docx ",             // 4. diacritics
		`"answer":"According to document tracing-jit.pdf: When a guard fails`, // 5.
		"demo        305", // 6. collections
		"done    249/249", // 6. jobs
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"continent":"OC"`) && strings.Count(line, `"continent":"`) != strings.Count(line, `"continent":"OC"`) {
			t.Errorf("the continent filter let another continent through: %s", line)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}
