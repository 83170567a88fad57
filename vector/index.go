package vector

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// Errors of package vector.
var (
	// ErrCorrupt reports index data that cannot be decoded.
	ErrCorrupt = errors.New("vector: corrupt index")
	// ErrInvalidOptions reports Options with out-of-range values.
	ErrInvalidOptions = errors.New("vector: invalid options")
	// ErrInvalidInput reports vectors or ids a Builder or Merge cannot
	// index: duplicate or out-of-range ids, mismatched dimensions.
	ErrInvalidInput = errors.New("vector: invalid input")
)

// Defaults of Options.
const (
	// DefaultBruteForceBelow is the index size (and allowed-set size) under
	// which search is exact brute force over float32 vectors.
	DefaultBruteForceBelow = 4096
	// DefaultRerank is the least number of int8-scored candidates re-scored
	// with float32 vectors.
	DefaultRerank = 64
	// DefaultProbeDivisor sets the default NProbe to NList/DefaultProbeDivisor
	// (at least DefaultMinProbe): on 105k real 384-d bge-small SciFact
	// vectors (NList 648, NProbe 40) it gives recall@10 0.98 against exact
	// search for real queries (see doc.go).
	DefaultProbeDivisor = 16
	// KScaleFrom is the k beyond which a search with the default nprobe
	// scans more lists (DefaultProbes).
	KScaleFrom = 100
	// DefaultMinProbe is the least default NProbe: small indexes have few
	// lists, and need a larger share of them probed.
	DefaultMinProbe = 16
	// kmeansIters is the number of Lloyd iterations of training.
	kmeansIters = 10
	// kmeansSamplePerList caps the training sample at this many vectors per
	// list.
	kmeansSamplePerList = 64
)

// Options tune index building and search. Zero fields take the documented
// defaults; Build and Merge record the resolved values in the index.
type Options struct {
	// NList is the number of IVF lists (k-means centroids); 0 means
	// round(2·√n), at most n/16 and at least 1.
	NList int
	// NProbe is the number of lists scanned per query when Search is given
	// nprobe 0; 0 means max(DefaultMinProbe, NList/DefaultProbeDivisor),
	// at most NList.
	NProbe int
	// Rerank is the least number of candidates, ranked by their int8
	// codes, that are re-scored exactly with float32 vectors; Search
	// re-scores max(Rerank, 4k). 0 means DefaultRerank.
	Rerank int
	// Seed seeds k-means (sampling and k-means++ initialization); builds
	// with the same vectors and Seed are identical.
	Seed int64
	// NoSpill turns off spilling: by default each vector also joins a
	// second list (chosen SOAR-style, see doc.go), which costs one more
	// int8 code per vector and lifts recall at a given nprobe.
	NoSpill bool
	// BruteForceBelow is the size under which an index keeps no IVF and
	// searches exactly, and the allowed-set size under which a filtered
	// search is exact; 0 means DefaultBruteForceBelow.
	BruteForceBelow int
}

// Validate reports whether o is usable.
func (o Options) Validate() error {
	if o.NList < 0 || o.NProbe < 0 || o.Rerank < 0 || o.BruteForceBelow < 0 {
		return fmt.Errorf("nlist %d, nprobe %d, rerank %d, brute force below %d: %w",
			o.NList, o.NProbe, o.Rerank, o.BruteForceBelow, ErrInvalidOptions)
	}
	return nil
}

// Builder accumulates the vectors of one segment. It is not safe for
// concurrent use.
type Builder struct {
	dims int
	ids  []uint32
	vecs []float32
}

// NewBuilder returns a builder of dims-dimensional vectors.
func NewBuilder(dims int) *Builder { return &Builder{dims: dims} }

// Add adds vector v (copied) under id. Ids must end up dense: the n added
// ids are 0..n-1 in any order. Vectors should be L2-normalized: scores are
// dot products, which are then cosines. Add panics if len(v) is not the
// builder's dims (a programming error).
func (b *Builder) Add(id uint32, v []float32) {
	if len(v) != b.dims {
		panic(fmt.Sprintf("BUG: vector of %d dims added to a %d-dim builder", len(v), b.dims))
	}
	b.ids = append(b.ids, id)
	b.vecs = append(b.vecs, v...)
}

// Len returns the number of vectors added.
func (b *Builder) Len() int { return len(b.ids) }

