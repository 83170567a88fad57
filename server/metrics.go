package server

import (
	"fmt"
	rtmetrics "runtime/metrics"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/vector"
)

// latencyBuckets are the histogram bounds in seconds.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// metrics collects Prometheus counters and histograms.
type metrics struct {
	mu          sync.Mutex
	requests    map[reqKey]uint64
	latency     map[string]*histogram
	ingestBytes atomic.Uint64
}

type reqKey struct {
	route, method string
	code          int
}

type histogram struct {
	counts []uint64
	sum    float64
	n      uint64
}

func newMetrics() *metrics {
	return &metrics{requests: map[reqKey]uint64{}, latency: map[string]*histogram{}}
}

func (m *metrics) observe(route, method string, code int, d time.Duration) {
	sec := d.Seconds()
	m.mu.Lock()
	m.requests[reqKey{route, method, code}]++
	h := m.latency[route]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets))}
		m.latency[route] = h
	}
	for i, b := range latencyBuckets {
		if sec <= b {
			h.counts[i]++
		}
	}
	h.sum += sec
	h.n++
	m.mu.Unlock()
}

// write renders the metrics in the Prometheus text format.
func (m *metrics) write(ctx *fasthttp.RequestCtx, eng *engine.Engine) {
	var b strings.Builder
	m.mu.Lock()
	keys := make([]reqKey, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, c := keys[i], keys[j]
		if a.route != c.route {
			return a.route < c.route
		}
		if a.method != c.method {
			return a.method < c.method
		}
		return a.code < c.code
	})
	b.WriteString("# HELP najdi_http_requests_total HTTP requests by route, method and status code.\n# TYPE najdi_http_requests_total counter\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "najdi_http_requests_total{route=%q,method=%q,code=\"%d\"} %d\n", k.route, k.method, k.code, m.requests[k])
	}
	routes := make([]string, 0, len(m.latency))
	for r := range m.latency {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	b.WriteString("# HELP najdi_http_request_duration_seconds HTTP request latency by route.\n# TYPE najdi_http_request_duration_seconds histogram\n")
	for _, r := range routes {
		h := m.latency[r]
		for i, ub := range latencyBuckets {
			fmt.Fprintf(&b, "najdi_http_request_duration_seconds_bucket{route=%q,le=\"%g\"} %d\n", r, ub, h.counts[i])
		}
		fmt.Fprintf(&b, "najdi_http_request_duration_seconds_bucket{route=%q,le=\"+Inf\"} %d\n", r, h.n)
		fmt.Fprintf(&b, "najdi_http_request_duration_seconds_sum{route=%q} %g\n", r, h.sum)
		fmt.Fprintf(&b, "najdi_http_request_duration_seconds_count{route=%q} %d\n", r, h.n)
	}
	m.mu.Unlock()
	b.WriteString("# HELP najdi_ingest_bytes_total Bytes of uploaded documents received.\n# TYPE najdi_ingest_bytes_total counter\n")
	fmt.Fprintf(&b, "najdi_ingest_bytes_total %d\n", m.ingestBytes.Load())
	b.WriteString("# HELP najdi_documents Documents stored, by collection.\n# TYPE najdi_documents gauge\n")
	var total int64
	colls := eng.ListCollections(ctx, "", true)
	for _, c := range colls {
		fmt.Fprintf(&b, "najdi_documents{owner=%q,collection=%q} %d\n", c.Owner, c.ID, c.DocumentCount)
		total += c.DocumentCount
	}
	b.WriteString("# HELP najdi_documents_total Documents stored in all collections.\n# TYPE najdi_documents_total gauge\n")
	fmt.Fprintf(&b, "najdi_documents_total %d\n", total)
	b.WriteString("# HELP najdi_collections Collections stored.\n# TYPE najdi_collections gauge\n")
	fmt.Fprintf(&b, "najdi_collections %d\n", len(colls))
	writeMemoryMetrics(&b, eng)
	ctx.Response.Header.SetContentType("text/plain; version=0.0.4")
	ctx.SetBodyString(b.String())
}

// memoryMetrics are the Go runtime's memory figures /metrics reports, by
// metric name.
var memoryMetrics = []struct{ name, runtime, help string }{
	{"najdi_go_heap_live_bytes", "/gc/heap/live:bytes", "Go heap marked live by the last garbage collection."},
	{"najdi_go_heap_objects_bytes", "/memory/classes/heap/objects:bytes", "Go heap objects, live and not yet collected."},
	{"najdi_go_memory_bytes", "/memory/classes/total:bytes", "All memory the Go runtime mapped (heap, stacks, metadata), released pages included."},
	{"najdi_go_memory_released_bytes", "/memory/classes/heap/released:bytes", "Go heap memory returned to the operating system."},
	{"najdi_go_goroutines", "/sched/goroutines:goroutines", "Goroutines."},
}

// writeMemoryMetrics renders the process's memory: the Go runtime's
// figures, the vector indexes' codes and the store's memory outside the Go
// heap (block cache and memtables), so that growth under load can be told
// apart: live heap (data or a leak), garbage, indexes, or the store.
func writeMemoryMetrics(b *strings.Builder, eng *engine.Engine) {
	ms := make([]rtmetrics.Sample, len(memoryMetrics))
	for i, m := range memoryMetrics {
		ms[i].Name = m.runtime
	}
	rtmetrics.Read(ms)
	for i, m := range memoryMetrics {
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", m.name, m.help, m.name, m.name, ms[i].Value.Uint64())
	}
	fmt.Fprintf(b, "# HELP najdi_vector_offheap_bytes Vector index codes held outside the Go heap (and a merge's vectors until they are saved).\n# TYPE najdi_vector_offheap_bytes gauge\nnajdi_vector_offheap_bytes %d\n", vector.OffHeapBytes())
	if st := eng.Store(); st != nil {
		cache, mem := st.MemoryUsage()
		fmt.Fprintf(b, "# HELP najdi_store_cache_bytes The store's block cache (outside the Go heap).\n# TYPE najdi_store_cache_bytes gauge\nnajdi_store_cache_bytes %d\n", cache)
		fmt.Fprintf(b, "# HELP najdi_store_memtable_bytes The store's memtables (outside the Go heap).\n# TYPE najdi_store_memtable_bytes gauge\nnajdi_store_memtable_bytes %d\n", mem)
	}
}
