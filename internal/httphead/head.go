package httphead

import "strings"

// Request is a parsed request head. Its strings share the memory of the
// head it was parsed from.
type Request struct {
	Method string // the method token, e.g. "GET"
	Target string // the request-target as sent, e.g. "/app/key?protocol=7"
	Proto  string // the HTTP-version, e.g. "HTTP/1.1"
	fields string // the field lines, each ending in CRLF
}

// Parse reads head, a request head through its empty line (RFC 9112 2.1):
// a request-line and field lines, each ending in CRLF. ok is false for a
// head outside the strict syntax the package doc describes.
func Parse(head string) (r Request, ok bool) {
	line, rest, ok := strings.Cut(head, "\r\n")
	if !ok || !r.requestLine(line) {
		return Request{}, false
	}
	fields, ok := strings.CutSuffix(rest, "\r\n")
	if !ok || !validFields(fields) {
		return Request{}, false
	}
	r.fields = fields
	return r, true
}

// requestLine reads method SP request-target SP HTTP-version (RFC 9112 3),
// with single spaces and no byte outside VCHAR in the target.
func (r *Request) requestLine(line string) bool {
	var ok bool
	if r.Method, line, ok = strings.Cut(line, " "); !ok || !isToken(r.Method) {
		return false
	}
	if r.Target, r.Proto, ok = strings.Cut(line, " "); !ok || !isVisible(r.Target) {
		return false
	}
	return validProto(r.Proto)
}

// validProto accepts HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 2.3).
func validProto(p string) bool {
	return len(p) == 8 && strings.HasPrefix(p, "HTTP/") && isDigit(p[5]) && p[6] == '.' && isDigit(p[7])
}

// validFields checks every field line of fields (each ending in CRLF).
func validFields(fields string) bool {
	for fields != "" {
		line, rest, ok := strings.Cut(fields, "\r\n")
		if !ok {
			return false
		}
		if _, _, ok := fieldLine(line); !ok {
			return false
		}
		fields = rest
	}
	return true
}

// fieldLine splits field-name ":" OWS field-value OWS (RFC 9112 5): the
// name a token with no space before the colon, the value of SP, HTAB,
// VCHAR and obs-text only (so a line that begins with white space, an
// obsolete folding, fails).
func fieldLine(line string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(line, ":")
	if !ok || !isToken(name) || !validValue(value) {
		return "", "", false
	}
	return name, strings.Trim(value, " \t"), true
}

// Fields is a cursor over the field lines of a Request, in order.
type Fields struct{ rest string }

// Fields returns a cursor at the first field line of r.
func (r *Request) Fields() Fields { return Fields{r.fields} }

// Next returns the next field's name, as sent, and its value without the
// white space around it; ok is false after the last.
func (f *Fields) Next() (name, value string, ok bool) {
	if f.rest == "" {
		return "", "", false
	}
	var line string
	line, f.rest, _ = strings.Cut(f.rest, "\r\n")
	return fieldLine(line)
}

// isToken reports a non-empty token (RFC 9110 5.6.2).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isTokenChar(s[i]) {
			return false
		}
	}
	return s != ""
}

// isTokenChar reports a tchar of RFC 9110 5.6.2.
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', isDigit(c):
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// isVisible reports a non-empty run of VCHAR (RFC 5234 B.1).
func isVisible(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return s != ""
}

// validValue reports a field value of SP, HTAB, VCHAR and obs-text (RFC
// 9110 5.5): no control character, CR and LF included.
func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