// Build returns the immutable index of the added vectors: exact (no IVF)
// below opts.BruteForceBelow vectors, otherwise trained with spherical
// k-means and quantized to int8 codes. The index copies the vectors; the
// builder may be dropped afterwards.
func (b *Builder) Build(opts Options) (*Index, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n := len(b.ids)
	if n > 0 && b.dims <= 0 {
		return nil, fmt.Errorf("dims %d: %w", b.dims, ErrInvalidInput)
	}
	vecs := make([]float32, len(b.vecs))
	seen := make([]bool, n)
	for i, id := range b.ids {
		if int64(id) >= int64(n) || seen[id] {
			return nil, fmt.Errorf("id %d of %d vectors (ids must be 0..n-1, each once): %w", id, n, ErrInvalidInput)
		}
		seen[id] = true
		copy(vecs[int(id)*b.dims:], b.vecs[i*b.dims:(i+1)*b.dims])
	}
	return build(b.dims, vecs, opts), nil
}

// Index is an immutable vector index over ids 0..Len()-1. It is safe for
// concurrent use.
type Index struct {
	dims int
	n    int
	// vecs holds the float32 vectors by id (n × dims): on the Go heap
	// after Build, Merge or Decode, or a read-only memory mapping of the
	// vectors file after SaveVectors or Open (vecfile.go), released by a
	// cleanup when the index becomes unreachable.
	vecs []float32
	// file is the mapping behind vecs, nil when vecs is on the heap.
	file *mapping
	// vecMem is the anonymous mapping behind vecs of a merged index until
	// SaveVectors (allocVectors), else nil.
	vecMem *mapping
	// vecsCRC is the CRC-32C of the vectors file, set (vecsCRCSet) once
	// the vectors are in one (SaveVectors, Open).
	vecsCRC    uint32
	vecsCRCSet bool
	opts       Options // resolved: every field set

	// IVF, when nlist > 0.
	nlist     int
	centroids []float32 // nlist × dims, unit length
	lo, scale []float32 // per-dimension quantization: x ≈ lo + scale·(c+127)
	listStart []uint32  // list l holds positions listStart[l]..listStart[l+1]-1
	listIDs   []uint32  // id at each position; an id is in one or two lists
	codes     []int8    // int8 code of each list position, or of each id (n × dims) when nib is set (layout)
	nib       []uint8   // 4-bit code of each list position (a spilled id's twice), nibBytes each; nil below nibbleFrom
	codeMem   *mapping  // the mapping behind codes and nib when they are off the heap (allocCodes)
	nibBytes  int       // bytes of a 4-bit code: nibbleDims(dims)/2
	maxList   int       // longest list

	scratch sync.Pool // *scratch
}

// Result is one search hit: a vector id and its dot product with the
// query (the cosine for normalized vectors).
type Result struct {
	ID    uint32
	Score float32
}

// Len returns the number of vectors.
func (x *Index) Len() int { return x.n }

// Dims returns the dimensionality.
func (x *Index) Dims() int { return x.dims }

// NList returns the number of IVF lists; 0 for an exact index.
func (x *Index) NList() int { return x.nlist }

// Options returns the options the index was built with, defaults resolved.
func (x *Index) Options() Options { return x.opts }

// Vector returns the float32 vector of id, which must be below Len. The
// slice aliases the index (possibly its memory-mapped vectors file):
// callers must not modify it, and must keep the index reachable while they
// use it (runtime.KeepAlive), since the mapping is released when the index
// is collected. Dot needs neither.
func (x *Index) Vector(id uint32) []float32 {
	return x.vecs[int(id)*x.dims : int(id+1)*x.dims : int(id+1)*x.dims]
}

// Dot returns the dot product of q (of Dims values) with the vector of id,
// which must be below Len.
func (x *Index) Dot(q []float32, id uint32) float32 {
	s := DotFloat32(q, x.vecs[int(id)*x.dims:int(id+1)*x.dims])
	runtime.KeepAlive(x)
	return s
}

// resolve fills the zero fields of o for an index of n vectors.
func resolve(o Options, n int) Options {
	if o.BruteForceBelow == 0 {
		o.BruteForceBelow = DefaultBruteForceBelow
	}
	if o.Rerank == 0 {
		o.Rerank = DefaultRerank
	}
	if n < o.BruteForceBelow {
		o.NList, o.NProbe = 0, 0
		return o
	}
	if o.NList == 0 {
		o.NList = int(math.Round(2 * math.Sqrt(float64(n))))
		o.NList = min(o.NList, n/16)
	}
	o.NList = max(1, min(o.NList, n))
	if o.NProbe == 0 {
		o.NProbe = max(DefaultMinProbe, o.NList/DefaultProbeDivisor)
	}
	o.NProbe = min(o.NProbe, o.NList)
	return o
}

