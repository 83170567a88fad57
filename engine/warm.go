package engine

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"time"
)

// warmInterval is how often the merger checks that the segments' vector
// files are in the page cache (warmVectors); a variable for tests.
var warmInterval = 30 * time.Second

// warmVectors asks the operating system to read back into its page cache
// the vectors files it has mostly dropped (vector.Index.WarmFile) and
// returns how many: more than an eighth of a file missing, while the
// machine has at least twice the missing bytes available (MemAvailable),
// so that a machine short of memory is not made to thrash. While files
// keep being dropped, the merger checks half as often each time, down to
// once per 16·warmInterval (8 minutes): under another program's steady
// page-cache churn a 1.5 GB file is read back at most every 8 minutes. A search re-scores its candidates from
// that file; each vector whose page was dropped costs a 4 KiB disk read
// (80 µs against 1 µs cached on a 1M-vector index), and searches alone
// bring the file back a page per miss: a peer run at 1M chunks, after
// another system's 26-minute bulk load had pushed najdi's file out,
// measured vector-only and hybrid searches 1.2 and 3.3 ms slower over
// their first 200 queries than over the next. The check reads no vector
// (mincore, about 14 ms per GB), and the pages read back are not mapped
// into the process: they count in its RSS only once a search reads them.
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
			if missing == 0 || missing*8 < size || missing*2 > avail {
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
// (MemAvailable in /proc/meminfo), 0 where it cannot be read.
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemAvailable:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
