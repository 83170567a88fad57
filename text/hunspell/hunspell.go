package hunspell

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrBadDictionary is wrapped by every error about malformed .aff or .dic
// content (bad headers, flags, conditions, unsupported SET...).
var ErrBadDictionary = errors.New("hunspell: bad dictionary")

// Options configure Parse/Open.
type Options struct {
	// Key maps a word form to its lookup key (e.g. lowercase + diacritics folded).
	// Nil means strings.ToLower.
	Key func(string) string
	// Filter, if set, drops stems for which it returns false before indexing
	// (e.g. to keep only lowercase stems). Nil keeps all.
	Filter func(stem string) bool
}

// Dictionary is a parsed Hunspell dictionary indexed by key. It is
// immutable and safe for concurrent use.
type Dictionary struct {
	key func(string) string

	words   []string // indexed stems, as spelled in the .dic
	flagOff []uint32 // flags of words[i] are flags[flagOff[i]:flagOff[i+1]]
	flags   []flag

	byKey    map[string]uint32 // Key(stem) → key group
	groupOff []uint32          // stems of group g are order[groupOff[g]:groupOff[g+1]]
	order    []uint32          // stem ids grouped by key

	needAffix    flag
	hasNeedAffix bool
	fullStrip    bool
	forbidden    map[string]struct{}

	sfx, pfx   affixIndex // all rules by Key(add)
	sfxX, pfxX affixIndex // cross-product rules only
	// Twofold suffixes: sfxIn holds the suffixes whose continuation flags
	// name another suffix (SFX1), sfxOut the suffixes named so (SFX2),
	// sfxOutX the cross-product ones of sfxOut.
	sfxIn, sfxOut, sfxOutX affixIndex
	contRules              int
}

// Open reads the dictionary from an .aff and a .dic file.
func Open(affPath, dicPath string, opt Options) (*Dictionary, error) {
	aff, err := os.ReadFile(affPath)
	if err != nil {
		return nil, fmt.Errorf("hunspell: open: %w", err)
	}
	dic, err := os.ReadFile(dicPath)
	if err != nil {
		return nil, fmt.Errorf("hunspell: open: %w", err)
	}
	return parse(affPath, dicPath, aff, dic, opt)
}

// Parse reads a dictionary from the contents of an .aff and a .dic file.
func Parse(aff, dic io.Reader, opt Options) (*Dictionary, error) {
	a, err := io.ReadAll(aff)
	if err != nil {
		return nil, fmt.Errorf("hunspell: read aff: %w", err)
	}
	d, err := io.ReadAll(dic)
	if err != nil {
		return nil, fmt.Errorf("hunspell: read dic: %w", err)
	}
	return parse("aff", "dic", a, d, opt)
}

func parse(affName, dicName string, affRaw, dicRaw []byte, opt Options) (*Dictionary, error) {
	enc := encLatin1
	if set := findSet(affRaw); set != "" {
		e, ok := parseEncoding(set)
		if !ok {
			return nil, fmt.Errorf("hunspell: parse %s: %w: unsupported SET %q (want UTF-8, ISO8859-1 or ISO8859-2)", affName, ErrBadDictionary, set)
		}
		enc = e
	}
	ad, err := parseAff(affName, decode(affRaw, enc))
	if err != nil {
		return nil, err
	}
	d := &Dictionary{
		key:          opt.Key,
		needAffix:    ad.needAffix,
		hasNeedAffix: ad.hasNeedAffix,
		fullStrip:    ad.fullStrip,
		contRules:    ad.contRules,
	}
	if d.key == nil {
		d.key = strings.ToLower
	}
	for _, a := range ad.suffixes {
		ak, sk := d.key(a.add), d.key(a.strip)
		d.sfx.add(ak, sk, a)
		if a.cross {
			d.sfxX.add(ak, sk, a)
		}
	}
	d.indexTwofold(ad.suffixes)
	for _, a := range ad.prefixes {
		ak, sk := d.key(a.add), d.key(a.strip)
		d.pfx.add(ak, sk, a)
		if a.cross {
			d.pfxX.add(ak, sk, a)
		}
	}
	if err := d.parseDic(dicName, decode(dicRaw, enc), ad, opt.Filter); err != nil {
		return nil, err
	}
	return d, nil
}

// indexTwofold fills sfxIn, sfxOut and sfxOutX.
func (d *Dictionary) indexTwofold(suffixes []*affix) {
	isSfx := make(map[flag]bool)
	for _, a := range suffixes {
		isSfx[a.flag] = true
	}
	outer := make(map[flag]bool)
	for _, a := range suffixes {
		inner := false
		for _, c := range a.cont {
			if isSfx[c] {
				outer[c], inner = true, true
			}
		}
		if inner {
			d.sfxIn.add(d.key(a.add), d.key(a.strip), a)
		}
	}
	for _, a := range suffixes {
		if !outer[a.flag] {
			continue
		}
		ak, sk := d.key(a.add), d.key(a.strip)
		d.sfxOut.add(ak, sk, a)
		if a.cross {
			d.sfxOutX.add(ak, sk, a)
		}
	}
}