// build indexes vecs (n × dims, by id), which it keeps.
func build(dims int, vecs []float32, opts Options) *Index {
	n := 0
	if dims > 0 {
		n = len(vecs) / dims
	}
	x := &Index{dims: dims, n: n, vecs: vecs, opts: resolve(opts, n)}
	if x.opts.NList == 0 {
		return x
	}
	x.nlist = x.opts.NList
	x.centroids = trainKMeans(vecs, dims, x.nlist, x.opts.Seed)
	first, second := assignLists(vecs, dims, x.centroids, !x.opts.NoSpill)
	x.lo, x.scale = quantParams(vecs, dims)
	x.fillLists(first, second)
	return x
}

// fillLists groups ids by list (ascending ids within a list; second, when
// not nil, holds each vector's spill list) and encodes their codes.
func (x *Index) fillLists(first, second []uint32) {
	x.listStart = make([]uint32, x.nlist+1)
	for id, l := range first {
		x.listStart[l+1]++
		if second != nil && second[id] != l {
			x.listStart[second[id]+1]++
		}
	}
	for l := 0; l < x.nlist; l++ {
		x.maxList = max(x.maxList, int(x.listStart[l+1]))
		x.listStart[l+1] += x.listStart[l]
	}
	m := int(x.listStart[x.nlist])
	x.listIDs = make([]uint32, m)
	next := slices.Clone(x.listStart[:x.nlist])
	for id, l := range first {
		x.listIDs[next[l]] = uint32(id)
		next[l]++
		if second != nil && second[id] != l {
			x.listIDs[next[second[id]]] = uint32(id)
			next[second[id]]++
		}
	}
	x.encodeLists()
}

// nibbleFrom is the index size from which searches take a 4-bit first
// pass (ivf): below it the int8 scan of the probed lists costs about as
// much as the 4-bit scan plus the shortlist's int8 re-scoring (100k static
// vectors: equal at k 10), at 1M the 4-bit pass is 39 % faster at k 10
// (bench/README.md, "Vector index"). Such indexes keep their int8 codes
// by id, for the shortlist only (layout), so they take the 4-bit pass at
// any k.
var nibbleFrom = 500_000

// encodeLists computes the int8 code of every id, then lays the codes out
// for search (layout). An index with 4-bit codes keeps the int8 codes by
// id, so they are computed in place.
func (x *Index) encodeLists() {
	nibbles := x.n >= nibbleFrom
	var byID []int8
	if nibbles {
		x.allocNibbleLayout()
		byID = x.codes
	} else {
		byID = make([]int8, x.n*x.dims)
	}
	d := x.dims
	parallelFor(x.n, func(lo, hi int) {
		for id := lo; id < hi; id++ {
			quantize(byID[id*d:(id+1)*d], x.vecs[id*d:(id+1)*d], x.lo, x.scale)
		}
	})
	runtime.KeepAlive(x)
	if nibbles {
		x.packLists()
	} else {
		x.layout(byID, false)
	}
}

// layout sets the codes searches scan from the int8 codes by id.
//
// Without nibbles (indexes smaller than nibbleFrom) x.codes holds the
// int8 code of every list position, so that a probed list is one
// contiguous block of codes the kernel streams through, a spilled
// vector's code kept at both its positions: stored once by id and
// gathered during the scan, the codes cost every scanned row a cache miss
// (100k static vectors: vector-only p50 1.1 → 4.2 ms, see doc.go, Memory).
//
// With nibbles (large indexes) the lists are scanned with 4-bit codes,
// x.nib holding the code of every list position (packNibbles, nibBytes
// each: 192 for 384 dims), and the int8 codes only re-score the scan's
// shortlist, whose positions are scattered anyway: x.codes then holds
// each id's int8 code once (n × dims, half the bytes of a spilled
// layout: 384 MB less at 1M vectors).
//
// Either way the codes live outside the Go heap once they are large
// (allocCodes): they are as long-lived as the index, so on the heap the
// collector's default target (GOGC) would let the heap grow by as much
// again before collecting.
func (x *Index) layout(byID []int8, nibbles bool) {
	d := x.dims
	x.nib, x.nibBytes = nil, 0
	npos := len(x.listIDs)
	if !nibbles {
		x.codes = asInt8(x.allocCodes(npos * d))
		for p, id := range x.listIDs {
			copy(x.codes[p*d:(p+1)*d], byID[int(id)*d:int(id+1)*d])
		}
		return
	}
	x.allocNibbleLayout()
	copy(x.codes, byID)
	x.packLists()
}

