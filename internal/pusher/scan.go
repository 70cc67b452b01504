package pusher

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// cursor walks the members of a JSON object or the elements of a JSON array
// in a document that json.Valid has accepted, so it can skip values without
// checking their syntax again. It matches keys exactly, as JavaScript does,
// where encoding/json would match them case-insensitively.
type cursor struct {
	b []byte
	i int // index just past the last value returned (or the opening bracket)
}

// open returns a cursor over b if b, with surrounding white space, is a
// valid JSON value that starts with the bracket want ('{' or '[').
func open(b []byte, want byte) (cursor, bool) {
	if !json.Valid(b) {
		return cursor{}, false
	}
	i := skipSpace(b, 0)
	if b[i] != want {
		return cursor{}, false
	}
	return cursor{b: b, i: i + 1}, true
}

// member returns the raw key (quotes included) and raw value of the next
// object member, or ok false at the closing brace.
func (c *cursor) member() (key, val []byte, ok bool) {
	i, ok := c.start()
	if !ok {
		return nil, nil, false
	}
	k := skipString(c.b, i)
	v := skipSpace(c.b, skipSpace(c.b, k)+1) // past the colon
	c.i = skipValue(c.b, v)
	return c.b[i:k], c.b[v:c.i], true
}

// element returns the raw next array element, or ok false at the closing
// bracket.
func (c *cursor) element() (val []byte, ok bool) {
	i, ok := c.start()
	if !ok {
		return nil, false
	}
	c.i = skipValue(c.b, i)
	return c.b[i:c.i], true
}

// start skips white space and a separating comma and reports whether an
// item starts there rather than the closing bracket.
func (c *cursor) start() (int, bool) {
	i := skipSpace(c.b, c.i)
	if c.b[i] == ',' {
		i = skipSpace(c.b, i+1)
	}
	return i, c.b[i] != '}' && c.b[i] != ']'
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the valid JSON value at i.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	}
	for i < len(b) && !endsLiteral(b[i]) {
		i++
	}
	return i
}

// endsLiteral reports whether c ends a number, true, false or null.
func endsLiteral(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// skipString returns the index just past the string whose quote is at i.
func skipString(b []byte, i int) int {
	for i++; ; i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}

// skipNested returns the index just past the object or array at i.
func skipNested(b []byte, i int) int {
	depth := 0
	for ; ; i++ {
		switch b[i] {
		case '"':
			i = skipString(b, i) - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
}

// keyIs reports whether the raw key decodes to name.
func keyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1:len(raw)-1]) == name
	}
	s, _ := unquote(raw)
	return s == name
}

// unquote decodes a raw JSON string, reporting false if raw is not one.
// Plain ASCII or valid UTF-8 without escapes is copied directly; anything
// else goes through encoding/json, which decodes escapes and surrogate pairs
// and turns invalid UTF-8 into U+FFFD.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// isNull reports whether the raw value is the literal null.
func isNull(raw []byte) bool { return string(raw) == "null" }
