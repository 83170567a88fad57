package cluster

import "unicode"

// simpleFold is unicode.SimpleFold (the folding najdi's filters use).
func simpleFold(r rune) rune { return unicode.SimpleFold(r) }
