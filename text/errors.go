package text

import "errors"

// ErrUnknownLanguage is returned by ParseLanguage for a code that is not
// supported.
var ErrUnknownLanguage = errors.New("text: unknown language")