// parseDic reads the stems of the decoded .dic text and indexes them.
func (d *Dictionary) parseDic(name, text string, ad *affData, filter func(string) bool) error {
	n := 0
	counted := false
	var keys []string
	d.flagOff = []uint32{0}
	for line := range strings.Lines(text) {
		n++
		line = strings.TrimRight(line, "\r\n")
		if !counted {
			if strings.TrimSpace(line) == "" {
				continue
			}
			c, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || c < 0 {
				return fmt.Errorf("hunspell: parse %s line %d: %w: first line %q is not a word count", name, n, ErrBadDictionary, line)
			}
			c = min(c, 1<<20)
			d.words = make([]string, 0, c)
			keys = make([]string, 0, c)
			d.flagOff = make([]uint32, 1, c+1)
			d.flags = make([]flag, 0, 4*c)
			counted = true
			continue
		}
		if !utf8.ValidString(line) {
			return fmt.Errorf("hunspell: parse %s line %d: %w: invalid UTF-8", name, n, ErrBadDictionary)
		}
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			line = line[:i]
		}
		if line == "" {
			continue
		}
		stem, fstr := splitEntry(line)
		if stem == "" {
			continue
		}
		var fs []flag
		if fstr != "" {
			var ok bool
			fs, ok = d.entryFlags(ad, fstr)
			if !ok {
				return fmt.Errorf("hunspell: parse %s line %d: %w: bad flags %q", name, n, ErrBadDictionary, fstr)
			}
		}
		if ad.hasForbidden && slices.Contains(fs, ad.forbidden) {
			if d.forbidden == nil {
				d.forbidden = make(map[string]struct{})
			}
			d.forbidden[stem] = struct{}{}
			continue
		}
		if filter != nil && !filter(stem) {
			continue
		}
		d.words = append(d.words, stem)
		keys = append(keys, d.key(stem))
		d.flags = append(d.flags, fs...)
		d.flagOff = append(d.flagOff, uint32(len(d.flags)))
	}
	if !counted {
		return fmt.Errorf("hunspell: parse %s: %w: empty file", name, ErrBadDictionary)
	}
	d.index(keys)
	return nil
}

// entryFlags decodes the flags of a .dic entry, resolving AF aliases.
func (d *Dictionary) entryFlags(ad *affData, s string) ([]flag, bool) {
	if ad.aliases == nil {
		return parseFlags(ad.mode, s)
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 1 || i >= len(ad.aliases) {
		return nil, false
	}
	return ad.aliases[i], true
}

// splitEntry splits "stem/flags" at the first slash not escaped as "\/".
func splitEntry(s string) (stem, flags string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '/':
			if i == 0 {
				continue // a word that is a slash
			}
			return unescape(s[:i]), s[i+1:]
		}
	}
	return unescape(s), ""
}

func unescape(s string) string {
	if !strings.Contains(s, `\/`) {
		return s
	}
	return strings.ReplaceAll(s, `\/`, "/")
}

// index groups stem ids by key.
func (d *Dictionary) index(keys []string) {
	d.byKey = make(map[string]uint32, len(keys)/2)
	gid := make([]uint32, len(keys))
	var count []uint32
	for i, k := range keys {
		g, ok := d.byKey[k]
		if !ok {
			g = uint32(len(count))
			d.byKey[k] = g
			count = append(count, 0)
		}
		gid[i] = g
		count[g]++
	}
	d.groupOff = make([]uint32, len(count)+1)
	for g, c := range count {
		d.groupOff[g+1] = d.groupOff[g] + c
	}
	fill := slices.Clone(d.groupOff[:len(count)])
	d.order = make([]uint32, len(keys))
	for i, g := range gid {
		d.order[fill[g]] = uint32(i)
		fill[g]++
	}
}

// Stems returns the number of indexed stems.
func (d *Dictionary) Stems() int { return len(d.words) }

// stemsWithKey returns the ids of the stems whose key is k.
func (d *Dictionary) stemsWithKey(k []byte) []uint32 {
	g, ok := d.byKey[string(k)]
	if !ok {
		return nil
	}
	return d.order[d.groupOff[g]:d.groupOff[g+1]]
}

func (d *Dictionary) hasFlag(id uint32, f flag) bool {
	for _, x := range d.flags[d.flagOff[id]:d.flagOff[id+1]] {
		if x == f {
			return true
		}
	}
	return false
}

