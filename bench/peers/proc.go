package peers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// httpClient is shared by the REST clients: keep-alive connections, enough
// idle ones for the saturation runs.
var httpClient = &http.Client{
	Timeout: 5 * time.Minute,
	Transport: &http.Transport{
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	},
}

// doJSON sends body (marshalled unless it is []byte) with method to url and
// decodes a 2xx answer into out (unless out is nil; a *[]byte receives the
// answer's bytes undecoded). A non-2xx answer is an
// error quoting the start of the body.
func doJSON(ctx context.Context, method, url string, body, out any, header ...string) error {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("%s %s: marshal: %w", method, url, err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read: %w", method, url, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, clip(string(data), 400))
	}
	switch o := out.(type) {
	case nil:
		return nil
	case *[]byte: // the caller parses the answer itself
		*o = data
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode: %w (%s)", method, url, err, clip(string(data), 200))
	}
	return nil
}

// queryKey identifies one prepared search request.
type queryKey struct {
	index string
	kind  Kind
	id    string
	k     int
}

// prepared keeps each search request a system builds, encoded once: the
// timed runs send the same queries again and again, and encoding them
// anew is the load generator's work, not the system's. Every system
// prepares its requests this way, so the client's share of the two cores
// is as small as each protocol allows.
type prepared struct{ m sync.Map }

// get returns the request stored under key, building it first if needed.
func (p *prepared) get(key queryKey, build func() (any, error)) (any, error) {
	if v, ok := p.m.Load(key); ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	p.m.Store(key, v)
	return v, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// freePort returns a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitHTTP polls url until it answers 2xx, the process exits or timeout.
func waitHTTP(ctx context.Context, url string, p *proc, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if p != nil && p.exited() {
			return fmt.Errorf("wait for %s: the process exited", url)
		}
		if err := doJSON(ctx, http.MethodGet, url, nil, nil); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("wait for %s: no answer within %s", url, timeout)
}

// processFootprint returns the resident set size of process pid and the
// bytes under its data directory dir: the footprint of a system that keeps
// its index in its own directory (najdi, Weaviate).
func processFootprint(pid int, dir string) (rss, disk int64, err error) {
	if rss, err = rssOf(pid); err != nil {
		return 0, 0, err
	}
	disk, err = dirSize(dir)
	return rss, disk, err
}

// rssOf returns the resident set size of process pid in bytes (VmRSS).
func rssOf(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("rss of %d: %w", pid, err)
	}
	defer f.Close()
	return parseVmRSS(f)
}

// parseVmRSS reads the VmRSS line of a /proc/PID/status file.
func parseVmRSS(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "VmRSS:") {
			continue
		}
		f := strings.Fields(line[len("VmRSS:"):])
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("VmRSS line %q: want \"N kB\"", line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmRSS line %q: %w", line, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmRSS line")
}

// dirSize returns the bytes allocated to the files under dir (du -s).
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed while walking (compaction)
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		} else {
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", dir, err)
	}
	return n, nil
}

// proc is a server process started by startProc.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// exited tells whether the process has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// pid returns the process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// startProc starts a server process with its output in logPath.
func startProc(bin string, args, env []string, logPath string) (*proc, error) {
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = lf
	cmd.Stderr = lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); lf.Close(); close(p.done) }()
	return p, nil
}

// stop stops the process: SIGTERM, then SIGKILL after 10 s.
func (p *proc) stop() {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// cpuTime returns the CPU time (user and system) the process has used so
// far, from /proc/PID/stat.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(data)
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat times
// (100 on every Linux architecture Go supports).
const clockTicks = 100

// parseStatCPU reads utime and stime (fields 14 and 15) of a
// /proc/PID/stat line; the command name (field 2) may hold spaces and
// parentheses, so fields are counted after its last ')'.
func parseStatCPU(stat []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat %q: no command name", clip(string(stat), 60))
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("stat %q: %d fields after the name", clip(string(stat), 60), len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// cpuReader is a system whose server process's CPU time can be read.
type cpuReader interface {
	CPUTime() (time.Duration, error)
}

// Quiet-wait bounds: a system is quiet once it used at most quietShare of
// one core over a quietWindow; waitQuiet gives up after quietMax. The
// window is longer than najdi's idle-merge delay (engine.Options.IdleMerge,
// 10 s): a shorter one saw najdi quiet before its idle merge began, and the
// next system's load would have shared the cores with that merge.
const (
	quietWindow = 15 * time.Second
	quietShare  = 0.05
	quietMax    = 20 * time.Minute
)

// waitQuiet waits until s's server stops working in the background after
// its bulk load (merges, flushes, index builds), so that the next system's
// timed load does not share the cores with it: until s used at most
// quietShare of a core over one window, or for at most limit. It returns
// how long it waited; systems whose CPU time cannot be read return at once.
func waitQuiet(ctx context.Context, s System, window, limit time.Duration) (time.Duration, error) {
	cr, ok := s.(cpuReader)
	if !ok {
		return 0, nil
	}
	t0 := time.Now()
	prev, err := cr.CPUTime()
	if err != nil {
		return 0, nil
	}
	for time.Since(t0) < limit {
		select {
		case <-time.After(window):
		case <-ctx.Done():
			return time.Since(t0), ctx.Err()
		}
		cur, err := cr.CPUTime()
		if err != nil {
			return time.Since(t0), nil
		}
		if float64(cur-prev) <= quietShare*float64(window) {
			return time.Since(t0), nil
		}
		prev = cur
	}
	return time.Since(t0), nil
}
