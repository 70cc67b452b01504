package config

import (
	"errors"
	"fmt"
	"strings"
)

// FieldError reports one bad setting. Every error the package returns about
// a setting is one, so that it names the setting by its full YAML path
// ("apps[1].max_connections") and says where the bad value came from: a file
// and line, a ROOST_* variable, or a command-line flag. Callers may use
// errors.As to pick out the field.
type FieldError struct {
	// Field is the setting's full YAML path: "limits.max_message_size",
	// "apps[1].secret".
	Field string
	// Source is where the value came from: the file's name, a variable
	// ("ROOST_LOOPS") or a flag ("--addr"). Empty means the default, or a
	// file given to Parse without a name (then Line says where).
	Source string
	// Line is the value's line in the file. Zero means it did not come from
	// a file.
	Line int
	// Err says what is wrong with the setting.
	Err error
}

// Error renders the error as "config: <field> (<source>): <problem>", where
// a file source reads "roost.yaml:12" (or "line 12" for an unnamed file),
// and the parenthesis is left out when the value is a default.
func (e *FieldError) Error() string {
	where := e.Source
	if e.Line > 0 {
		if where == "" {
			where = fmt.Sprintf("line %d", e.Line)
		} else {
			where = fmt.Sprintf("%s:%d", where, e.Line)
		}
	}
	if where == "" {
		return fmt.Sprintf("config: %s: %v", e.Field, e.Err)
	}
	return fmt.Sprintf("config: %s (%s): %v", e.Field, where, e.Err)
}

// Unwrap returns the underlying problem, so errors.Is works through it.
func (e *FieldError) Unwrap() error { return e.Err }

// errUnknownField is returned for a YAML key that names no setting: a typo
// must not pass silently.
var errUnknownField = errors.New("unknown field")

// origin is where one value came from, in FieldError's terms.
type origin struct {
	source string
	line   int
}

// origins remembers, by full path ("apps[1].id"), where each value that a
// source set came from, so an error found later, when the merged Config is
// validated, still names the file line, variable or flag to fix.
type origins map[string]origin

// set records that the value at path came from o, replacing any earlier
// source: a later source wins, as its value does.
func (m origins) set(path string, o origin) { m[path] = o }

// forget drops every path at or below path, when a later source replaces a
// whole list (ROOST_APP_* replace the file's apps).
func (m origins) forget(path string) {
	for p := range m {
		if p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			delete(m, p)
		}
	}
}

// lookup returns the origin of path, or else of the nearest enclosing
// section or list entry that has one: a missing apps[0].secret is reported
// at the line of apps[0].
func (m origins) lookup(path string) origin {
	for p := path; p != ""; p = parentPath(p) {
		if o, ok := m[p]; ok {
			return o
		}
	}
	return origin{}
}

// parentPath drops the last element of a path: "apps[1].id" -> "apps[1]" ->
// "apps" -> "".
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// joinPath appends key to a dotted YAML path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// indexPath names entry i of the list at path: "apps[1]".
func indexPath(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}

// annotate fills in the source of each FieldError in err (one, or several
// joined) that has none, from where its value, or the section or entry it
// belongs to, came from.
func (m origins) annotate(err error) error {
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		if fe := (*FieldError)(nil); errors.As(e, &fe) && fe.Source == "" && fe.Line == 0 {
			o := m.lookup(fe.Field)
			fe.Source, fe.Line = o.source, o.line
		}
	}
	return err
}
