package config

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// field is one node of the tree of settings, read once from the struct tags
// of Config and the types it holds. A setting (a leaf: addr, apps[].id) has
// a kind; a section (limits) or a list of sections (apps) has fields.
//
// The tags, one line per setting:
//
//	yaml     the key in the file; required on every exported field ("-" skips one)
//	env      the ROOST_* variable; inside a list, the variables define one entry
//	flag     the `roost serve` flag, for top-level settings that have one
//	default  the value a zero field gets, written as the variable would be
//	example  the value --print-config shows when the default is empty
//	unit     "bytes" reads an int as a size ("64KiB")
//	check    comma-separated rules (see rules.go) the final value must pass
//	help     one line for --print-config, `roost serve --help` and the README
//	reload   "live": a running node applies a change on SIGHUP (RestartNeeded
//	         skips it, and its help says so)
type field struct {
	key   string // "max_connections"
	path  string // "apps[].max_connections": [] stands for any entry
	index int    // position in the Go struct
	help  string

	// Settings only.
	kind     *kind
	env      string
	flag     string
	def      string
	defValue reflect.Value // def parsed; invalid when def is ""
	example  string
	rules    []rule
	unique   bool // no two entries of the enclosing list may share a value
	live     bool // applied by a reload (reload:"live")

	// Sections and lists only.
	fields []*field
	list   reflect.Type // the entry type of a list of sections; nil otherwise
}

// isSetting reports whether f is a leaf that holds a value.
func (f *field) isSetting() bool { return f.kind != nil }

// find returns the field of fields whose key is key, or nil.
func find(fields []*field, key string) *field {
	for _, f := range fields {
		if f.key == key {
			return f
		}
	}
	return nil
}

// schema is the tree of Config's settings. Building it panics on a tag it
// cannot honour (an unknown rule, a default that does not parse): such a
// mistake is the programmer's, and every test run finds it.
var schema = sync.OnceValue(func() []*field {
	return structFields(reflect.TypeFor[Config](), "")
})

// structFields reads the fields of struct type t, whose path is path.
func structFields(t reflect.Type, path string) []*field {
	var fields []*field
	for i := range t.NumField() {
		sf := t.Field(i)
		key := sf.Tag.Get("yaml")
		if !sf.IsExported() || key == "-" {
			continue
		}
		if key == "" {
			panic(fmt.Sprintf("config: %s.%s has no yaml tag", t.Name(), sf.Name))
		}
		fields = append(fields, newField(sf, i, joinPath(path, key)))
	}
	return fields
}

// newField reads one struct field: a section, a list of sections or a
// setting.
func newField(sf reflect.StructField, index int, path string) *field {
	f := &field{key: sf.Tag.Get("yaml"), path: path, index: index, help: sf.Tag.Get("help")}
	t := sf.Type
	switch {
	case t.Kind() == reflect.Struct:
		f.fields = structFields(t, path)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		f.list = t.Elem()
		f.fields = structFields(t.Elem(), path+"[]")
	default:
		f.setting(sf)
		return f
	}
	if f.help == "" {
		panic(fmt.Sprintf("config: section %s has no help tag", path))
	}
	return f
}

// setting reads the tags of a leaf.
func (f *field) setting(sf reflect.StructField) {
	tag := sf.Tag
	f.kind = kindOf(sf.Type, tag.Get("unit"))
	if f.kind == nil {
		panic(fmt.Sprintf("config: %s: no kind of setting reads a %s", f.path, sf.Type))
	}
	f.env, f.flag, f.def, f.example = tag.Get("env"), tag.Get("flag"), tag.Get("default"), tag.Get("example")
	f.require(tag)
	if f.live = tag.Get("reload") == "live"; f.live {
		f.help += liveHelp
	}
	f.parseDefault(sf.Type)
	for spec := range strings.SplitSeq(tag.Get("check"), ",") {
		f.addRule(strings.TrimSpace(spec))
	}
}

// require checks that the tags every setting needs are there: a variable,
// help, and a default (perhaps "") so the docs can show it.
func (f *field) require(tag reflect.StructTag) {
	for _, name := range []string{"env", "help", "default"} {
		if _, ok := tag.Lookup(name); !ok {
			panic(fmt.Sprintf("config: %s has no %s tag", f.path, name))
		}
	}
	if !strings.HasPrefix(f.env, envPrefix) {
		panic(fmt.Sprintf("config: %s: variable %q does not start with %s", f.path, f.env, envPrefix))
	}
}

// parseDefault parses the default tag once, as a variable would be parsed.
// A default equal to the zero value only documents what zero means (0
// connections: unlimited). A plain bool cannot default to true: false, its
// zero value, would then be impossible to set; such a setting is a *bool.
func (f *field) parseDefault(t reflect.Type) {
	if f.def == "" {
		return
	}
	v, err := f.kind.text(f.def)
	if err != nil {
		panic(fmt.Sprintf("config: %s: default %q: %v", f.path, f.def, err))
	}
	f.defValue = reflect.ValueOf(v)
	if t.Kind() == reflect.Bool && !f.defValue.IsZero() {
		panic(fmt.Sprintf("config: %s: a bool that defaults to true must be a *bool", f.path))
	}
}

// addRule adds the rule spec names ("positive", "min=10"); "" adds none.
func (f *field) addRule(spec string) {
	if spec == "" {
		return
	}
	if spec == "unique" {
		f.unique = true
		return
	}
	name, arg, _ := strings.Cut(spec, "=")
	make, ok := ruleMakers[name]
	if !ok {
		panic(fmt.Sprintf("config: %s: unknown check %q", f.path, name))
	}
	r, err := make(arg)
	if err != nil {
		panic(fmt.Sprintf("config: %s: check %q: %v", f.path, spec, err))
	}
	f.rules = append(f.rules, r)
}

// settings returns every setting under fields, depth first in declaration
// order (the order of the file, the docs and the errors).
func settings(fields []*field) []*field {
	var out []*field
	for _, f := range fields {
		if f.isSetting() {
			out = append(out, f)
		} else {
			out = append(out, settings(f.fields)...)
		}
	}
	return out
}

// envNames is the set of every setting's variable, to tell a ROOST_*
// variable that is not a setting.
var envNames = sync.OnceValue(func() map[string]bool {
	names := make(map[string]bool)
	for _, f := range settings(schema()) {
		names[f.env] = true
	}
	return names
})
