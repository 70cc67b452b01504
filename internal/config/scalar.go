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

// expected reports that n is not the want it should be.
func expected(want string, n *yaml.Node) error {
	return fmt.Errorf("expected %s, got %s", want, describe(n))
}

// parseDuration parses a Go duration string, naming the bad text on error.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want a Go duration such as \"120s\" or \"2m\")", s)
	}
	return d, nil
}

// parseInt parses a decimal integer, naming the bad text on error.
func parseInt(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("invalid integer %q", s)
	}
	return v, nil
}

// parseBool parses true/false (and the forms strconv.ParseBool accepts).
func parseBool(s string) (bool, error) {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("invalid boolean %q (want true or false)", s)
	}
	return v, nil
}

// sizeUnit returns the multiplier for a size suffix, compared
// case-insensitively. KB/MB/GB are decimal (SI) and KiB/MiB/GiB binary (IEC
// 80000-13), so that "64KB" and "64KiB" mean what the standards say they mean.
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
func parseSize(s string) (int, error) {
	t := strings.TrimSpace(s)
	end := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(t)
	}
	n, err := strconv.ParseInt(t[:end], 10, 64)
	unit, ok := sizeUnit(strings.TrimSpace(t[end:]))
	if err != nil || !ok || n > math.MaxInt/unit {
		return 0, sizeError(s)
	}
	return int(n * unit), nil
}
