package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// YAML core schema tags (YAML 1.2 section 10.3) as yaml.Node.ShortTag
// reports them.
const (
	tagNull  = "!!null"
	tagBool  = "!!bool"
	tagInt   = "!!int"
	tagStr   = "!!str"
	tagFloat = "!!float"
)

// resolve follows an alias (*name) to the node it refers to.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is an empty or null value, which leaves a field
// at its zero value (and so its default).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == tagNull
}

// describe names what n is, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "an unsupported YAML node"
}

// scalar returns n's text, or an error naming what was expected instead.
func scalar(n *yaml.Node, want string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("expected %s, got %s", want, describe(n))
	}
	return n.Value, nil
}

// decodeString stores n's text in *p exactly as written, so an id like 0123
// stays "0123" rather than becoming a number.
func decodeString(n *yaml.Node, p *string) error {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	s, err := scalar(n, "a string")
	*p = s
	return err
}

// decodeInt stores a YAML integer, or a quoted decimal one ("4"), in *p.
func decodeInt(n *yaml.Node, p *int) error {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if _, err := scalar(n, "an integer"); err != nil {
		return err
	}
	if n.ShortTag() == tagStr {
		return parseInt(n.Value, p)
	}
	if n.ShortTag() != tagInt || n.Decode(p) != nil {
		return fmt.Errorf("invalid integer %q", n.Value)
	}
	return nil
}

// decodeSize stores a byte count in *p: a YAML integer, or a string that
// parseSize accepts ("64KiB").
func decodeSize(n *yaml.Node, p *int) error {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == tagStr {
		return parseSize(n.Value, p)
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == tagFloat {
		return sizeError(n.Value)
	}
	return decodeInt(n, p)
}

// decodeDuration stores a Go duration string ("120s", "2m") in *p. A bare
// number is rejected: its unit would be a guess.
func decodeDuration(n *yaml.Node, p *time.Duration) error {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	s, err := scalar(n, "a duration")
	if err != nil {
		return err
	}
	return parseDuration(s, p)
}

// decodeBool stores a YAML true or false in *p.
func decodeBool(n *yaml.Node, p *bool) error {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if _, err := scalar(n, "true or false"); err != nil {
		return err
	}
	if n.ShortTag() != tagBool || n.Decode(p) != nil {
		return fmt.Errorf("invalid boolean %q (want true or false)", n.Value)
	}
	return nil
}

// decodeBoolPtr stores a YAML boolean in a new *bool, leaving nil for null.
func decodeBoolPtr(n *yaml.Node, p **bool) error {
	if isNull(resolve(n)) {
		return nil
	}
	b := new(bool)
	if err := decodeBool(n, b); err != nil {
		return err
	}
	*p = b
	return nil
}

// parseDuration parses a Go duration string, naming the bad text on error.
func parseDuration(s string, p *time.Duration) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q (want a Go duration such as \"120s\" or \"2m\")", s)
	}
	*p = d
	return nil
}

// parseInt parses a decimal integer, naming the bad text on error.
func parseInt(s string, p *int) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("invalid integer %q", s)
	}
	*p = v
	return nil
}

// parseBool parses true/false (and the forms strconv.ParseBool accepts).
func parseBool(s string, p *bool) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("invalid boolean %q (want true or false)", s)
	}
	*p = v
	return nil
}

// sizeUnit returns the multiplier for a size suffix, compared
// case-insensitively. KB/MB/GB are decimal (SI) and KiB/MiB/GiB binary (IEC 80000-13), so that
// "64KB" and "64KiB" mean what the standards say they mean.
func sizeUnit(suffix string) (int64, bool) {
	switch strings.ToLower(suffix) {
	case "", "b":
		return 1, true
	case "kb":
		return 1e3, true
	case "kib":
		return 1 << 10, true
	case "mb":
		return 1e6, true
	case "mib":
		return 1 << 20, true
	case "gb":
		return 1e9, true
	case "gib":
		return 1 << 30, true
	}
	return 0, false
}

// errSize is the cause behind every malformed size.
var errSize = errors.New("invalid size")

// sizeError names the bad text and the accepted forms.
func sizeError(s string) error {
	return fmt.Errorf("%w %q (want bytes, e.g. 65536, \"64KiB\" or \"1MB\")", errSize, s)
}

// parseSize parses a byte count: digits, optionally followed (after optional
// spaces) by B, KB, KiB, MB, MiB, GB or GiB.
func parseSize(s string, p *int) error {
	t := strings.TrimSpace(s)
	end := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(t)
	}
	n, err := strconv.ParseInt(t[:end], 10, 64)
	unit, ok := sizeUnit(strings.TrimSpace(t[end:]))
	if err != nil || !ok || n > math.MaxInt/unit {
		return sizeError(s)
	}
	*p = int(n * unit)
	return nil
}
