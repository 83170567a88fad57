package filter

import (
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
		return "", errorf(ErrInvalid, "filter on unknown field %q with %q: only enum, enum_text and number fields are filterable", field, construct)
	}
	switch t {
	case FieldEnum, FieldEnumText, FieldNumber:
	default:
		return t, errorf(ErrInvalid, "filter on field %q (type %s) with %q: only enum, enum_text and number fields are filterable", field, t, construct)
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
	return t, errorf(ErrInvalid, "filter on field %q (type %s) with %q: needs a field of type %s", field, t, construct, strings.Join(names, " or "))
}
