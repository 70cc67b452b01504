package config

import (
	"errors"
	"reflect"
)

// textSource is a source that gives settings as text, by name: the
// environment or the command line. Both are read by one walk of the schema,
// so that a setting's variable and its flag cannot parse differently.
type textSource struct {
	values  map[string]string
	name    func(*field) string // the setting's name in this source; "" if none
	label   func(string) string // how errors name the setting: "ROOST_X", "--x"
	origins origins
	errs    []error
}

// apply sets the settings under fields, in struct s at path, from the
// source. An empty value counts as unset, so `ROOST_X=${X}` in a compose
// file is harmless when X is not set. It reports whether it set any.
func (t *textSource) apply(fields []*field, s reflect.Value, path string) bool {
	set := false
	for _, f := range fields {
		p, x := joinPath(path, f.key), s.Field(f.index)
		switch {
		case f.list != nil:
			set = t.list(f, x, p) || set
		case !f.isSetting():
			set = t.apply(f.fields, x, p) || set
		default:
			set = t.setting(f, x, p) || set
		}
	}
	return set
}

// setting sets one value, if the source gives it.
func (t *textSource) setting(f *field, x reflect.Value, path string) bool {
	name := t.name(f)
	raw := t.values[name]
	if name == "" || raw == "" {
		return false
	}
	v, err := f.kind.text(raw)
	if err != nil {
		t.errs = append(t.errs, &FieldError{Field: path, Source: t.label(name), Err: err})
		return false
	}
	x.Set(reflect.ValueOf(v))
	t.origins.set(path, origin{source: t.label(name)})
	return true
}

// list reads one entry of a list of sections: if the source sets any of its
// settings (ROOST_APP_*), that entry replaces the whole list, and every
// setting of it is said to come from its own name, set or not, so that a
// missing ROOST_APP_SECRET is reported as such.
func (t *textSource) list(f *field, x reflect.Value, path string) bool {
	entry := reflect.New(f.list).Elem()
	p := indexPath(path, 0)
	scratch := &textSource{values: t.values, name: t.name, label: t.label, origins: origins{}}
	set := scratch.apply(f.fields, entry, p)
	t.errs = append(t.errs, scratch.errs...)
	if !set {
		return false
	}
	t.origins.forget(path)
	t.nameAll(f.fields, p)
	for k, o := range scratch.origins {
		t.origins.set(k, o)
	}
	list := reflect.MakeSlice(x.Type(), 1, 1)
	list.Index(0).Set(entry)
	x.Set(list)
	return true
}

// nameAll records every setting under fields, at path, as coming from its
// name in this source.
func (t *textSource) nameAll(fields []*field, path string) {
	for _, f := range fields {
		p := joinPath(path, f.key)
		if f.isSetting() && t.name(f) != "" {
			t.origins.set(p, origin{source: t.label(t.name(f))})
		} else if f.list == nil {
			t.nameAll(f.fields, p)
		}
	}
}

// err returns every problem the source had, joined.
func (t *textSource) err() error { return errors.Join(t.errs...) }
