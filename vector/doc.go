// Package vector is najdi's per-segment vector index: an inverted-file
// (IVF) index over int8-quantized vectors, scored with SIMD kernels chosen
// at start-up, with exact float32 re-ranking, filtered search over roaring
// bitmaps, merge and a versioned, checksummed encoding.
//
// # Motivation
//
// Every segment holds the embeddings of its chunks (384 float32 values,
// 1.5 KB each, for bge-small-en-v1.5). Scoring all of them per query is
// exact but costs a full pass over n·1.5 KB; at 100k chunks that is 150 MB
// read per query. Graph indexes (HNSW) answer faster at scale but are
// pointer-heavy, slow to build and awkward to merge and filter. Segments are
// immutable and rebuilt on merge, so a flat, dense IVF fits better: k-means
// coarse lists, each list a contiguous block of int8 codes (a quarter of the
// float32 bytes) scanned by a SIMD kernel, and the few best candidates
// re-scored with their float32 vectors, which the index keeps (in a
// memory-mapped file once saved, see Memory) for Vector and for merging.
//
// # Internals
//
// Build. Ids are dense chunk numbers 0..n-1; vectors are stored by id.
// Below Options.BruteForceBelow vectors (4096 by default) the index stays
// exact: no IVF, every search scores every (allowed) vector with float32.
// Above, spherical k-means trains NList = round(2·√n) unit centroids (at
// most n/16) on a sample of 64 vectors per list: k-means++ seeding (D²
// sampling with distance 1 − cos) and 10 Lloyd iterations, assignment on
// all cores. With more than 8 centroids a vector is scored against all of
// them with the int8 kernel (centroids quantized per dimension like the
// vectors, the vector like a query), and the 8 best are re-scored with
// vek's float32 dot product to pick the nearest (the spill list below is
// chosen the same way, among the 8 of least approximate cost): k int8
// scores and at most 16 float32 dot products per vector instead of k
// float32 ones. Every vector then joins the
// list of its nearest centroid c and, unless Options.NoSpill, a second
// "spill" list chosen as in SOAR (Sun et al., "SOAR: improved indexing for
// approximate nearest neighbor search", NeurIPS 2023): the centroid c'
// minimizing ‖x−c'‖² + λ·((x−c)·(x−c'))²/‖x−c‖², λ = 1, i.e. close to x
// with a residual orthogonal to the primary one. A query that misses x's
// primary list is one whose direction runs along x's primary residual; the
// orthogonal spill residual serves exactly those queries. Within a list,
// ids ascend. Spilling stores a second int8 code per vector (+25% of the
// float32 bytes) and doubles the codes scanned per probed list, and pays
// for both: on real SciFact query/sentence embeddings recall@10 at a given
// number of scanned codes rises markedly (see Numbers).
//
// Quantization is per dimension: with lo[d] and hi[d] the extremes of
// dimension d over the segment, a value is coded as
// c = round((v − lo)/scale) − 127 in −127..127, scale = (hi − lo)/254, so
// v ≈ lo + scale·(c + 127). For a query q, q·v = const(q) + Σ q[d]·scale[d]·c[d],
// so the query is turned once into int8 weights (q[d]·scale[d] rescaled to
// −127..127) and vectors are ranked by the integer dot product of weights
// and codes. Per-dimension scales matter: embedding dimensions have very
// different ranges, and one global scale would waste most codes.
//
// Search. The nprobe lists whose centroids have the largest dot product
// with q are scanned with the int8 kernel; the best max(Rerank, 4k) allowed
// candidates (64 by default; kept in a buffer cut by quickselect whenever it
// doubles, the cut's least key becoming the threshold a code must reach) are
// re-scored exactly with float32 vectors (a spilled vector once) and the
// best k returned, score descending, ties by ascending id. The default
// nprobe is max(16, NList/16) for k ≤ 100 and grows by half per tripling of
// k beyond (DefaultProbes: ×1.5 at k 300, the per-segment k of a hybrid
// search over documents of three chunks or more; one-chunk documents ask
// for 100: engine.semanticK), since the k-th neighbour lies in lists ranked lower. A filter (allowed ids as a roaring bitmap:
// chunks of matching, non-deleted documents) is applied while scanning
// (pre-filtering: only allowed ids compete for candidate slots) and nprobe
// grows as it would for k·n/|allowed| results (by half per tripling of
// n/|allowed|: ×1.73 at 20 %, ×2.36 at 5 %), since the k nearest allowed
// vectors of a filter spread over the index are about the k·n/|allowed|
// nearest of all (it was scaled by n/|allowed|, ×5 at 20 %, which sent a
// filtered hybrid search on 1M vectors to the exact path); when the
// allowed set is smaller than BruteForceBelow, or when scoring it in
// float32 reads fewer bytes than the (scaled) probed lists' codes, the
// search is exact over the allowed ids instead (on 105k vectors with the
// defaults and k ≤ 100, below about 7 % of the index; 17 % with the
// former scaling). Scratch buffers come from a per-index sync.Pool: a search
// with a reused dst allocates nothing (TestSearchAllocs).
//
// Indexes of at least 500,000 vectors (nibbleFrom) keep a 4-bit code of
// every list position, (c+127)>>4 of its int8 code, derived in memory at
// build or open (the on-disk format is unchanged), and each id's int8
// code once, by id, instead of at every list position (384 + 384 MB at
// 1M vectors instead of 768 MB of int8 codes and 384 MB of 4-bit ones).
// Their search runs three passes: the 4-bit scan of the probed lists keeps
// the best max(1024, 4m) positions (8m for k > KScaleFrom), which are
// re-scored with their ids' int8 codes, and the best m of those in
// float32. At 1M the scan is bound by memory bandwidth, so reading half
// the bytes pays (k 10: 6.4 → 4.2 ms, recall@10 0.9915 → 0.9910 on static
// vectors); at 100k the lists are partly in cache and the shortlist's
// scattered int8 reads eat the saving, so smaller indexes keep the int8
// scan (bench/README.md, "Vector index"). Searches for more than
// KScaleFrom results took the int8 scan at any size before the int8
// codes were stored once; with the 4-bit pass and the doubled shortlist
// they are as fast as it was (1M static vectors, k 300: 6.6–7.0 against
// 6.7–7.8 ms) at recall@300 0.980 instead of 0.986 (bench/README.md,
// "int8 codes once per vector").
//
// Merge gathers the surviving float32 vectors under their new ids. When
// one part with an IVF holds at least half of the survivors, was built
// with the same spilling, and its number of lists is within 1.5× of the
// merged index's (round(2·√m) by default, or Options.NList exactly), its
// centroids are kept: its survivors stay in the lists they were in (spill
// lists too) and only the other parts' survivors are assigned, as a build
// assigns; the index records that part's NList and the NProbe derived
// from it. Otherwise k-means is retrained on the survivors, exactly as
// Build. Either way the quantization range and the codes are recomputed
// from the survivors (no reused range, so no code clamps), and deleted
// vectors disappear. The engine's tiered merges fold a few flushes of
// 2,000 vectors into a large segment, over and over: retraining made each
// of them cost a full build (k-means and assignment were 95 % of it), so a
// bulk load's merge time grew with the square of its size. Since default
// NList grows as √n, lists are retrained once the index has grown about
// 2.25-fold; in between, lists are up to 1.5× longer than a fresh build's
// but NProbe = NList/16 scans the same share of the vectors. On 250k
// static vectors, merging 10k new ones into a 240k index takes 0.8 s
// instead of 15 s; recall@10 at the default nprobe 0.954 against 0.9585
// for the retrained index (bench/README.md, "Merge cost at scale").
//
// # Kernels
//
// The int8 dot product has a pure-Go reference and three amd64 assembly
// kernels, one picked at package initialization from golang.org/x/sys/cpu
// (Kernel reports which): AVX2 (VPMOVSXBW to words, VPMADDWD), AVX-512BW
// (the same on ZMM registers, masked tail loads) and AVX-512 VNNI
// (VPDPBUSD, 64 bytes per instruction; it multiplies unsigned by signed
// bytes, so codes are flipped to c+128 with XOR 0x80 and 128·Σq is
// subtracted). Parity tests compare every kernel this CPU can run with the
// reference at every length 0..70 and around 128, 256 and 384, with random
// and extreme (−128, 127) values. Binary (sign) codes have a Hamming kernel
// on bits.OnesCount64 (POPCNT) for 1-bit experiments; float32 uses vek.
// The 4-bit codes (two per byte, packNibbles) have a VNNI kernel
// (VPDPBUSD), an AVX2 one (VPMADDUBSW, VPMADDWD; the AVX-512BW tier uses
// it) and a Go reference, checked against each other by TestNibbleParity.
//
// # Memory
//
// A segment's index keeps in memory only what every search scans: the
// centroids, the list ids (4 bytes per list position) and the codes. Below
// nibbleFrom those are the int8 codes of the list positions (dims bytes
// each; a spilled vector has two positions and its code is held at both,
// so that a probed list is one contiguous block for the kernel). Storing
// each code once by id and gathering a list's rows during the scan was
// tried: on 100k static vectors every gathered row missed the cache and
// vector-only p50 went from 1.1 to 4.2 ms (`najdi-bench growth -phase
// measure`, load ≈ 18), so the codes are stored once by id on disk
// (format 4) and expanded to the positions when a segment opens (a copy,
// no quantization). From nibbleFrom on the lists are scanned with 4-bit
// codes by position, and the int8 codes, read only for the scan's
// scattered shortlist, stay by id. Codes of 1 MiB or more (offHeapFrom)
// live in an anonymous memory mapping outside the Go heap, with
// transparent huge pages asked for (MADV_HUGEPAGE: fewer TLB misses in
// scans and scattered reads), released by a cleanup once the index is
// unreachable: they are as long-lived as the index, and on the heap they
// would raise the collector's target by their own size (GOGC), so a 1M
// index's 1.15 GB of codes let the heap grow to 2.3 GB more than the rest
// of the engine needs. A merge gathers its survivors' float32 vectors in
// such a mapping too, given back as soon as SaveVectors has written them
// to the vectors file. The float32 vectors (4·dims bytes each) are read only to re-score the few best int8
// candidates, to score small or selectively filtered indexes exactly and
// to merge: after SaveVectors (a segment's flush and merge) or Open (a
// segment's load) they live in the segment's vectors file, memory-mapped
// read-only with MADV_RANDOM (vecfile.go), so they take page cache, which
// the kernel may reclaim and re-read, not heap. Touched pages of the
// mapping count in the process's RSS as file-backed pages (RssFile), not
// as anonymous memory; the mapping is released by a cleanup once the index
// is unreachable (a merged-away segment still searched keeps it). Without
// read-ahead, a re-scored vector whose page the kernel dropped costs a
// 4 KiB disk read (87–96 µs against under 0.5 µs cached;
// BenchmarkRescoreFile), and
// searches alone bring a dropped file back one page per miss;
// FileResidency tells how much of the file is cached (mincore) and
// WarmFile has the rest read back at the disk's sequential speed
// (MADV_WILLNEED), without mapping it: engine's merger does so every 30 s
// for files mostly dropped (1.4 GB back in 0.85 s here). A
// mapping rather than reading candidates from Pebble: a re-scored vector
// is one 1.5 KB read at an address known from its id, where the store
// would look a 1 MiB chunk up, check and copy it; and a pread per
// candidate would cost a system call each for the ~1,200 candidates per
// segment a hybrid search re-scores.
//
// # Format
//
// A segment's vector part is format 4 (AppendIndex, read by Open with the
// vectors file; docs/format/vector-index.md), or for a segment with few
// vectors format 3 (AppendBinary, below; segment.Store.InlineVectors): one
// envelope
// (internal/envelope, magic "NJVX", version 4) around (uvarints unless
// noted, floats little-endian):
//
//	dims | n | nlist | nprobe | rerank | bruteForceBelow | flags | seed (varint)
//	vectors CRC  CRC-32C of the vectors file, 4 bytes little endian
//	if nlist > 0:
//	  centroids  nlist·dims float32
//	  lo, scale  dims float32 each
//	  list sizes nlist uvarints
//	  list ids   per list, ascending ids as deltas (the first from 0)
//	  codes      n·dims int8, by id
//
// The vectors file holds the n·dims float32 values by id, little endian,
// nothing else; Open checks its size and checksum (reading it, not through
// the mapping) before mapping it, and copies each code to its list
// positions, so opening quantizes nothing.
//
// AppendBinary writes the self-contained format 3 (version 3 envelope):
// the same header without the vectors CRC, then the vectors (n·dims
// float32, by id) and the lists without codes; Decode reads it into the
// heap and recomputes the codes from the vectors, lo and scale (tens of
// milliseconds for 100k vectors). The formats before the envelope still
// decode: version 2 (a uvarint 2, the same body, a crc32 IEEE of both) and
// version 1, the flat float32 format of the first exact index (dims, float
// count, floats, crc32), re-indexed with default options. A segment whose
// part is of format 1–3 is moved to format 4 when it loads, unless its
// vectors are small enough to stay inline (format 3).
//
// # Numbers
//
// 2-core AMD EPYC with AVX-512 VNNI (shared with other jobs, so rates are
// noisy), Go 1.26. Real vectors: 105,000 bge-small-en-v1.5 passage
// embeddings of SciFact titles, sentences, clauses and sentence pairs, and
// the 1,109 SciFact queries embedded as queries (`najdi-bench vector
// -embed`, then `najdi-bench vector`). Build 9.5 s (NList 648, 2 cores),
// encoded 163 MB, decode 0.4 s. Recall@10 against exact float64 search and
// single-thread median latency:
//
//	nprobe        16     24     32     40 (default)  64     96
//	spill         0.941  0.963  0.974  0.981         0.992  0.997
//	  p50 ms      0.12   0.19   0.20   0.30          0.34   0.51
//	no spill      0.857  -      0.915  -             0.959  0.977
//	  p50 ms      0.09   -      0.13   -             0.20   0.28
//
// Filtered at the default nprobe: 50% allowed 0.994 (IVF, nprobe 80),
// 25% 0.999, 10% and 2% 1.000 (exact over the allowed set; 1.4 ms and
// 0.08 ms). Exact float32 search of all 105k vectors takes about 5 ms.
//
// At 1M vectors (`najdi-bench vecscale`, bench/peers/vecscale.md; AVX2,
// load 30–47 on the 2 cores): on 999,800 static vectors of real text (the
// mean bge-small input-token embedding of two random SciFact sentences; the
// hard case: a chunk's neighbours share one sentence and scatter over the
// lists of the other), 200 held-out rows as queries, NList 2000, default
// nprobe 125: recall@10 0.9915 and 11.3× faster than exact single-thread
// float32 search (interleaved query by query); recall@300 0.957 at the
// scaled default (188), measured with a re-scoring pool of 2k, which capped
// recall@300 as nprobe grew (0.964 at 200, 0.960 at 320), hence 4k.
//
// Kernels (go test -bench 'Pair|Scan|Memory', 384 dims): one int8 pair
// takes 12–15 ns with the assembly kernels (generic Go: 450 ns), a float32
// pair 30 ns (vek), a 384-bit Hamming pair 3 ns. Scanning 100k codes
// (38 MB) takes 0.95 ms with VNNI (≈ 40 GB/s, helped by the large L3),
// 1.15 ms with AVX2 or AVX-512BW, against 5 ms for the same vectors in
// float32 (154 MB at ≈ 30 GB/s) and this machine's streaming read rate of
// ≈ 29 GB/s (BenchmarkMemoryBandwidth): the int8 scan reads a quarter of
// the bytes at the memory limit, so it is 5× faster per vector than float32.
package vector
