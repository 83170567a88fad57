package text

// TruncateRunes returns s cut to at most n runes (code points), never
// inside one; s itself when it is no longer.
func TruncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
