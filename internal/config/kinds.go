package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// kind is how settings of one Go type are read: from text (a variable, a
// flag, a default tag) and from a YAML node, which is never null here. Both
// return a value of the setting's exact Go type.
type kind struct {
	// name says what is expected, in the docs: "duration", "bytes".
	name string
	text func(s string) (any, error)
	yaml func(n *yaml.Node) (any, error)
}

// The kinds of setting. yaml.v3 resolves the YAML forms of integers and
// booleans (0x10, 4_096, true); every other check is the kind's own, so a
// file, a variable and a flag accept the same text.
var (
	stringKind   = &kind{"string", textString, yamlString}
	intKind      = &kind{"integer", textInt, yamlInt}
	sizeKind     = &kind{"bytes", textSize, yamlSize}
	durationKind = &kind{"duration", textDuration, yamlDuration}
	boolKind     = &kind{"boolean", textBool, yamlBool}
	optBoolKind  = &kind{"boolean", pointer(textBool), pointer(yamlBool)}
	listKind     = &kind{"list", textList, yamlList}
)

// kindOf returns the kind that reads Go type t, or nil if none does. unit
// "bytes" makes an int a size.
func kindOf(t reflect.Type, unit string) *kind {
	switch t {
	case reflect.TypeFor[string]():
		return stringKind
	case reflect.TypeFor[int]():
		if unit == "bytes" {
			return sizeKind
		}
		return intKind
	case reflect.TypeFor[time.Duration]():
		return durationKind
	case reflect.TypeFor[bool]():
		return boolKind
	case reflect.TypeFor[*bool]():
		return optBoolKind
	case reflect.TypeFor[[]string]():
		return listKind
	}
	return nil
}

func textString(s string) (any, error)   { return s, nil }
func textInt(s string) (any, error)      { return parseInt(s) }
func textSize(s string) (any, error)     { return parseSize(s) }
func textDuration(s string) (any, error) { return parseDuration(s) }
func textBool(s string) (any, error)     { return parseBool(s) }

// textList splits a comma-separated list, dropping spaces around items and
// empty items.
func textList(s string) (any, error) {
	var items []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items, nil
}

// yamlString keeps a scalar's text exactly as written, so an id like 0123
// stays "0123" rather than becoming a number.
func yamlString(n *yaml.Node) (any, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, expected("a string", n)
	}
	return n.Value, nil
}

// yamlInt reads a YAML integer, or a quoted decimal one ("4").
func yamlInt(n *yaml.Node) (any, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, expected("an integer", n)
	}
	if n.ShortTag() == tagStr {
		return parseInt(n.Value)
	}
	var i int
	if n.ShortTag() != tagInt || n.Decode(&i) != nil {
		return nil, fmt.Errorf("invalid integer %q", n.Value)
	}
	return i, nil
}

// yamlSize reads a byte count: a YAML integer, or a string parseSize
// accepts ("64KiB").
func yamlSize(n *yaml.Node) (any, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == tagStr {
		return parseSize(n.Value)
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == tagFloat {
		return nil, sizeError(n.Value)
	}
	return yamlInt(n)
}

// yamlDuration reads a Go duration string ("120s", "2m"). A bare number is
// refused: its unit would be a guess.
func yamlDuration(n *yaml.Node) (any, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, expected("a duration", n)
	}
	return parseDuration(n.Value)
}

// yamlBool reads true or false; YAML 1.1's yes, no, on and off are refused
// as the strings YAML 1.2 says they are.
func yamlBool(n *yaml.Node) (any, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, expected("true or false", n)
	}
	var b bool
	if n.ShortTag() != tagBool || n.Decode(&b) != nil {
		return nil, fmt.Errorf("invalid boolean %q (want true or false)", n.Value)
	}
	return b, nil
}

// yamlList reads a list of strings, each kept as written.
func yamlList(n *yaml.Node) (any, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, expected("a list", n)
	}
	var items []string // an empty list is unset, as an absent one
	for _, item := range n.Content {
		item = resolve(item)
		if isNull(item) {
			return nil, expected("a string", item)
		}
		s, err := yamlString(item)
		if err != nil {
			return nil, err
		}
		items = append(items, s.(string))
	}
	return items, nil
}

// pointer makes a reader of T into a reader of *T, for settings whose zero
// value (nil) must differ from every value a user can set.
func pointer[In any](read func(In) (any, error)) func(In) (any, error) {
	return func(in In) (any, error) {
		v, err := read(in)
		if err != nil {
			return nil, err
		}
		p := reflect.New(reflect.TypeOf(v))
		p.Elem().Set(reflect.ValueOf(v))
		return p.Interface(), nil
	}
}
