package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// yamlReader reads one YAML document into a Config, guided by the schema.
//
// yaml.v3 parses the document, follows aliases and resolves each scalar's
// type; the schema decides which keys exist. Decoder.KnownFields(true)
// would refuse unknown keys as strictly, but its errors name the Go type
// ("field sekret not found in type config.App") where users need the path
// they wrote ("apps[1].sekret"), and it cannot read "64KiB" into an int.
// The walk also refuses duplicate keys and reports every problem at once.
type yamlReader struct {
	file    string // the file's name in errors; "" for bytes given to Parse
	origins origins
	errs    []error
}

// decode reads data, one YAML document, into root, the struct that fields
// describe. An empty file, or one that is only comments, sets nothing.
func (r *yamlReader) decode(data []byte, fields []*field, root reflect.Value) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil
	} else if err != nil {
		return r.docError(err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return r.docError(fmt.Errorf("line %d: the file must hold one YAML document, found a second", next.Line))
	} else if !errors.Is(err, io.EOF) {
		return r.docError(err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	if n := resolve(doc.Content[0]); !isNull(n) && n.Kind != yaml.MappingNode {
		return r.docError(fmt.Errorf("line %d: the file must be a mapping of settings, got %s", n.Line, describe(n)))
	}
	r.section(doc.Content[0], fields, root, "")
	return errors.Join(r.errs...)
}

// docError reports a problem with the document as a whole, naming the file.
func (r *yamlReader) docError(err error) error {
	if r.file == "" {
		return fmt.Errorf("config: %w", err)
	}
	return fmt.Errorf("config: %s: %w", r.file, err)
}

// fail records a problem with the setting at path, on line.
func (r *yamlReader) fail(path string, line int, err error) {
	r.errs = append(r.errs, &FieldError{Field: path, Source: r.file, Line: line, Err: err})
}

// section reads mapping n, at path, into struct s described by fields.
func (r *yamlReader) section(n *yaml.Node, fields []*field, s reflect.Value, path string) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		r.fail(path, n.Line, expected("a mapping", n))
		return
	}
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		r.entry(n.Content[i], n.Content[i+1], fields, s, path, seen)
	}
}

// entry reads one key: value pair of a mapping at path. seen maps the keys
// already read to their line, to catch duplicates.
func (r *yamlReader) entry(k, v *yaml.Node, fields []*field, s reflect.Value, path string, seen map[string]int) {
	k = resolve(k)
	if k.Kind != yaml.ScalarNode {
		r.fail(joinPath(path, "?"), k.Line, fmt.Errorf("a key must be a plain name, got %s", describe(k)))
		return
	}
	p := joinPath(path, k.Value)
	if first, dup := seen[k.Value]; dup {
		r.fail(p, k.Line, fmt.Errorf("duplicate key, first set on line %d", first))
		return
	}
	seen[k.Value] = k.Line
	f := find(fields, k.Value)
	if f == nil {
		r.fail(p, k.Line, errUnknownField)
		return
	}
	r.origins.set(p, origin{source: r.file, line: k.Line})
	r.value(f, v, s.Field(f.index), p, k.Line)
}

// value reads the value of field f, at path, into x; line is its key's.
func (r *yamlReader) value(f *field, n *yaml.Node, x reflect.Value, path string, line int) {
	switch {
	case f.list != nil:
		r.list(f, n, x, path)
	case !f.isSetting():
		r.section(n, f.fields, x, path)
	default:
		r.setting(f, n, x, path, line)
	}
}

// setting reads one value; null leaves it unset.
func (r *yamlReader) setting(f *field, n *yaml.Node, x reflect.Value, path string, line int) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	v, err := f.kind.yaml(n)
	if err != nil {
		r.fail(path, line, err)
		return
	}
	x.Set(reflect.ValueOf(v))
}

// list reads a list of sections, naming each entry path[i].
func (r *yamlReader) list(f *field, n *yaml.Node, x reflect.Value, path string) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		r.fail(path, n.Line, expected("a list", n))
		return
	}
	entries := reflect.MakeSlice(x.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		p := indexPath(path, i)
		r.origins.set(p, origin{source: r.file, line: item.Line})
		r.section(item, f.fields, entries.Index(i), p)
	}
	x.Set(entries)
}