// allocNibbleLayout allocates, in one block, the int8 codes by id
// (x.codes) and the 4-bit codes of the list positions (x.nib) of an index
// with 4-bit codes.
func (x *Index) allocNibbleLayout() {
	x.nibBytes = nibbleDims(x.dims) / 2
	nc := x.n * x.dims
	mem := x.allocCodes(nc + len(x.listIDs)*x.nibBytes)
	x.codes = asInt8(mem[:nc:nc])
	x.nib = mem[nc:]
}

// packLists sets the 4-bit code of every list position from its id's int8
// code.
func (x *Index) packLists() {
	d, nb := x.dims, x.nibBytes
	parallelFor(len(x.listIDs), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			id := int(x.listIDs[p])
			packNibbles(x.nib[p*nb:(p+1)*nb], x.codes[id*d:(id+1)*d])
		}
	})
}

// asInt8 views b as int8 values.
func asInt8(b []byte) []int8 {
	if len(b) == 0 {
		return []int8{}
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}

// codesByID returns the int8 code of every id, n × dims, as format 4
// stores them; for an index with 4-bit codes it aliases x.codes.
func (x *Index) codesByID() []int8 {
	if x.nib != nil {
		return x.codes
	}
	out := make([]int8, x.n*x.dims)
	d := x.dims
	for p, id := range x.listIDs {
		copy(out[int(id)*d:int(id+1)*d], x.codes[p*d:(p+1)*d])
	}
	return out
}

// expandCodes lays out the codes of an opened index from its int8 codes
// by id (copied: byID aliases the decoded data).
func (x *Index) expandCodes(byID []int8) {
	x.layout(byID, x.n >= nibbleFrom)
}

// Merge builds one index from the survivors of parts: remap[p][old] is the
// new id of vector old of part p, or -1 if it was deleted. New ids must be
// dense (0..m-1, each once). When one part with an IVF holds most of the
// survivors and its number of lists is close to the merged index's
// (mergeBase), its centroids and list assignments are kept and only the
// other parts' vectors are assigned to them; otherwise the IVF is
// retrained on the survivors (see doc.go, Merge). Either way the
// quantization parameters and codes are computed afresh from the
// survivors.
func Merge(parts []*Index, remap [][]int32, opts Options) (*Index, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(parts) == 0 || len(parts) != len(remap) {
		return nil, fmt.Errorf("merge %d parts with %d remaps: %w", len(parts), len(remap), ErrInvalidInput)
	}
	dims := parts[0].dims
	m := 0
	live := make([]int, len(parts))
	for p, x := range parts {
		if x.dims != dims || len(remap[p]) != x.n {
			return nil, fmt.Errorf("merge part %d: %d dims (want %d), %d ids for %d vectors: %w",
				p, x.dims, dims, len(remap[p]), x.n, ErrInvalidInput)
		}
		for _, nw := range remap[p] {
			if nw >= 0 {
				live[p]++
			}
		}
		m += live[p]
	}
	if m > 0 && dims <= 0 {
		return nil, fmt.Errorf("dims %d: %w", dims, ErrInvalidInput)
	}
	// The survivors' vectors are gathered outside the Go heap when large
	// (the merged index holds them until SaveVectors maps its file).
	vecs, mem := allocVectors(m * dims)
	seen := make([]bool, m)
	for p, x := range parts {
		for old, nw := range remap[p] {
			if nw < 0 {
				continue
			}
			if int64(nw) >= int64(m) || seen[nw] {
				mem.unmap()
				return nil, fmt.Errorf("id %d of %d vectors (ids must be 0..n-1, each once): %w", nw, m, ErrInvalidInput)
			}
			seen[nw] = true
			copy(vecs[int(nw)*dims:int(nw+1)*dims], x.vecs[old*dims:(old+1)*dims])
		}
	}
	runtime.KeepAlive(parts) // their vectors may be mapped files
	var x *Index
	if b := mergeBase(parts, live, opts, m); b >= 0 {
		x = mergeOnto(parts, remap, b, vecs, opts)
	} else {
		x = build(dims, vecs, opts)
	}
	x.holdVectors(mem)
	return x, nil
}