// applySuffix returns w with suffix a applied, or false if a does not
// apply to w.
func (d *Dictionary) applySuffix(a *affix, w string) (string, bool) {
	if !(len(w) > len(a.strip) || d.fullStrip && len(w) == len(a.strip)) ||
		!strings.HasSuffix(w, a.strip) || !a.cond.matchEnd(w) {
		return "", false
	}
	return w[:len(w)-len(a.strip)] + a.add, true
}

// applyPrefix returns w with prefix a applied, or false if a does not
// apply to w.
func (d *Dictionary) applyPrefix(a *affix, w string) (string, bool) {
	if !(len(w) > len(a.strip) || d.fullStrip && len(w) == len(a.strip)) ||
		!strings.HasPrefix(w, a.strip) || !a.cond.matchStart(w) {
		return "", false
	}
	return a.add + w[len(a.strip):], true
}

// Lookup returns the distinct forms (as the dictionary spells them after affixing)
// whose Key equals key, sorted; nil if none. Safe for concurrent use.
func (d *Dictionary) Lookup(key string) []string {
	var arr [3 * 128]byte // one backing array: one allocation if it escapes
	q := lookup{d: d, key: key, wbuf: arr[:0:128], ibuf: arr[128:128:256], bbuf: arr[256:256]}

	// The stem itself.
	if g, ok := d.byKey[key]; ok {
		for _, id := range d.order[d.groupOff[g]:d.groupOff[g+1]] {
			if !d.hasNeedAffix || !d.hasFlag(id, d.needAffix) {
				q.emit(d.words[id])
			}
		}
	}
	q.suffixes()
	if d.sfxOut.m != nil {
		q.wbuf = append(q.wbuf[:0], key...)
		q.twofold(q.wbuf, nil)
	}
	q.prefixes()

	if len(q.out) == 0 {
		return nil
	}
	slices.Sort(q.out)
	return slices.Compact(q.out)
}

// lookup is the state of one Lookup call.
type lookup struct {
	d                *Dictionary
	key              string
	out              []string
	wbuf, ibuf, bbuf []byte // scratch for keys: word, intermediate word, stem
}

// emit adds form to the result if it is not forbidden and has the key.
func (q *lookup) emit(form string) {
	if q.d.forbidden != nil {
		if _, bad := q.d.forbidden[form]; bad {
			return
		}
	}
	if q.d.key(form) == q.key {
		q.out = append(q.out, form)
	}
}

// suffixes emits the stem + suffix forms.
func (q *lookup) suffixes() {
	d, key := q.d, q.key
	for l := 0; l <= min(d.sfx.maxLen, len(key)); l++ {
		cut := len(key) - l
		if l > 0 && !utf8.RuneStart(key[cut]) {
			continue
		}
		for _, g := range d.sfx.m[key[cut:]] {
			q.bbuf = append(append(q.bbuf[:0], key[:cut]...), g.stripKey...)
			for _, id := range d.stemsWithKey(q.bbuf) {
				for _, a := range g.rules {
					if !d.hasFlag(id, a.flag) {
						continue
					}
					if form, ok := d.applySuffix(a, d.words[id]); ok {
						q.emit(form)
					}
				}
			}
		}
	}
}

// prefixes emits the prefix + stem and prefix + stem + suffix forms.
func (q *lookup) prefixes() {
	d, key := q.d, q.key
	for l := 0; l <= min(d.pfx.maxLen, len(key)); l++ {
		if l < len(key) && !utf8.RuneStart(key[l]) {
			continue
		}
		for _, g := range d.pfx.m[key[:l]] {
			q.bbuf = append(append(q.bbuf[:0], g.stripKey...), key[l:]...)
			for _, id := range d.stemsWithKey(q.bbuf) {
				for _, a := range g.rules {
					if !d.hasFlag(id, a.flag) {
						continue
					}
					if form, ok := d.applyPrefix(a, d.words[id]); ok {
						q.emit(form)
					}
				}
			}
		}
		for i, pg := range d.pfxX.m[key[:l]] {
			q.crossProducts(pg, l)
			if d.sfxOutX.m != nil {
				q.wbuf = append(append(q.wbuf[:0], pg.stripKey...), key[l:]...)
				q.twofold(q.wbuf, &d.pfxX.m[key[:l]][i])
			}
		}
	}
}

