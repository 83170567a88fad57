package filter

import (
	"fmt"
	"strings"
)

// checkField verifies that field is known to s, filterable, and of one of
// the allowed types (all filterable types when allowed is empty).
func checkField(s Schema, field, construct string, allowed ...FieldType) (FieldType, error) {
	if s == nil {
		return "", nil
	}
	t, ok := s.FieldType(field)
	if !ok {
		return "", fmt.Errorf("%w: filter on unknown field %q with %q: only enum, enum_text and number fields are filterable", ErrInvalid, field, construct)
	}
	switch t {
	case FieldEnum, FieldEnumText, FieldNumber:
	default:
		return t, fmt.Errorf("%w: filter on field %q (type %s) with %q: only enum, enum_text and number fields are filterable", ErrInvalid, field, t, construct)
	}
	if len(allowed) == 0 {
		return t, nil
	}
	for _, a := range allowed {
		if a == t {
			return t, nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return t, fmt.Errorf("%w: filter on field %q (type %s) with %q: needs a field of type %s", ErrInvalid, field, t, construct, strings.Join(names, " or "))
}
