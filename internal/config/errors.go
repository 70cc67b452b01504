package config

import (
	"errors"
	"fmt"
)

// FieldError reports one bad setting. It exists so that every error the
// package returns names the setting at fault in the words the user wrote it
// in: a YAML path such as "apps[1].secret" or an environment variable such as
// "ROOST_ACTIVITY_TIMEOUT". Callers may use errors.As to pick out the field.
type FieldError struct {
	// Field is the YAML path ("limits.max_message_size") or the environment
	// variable name ("ROOST_LOOPS") of the setting.
	Field string
	// Line is the line of the YAML file the setting is on. Zero means the
	// error is not tied to a line (validation of the merged result, or env).
	Line int
	// Err says what is wrong with the setting.
	Err error
}

// Error renders the error as "config: <field>: <problem>", plus the line
// number when it is known.
func (e *FieldError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("config: %s: %v (line %d)", e.Field, e.Err, e.Line)
	}
	return fmt.Sprintf("config: %s: %v", e.Field, e.Err)
}

// Unwrap returns the underlying problem, so errors.Is works through it.
func (e *FieldError) Unwrap() error { return e.Err }

// errUnknownField is returned for a YAML key that names
// no setting: a typo must not pass silently.
var errUnknownField = errors.New("unknown field")

// fieldErr builds a FieldError from a format string.
func fieldErr(field string, line int, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Line: line, Err: fmt.Errorf(format, args...)}
}

// atField attaches field and line to err unless err already names a field
// (an error from a nested mapping carries its own, longer path).
func atField(field string, line int, err error) error {
	if fe := (*FieldError)(nil); errors.As(err, &fe) {
		return err
	}
	return &FieldError{Field: field, Line: line, Err: err}
}