// crossProducts emits the prefix + stem + suffix forms for the prefix group
// pg whose add key is key[:l].
func (q *lookup) crossProducts(pg affixGroup, l int) {
	d := q.d
	// wkey is the key of the suffixed word before the prefix is applied.
	q.wbuf = append(append(q.wbuf[:0], pg.stripKey...), q.key[l:]...)
	wkey := q.wbuf
	for t := 0; t <= min(d.sfxX.maxLen, len(wkey)); t++ {
		cut := len(wkey) - t
		if t > 0 && !utf8.RuneStart(wkey[cut]) {
			continue
		}
		for _, sg := range d.sfxX.m[string(wkey[cut:])] {
			q.bbuf = append(append(q.bbuf[:0], wkey[:cut]...), sg.stripKey...)
			for _, id := range d.stemsWithKey(q.bbuf) {
				for _, sa := range sg.rules {
					// As in Hunspell, a suffix may also be enabled by the
					// continuation flags of the prefix, and a prefix by
					// those of the suffix.
					sHas := d.hasFlag(id, sa.flag)
					w, suffixed := "", false
					for _, pa := range pg.rules {
						if !sHas && !pa.hasCont(sa.flag) ||
							!sa.hasCont(pa.flag) && !d.hasFlag(id, pa.flag) {
							continue
						}
						if !suffixed {
							var ok bool
							if w, ok = d.applySuffix(sa, d.words[id]); !ok {
								break
							}
							suffixed = true
						}
						if form, ok := d.applyPrefix(pa, w); ok {
							q.emit(form)
						}
					}
				}
			}
		}
	}
}

// twofold emits the forms stem + SFX1 + SFX2 whose key, once the prefix
// group pg (if not nil) is removed, is wkey; with pg, it emits those forms
// with a prefix of pg in front.
//
// SFX2 must be named by the continuation flags of SFX1 and is applied to
// the suffixed word. With a prefix, Hunspell's rules apply: prefix and
// SFX2 must be cross products; if SFX2's continuation flags name the
// prefix, SFX1 needs nothing more; otherwise SFX1 must be a cross product
// too, the stem (or SFX1's continuation flags) must have the prefix flag,
// and SFX1's flag may come from the prefix's continuation flags.
func (q *lookup) twofold(wkey []byte, pg *affixGroup) {
	d := q.d
	outer := &d.sfxOut
	if pg != nil {
		outer = &d.sfxOutX
	}
	for l := 0; l <= min(outer.maxLen, len(wkey)); l++ {
		cut := len(wkey) - l
		if l > 0 && !utf8.RuneStart(wkey[cut]) {
			continue
		}
		for _, g2 := range outer.m[string(wkey[cut:])] {
			// ikey is the key of the word before SFX2.
			q.ibuf = append(append(q.ibuf[:0], wkey[:cut]...), g2.stripKey...)
			ikey := q.ibuf
			for t := 0; t <= min(d.sfxIn.maxLen, len(ikey)); t++ {
				icut := len(ikey) - t
				if t > 0 && !utf8.RuneStart(ikey[icut]) {
					continue
				}
				for _, g1 := range d.sfxIn.m[string(ikey[icut:])] {
					q.bbuf = append(append(q.bbuf[:0], ikey[:icut]...), g1.stripKey...)
					for _, id := range d.stemsWithKey(q.bbuf) {
						for _, a1 := range g1.rules {
							q.twofoldStem(id, a1, g2.rules, pg)
						}
					}
				}
			}
		}
	}
}

// twofoldStem emits the forms of stem id with SFX1 a1, an SFX2 of outer
// and, if pg is not nil, a prefix of pg.
func (q *lookup) twofoldStem(id uint32, a1 *affix, outer []*affix, pg *affixGroup) {
	d := q.d
	has1 := d.hasFlag(id, a1.flag)
	if !has1 && pg == nil {
		return
	}
	var w1 string
	var state int8
	for _, a2 := range outer {
		if !a1.hasCont(a2.flag) {
			continue
		}
		if pg == nil {
			if form, ok := q.applyTwo(id, a1, a2, &w1, &state); ok {
				q.emit(form)
			}
			continue
		}
		for _, pa := range pg.rules {
			var ok bool
			if a2.hasCont(pa.flag) {
				ok = has1
			} else {
				ok = a1.cross && (has1 || pa.hasCont(a1.flag)) &&
					(a1.hasCont(pa.flag) || d.hasFlag(id, pa.flag))
			}
			if !ok {
				continue
			}
			if w2, ok := q.applyTwo(id, a1, a2, &w1, &state); ok {
				if form, ok := d.applyPrefix(pa, w2); ok {
					q.emit(form)
				}
			}
		}
	}
}

// applyTwo applies a1 then a2 to stem id. *w1 caches the word with a1;
// *state is 0 before a1 is tried, 1 if a1 applied, 2 if it did not.
func (q *lookup) applyTwo(id uint32, a1, a2 *affix, w1 *string, state *int8) (string, bool) {
	d := q.d
	if *state == 0 {
		w, ok := d.applySuffix(a1, d.words[id])
		if !ok {
			*state = 2
			return "", false
		}
		*w1, *state = w, 1
	}
	if *state == 2 {
		return "", false
	}
	return d.applySuffix(a2, *w1)
}
