package engine

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// warmInterval is how often the merger checks that the segments' vector
// files are in the page cache (warmVectors); a variable for tests.
var warmInterval = 30 * time.Second

// warmMissing: a vectors file is read back once 1/warmMissing of it is
// missing from the page cache. In a 1M peer run with files read back only
// when an eighth was missing, vector-only searches were still 0.9 ms
// slower over their first 200 queries than over the next: up to an eighth
// missing can cost that much (a disk read for one re-scored vector in
// eight, 132 re-scored per search, about 90 µs each). 1/64 of a 1.5 GB
// file is 24 MB; reading back pages still cached costs no disk read.
const warmMissing = 64

// warmVectors asks the operating system to read back into its page cache
// the vectors files it has partly dropped (vector.Index.WarmFile) and
// returns how many: at least 1/warmMissing of a file missing, while the
// machine (or the process's memory cgroup) has at least twice the missing
// bytes available (memAvailable), so that a machine short of memory is not
// made to thrash. While files keep being dropped, the merger checks half
// as often each time, down to once per 16·warmInterval (8 minutes): under
// another program's steady page-cache churn a 1.5 GB file is read back at
// most every 8 minutes.
//
// A search re-scores its candidates from that file; each vector whose
// page was dropped costs a 4 KiB disk read (87–96 µs against under 0.5 µs
// cached; vector.BenchmarkRescoreFile), and searches alone bring the
// file back a page per miss. In a peer run at 1M chunks, where this
// machine's kernel dropped 0.3–0.5 GB of najdi's 1.5 GB file within
// minutes of writing it, vector-only and hybrid searches were 1.2 and
// 3.3 ms slower over their first 200 queries than over the next 200. The
// check reads no vector (mincore, about 14 ms per GB); the pages read back
// are not mapped into the process, so they count in its RSS only once
// searches read them (and then, with the kernel's fault-around, 16 pages
// at a time).
func (e *Engine) warmVectors(colls []*collection) (warmed int) {
	avail := memAvailable()
	for _, c := range colls {
		for _, s := range c.snapshot() {
			if e.closed() {
				return warmed
			}
			if s.Vectors == nil {
				continue
			}
			res, size := s.Vectors.FileResidency()
			missing := size - res
			if missing == 0 || missing*warmMissing < size || missing*2 > avail {
				continue
			}
			e.log.Info("reading a vectors file back into the page cache", "collection", c.id, "segment", s.ID, "missing_bytes", missing, "bytes", size)
			s.Vectors.WarmFile()
			avail -= missing
			warmed++
			e.vecWarms.Add(1)
		}
	}
	return warmed
}

// memAvailable returns the memory the system can give without swapping
// (MemAvailable in /proc/meminfo), or less where the process's memory
// cgroup (v2 or v1) caps it: the cgroup's limit minus its working set
// (usage less its inactive page cache, as container runtimes count it).
// 0 where neither can be read.
func memAvailable() int64 {
	return memAvailableAt("/proc/meminfo", "/proc/self/cgroup", "/sys/fs/cgroup")
}

// memAvailableAt is memAvailable reading meminfo, the process's cgroup
// list (procCgroup) and the cgroup file system mounted at cgroup (tests
// give their own). A cgroup v2 process's group is the path on the
// "0::" line of its list, under the mount (a container usually sees its
// own group at the mount itself).
func memAvailableAt(meminfo, procCgroup, cgroup string) int64 {
	avail := statValue(meminfo, "MemAvailable:") << 10
	if b, err := os.ReadFile(procCgroup); err == nil {
		for line := range strings.Lines(string(b)) {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok && rest != "/" {
				if _, err := os.Stat(filepath.Join(cgroup, rest, "memory.max")); err == nil {
					cgroup = filepath.Join(cgroup, rest)
				}
			}
		}
	}
	for _, v := range []struct{ limit, usage, stat, inactive string }{
		{"memory.max", "memory.current", "memory.stat", "inactive_file"},
		{"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes", "memory/memory.stat", "total_inactive_file"},
	} {
		b, err := os.ReadFile(filepath.Join(cgroup, v.limit))
		if err != nil {
			continue
		}
		limit, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
		if err != nil || limit <= 0 || limit >= 1<<60 { // "max", or v1's unlimited
			break
		}
		b, err = os.ReadFile(filepath.Join(cgroup, v.usage))
		if err != nil {
			break
		}
		usage, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
		if err != nil {
			break
		}
		working := max(0, usage-statValue(filepath.Join(cgroup, v.stat), v.inactive))
		avail = min(avail, max(0, limit-working))
		break
	}
	return avail
}

// statValue returns the number after key on its line of the file at path
// (a "key value" file such as /proc/meminfo or memory.stat), 0 if absent.
func statValue(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == key {
			v, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				return 0
			}
			return v
		}
	}
	return 0
}
