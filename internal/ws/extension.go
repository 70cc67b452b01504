package ws

import "strings"

// DeflateResponse is the Sec-WebSocket-Extensions value with which roost
// accepts a permessage-deflate offer (RFC 7692 5 and 7.1). Both no-context-
// takeover parameters are always included, which 7.1.1.1 and 7.1.1.2 allow
// in any response: server_no_context_takeover lets one compressed frame
// serve every subscriber of a publish, and client_no_context_takeover lets
// roost inflate each client message on its own, so a connection keeps no
// compression window between messages. An offer with
// server_max_window_bits=15 gets the parameter back (7.1.2.1:
// acceptance echoes it): DeflateResponse + deflateWindowParam.
const DeflateResponse = "permessage-deflate; server_no_context_takeover; client_no_context_takeover"

// deflateWindowParam is what accepting server_max_window_bits=15 adds.
const deflateWindowParam = "; server_max_window_bits=15"

// deflateName is the extension's registered name (RFC 7692 5).
const deflateName = "permessage-deflate"

// NegotiateDeflate looks in the Sec-WebSocket-Extensions header values of
// a handshake for the first permessage-deflate offer roost can accept and
// returns the response that accepts it (DeflateResponse, with the window
// parameter echoed if the offer had it); ok is false when there is none.
// An offer is declined (RFC 7692 5.1) when a parameter is unknown, repeated
// or has a bad value, and when it asks for a server window under 15 bits,
// which compress/flate cannot keep to. A header line that does not parse
// (RFC 6455 9.1) offers nothing.
func NegotiateDeflate(values []string) (response string, ok bool) {
	for _, v := range values {
		if response, ok = acceptIn(v); ok {
			return response, true
		}
	}
	return "", false
}

// AcceptDeflate reports whether NegotiateDeflate finds an offer to accept.
func AcceptDeflate(values []string) bool {
	_, ok := NegotiateDeflate(values)
	return ok
}

// acceptIn returns the response to the first acceptable offer among the
// extensions of one header line, after checking that the whole line parses.
func acceptIn(v string) (response string, ok bool) {
	p := extParser{s: v}
	for !p.done() {
		name, params, parsed := p.extension()
		if !parsed {
			return "", false
		}
		if window, good := deflateParamsOK(params); good && !ok && strings.EqualFold(name, deflateName) {
			response, ok = DeflateResponse, true
			if window {
				response += deflateWindowParam
			}
		}
	}
	return response, ok
}

// extParam is one extension parameter; value is "" when it has none.
type extParam struct {
	name, value string
	hasValue    bool
}

// deflateParamsOK applies RFC 7692 7.1 to the parameters of one offer;
// window reports a server_max_window_bits to echo.
func deflateParamsOK(params []extParam) (window, ok bool) {
	seen := map[string]bool{}
	for _, p := range params {
		name := strings.ToLower(p.name)
		if seen[name] {
			return false, false // 7.1: a parameter may appear once
		}
		seen[name] = true
		if !deflateParamOK(name, p) {
			return false, false
		}
	}
	return seen["server_max_window_bits"], true
}

// deflateParamOK checks one parameter of an offer by name.
func deflateParamOK(name string, p extParam) bool {
	switch name {
	case "server_no_context_takeover", "client_no_context_takeover":
		return !p.hasValue // 7.1.1.1, 7.1.1.2
	case "server_max_window_bits":
		return p.hasValue && p.value == "15" // 7.1.2.1: roost's window is 15 bits
	case "client_max_window_bits":
		return !p.hasValue || windowBits(p.value) // 7.1.2.2: the client's own limit
	}
	return false
}

// windowBits reports a window size of 8 to 15 bits written as 1*DIGIT
// without leading zeros (RFC 7692 7.1.2.1).
func windowBits(v string) bool {
	switch v {
	case "8", "9", "10", "11", "12", "13", "14", "15":
		return true
	}
	return false
}

// extParser reads the grammar of RFC 6455 9.1:
//
//	extension-list = 1#extension
//	extension = extension-token *( ";" extension-param )
//	extension-param = token [ "=" (token | quoted-string) ]
//
// with optional whitespace around separators.
type extParser struct {
	s string
	i int
}

// done skips whitespace and empty list elements and reports the end.
func (p *extParser) done() bool {
	for p.i < len(p.s) && (isOWS(p.s[p.i]) || p.s[p.i] == ',') {
		p.i++
	}
	return p.i >= len(p.s)
}

// extension reads one extension and its parameters, up to and including
// the comma that ends it.
func (p *extParser) extension() (name string, params []extParam, ok bool) {
	if name = p.token(); name == "" {
		return "", nil, false
	}
	for {
		p.skipOWS()
		if p.i >= len(p.s) || p.s[p.i] == ',' {
			return name, params, true
		}
		if p.s[p.i] != ';' {
			return "", nil, false
		}
		p.i++
		param, ok := p.param()
		if !ok {
			return "", nil, false
		}
		params = append(params, param)
	}
}

// param reads token [ "=" (token | quoted-string) ].
func (p *extParser) param() (extParam, bool) {
	p.skipOWS()
	var e extParam
	if e.name = p.token(); e.name == "" {
		return e, false
	}
	p.skipOWS()
	if p.i >= len(p.s) || p.s[p.i] != '=' {
		return e, true
	}
	p.i++
	p.skipOWS()
	e.hasValue = true
	if p.i < len(p.s) && p.s[p.i] == '"' {
		v, ok := p.quoted()
		e.value = v
		// RFC 7692 7.1: a quoted value must still be a token.
		return e, ok && v != "" && strings.IndexFunc(v, func(r rune) bool { return r > 0x7f || !isTokenChar(byte(r)) }) < 0
	}
	e.value = p.token()
	return e, e.value != ""
}

// quoted reads a quoted-string (RFC 9110 5.6.4) and returns its content.
func (p *extParser) quoted() (string, bool) {
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return b.String(), true
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			b.WriteByte(p.s[p.i])
		case c == '\\' || c < 0x20 && c != '\t' || c == 0x7f:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// token reads a token (RFC 9110 5.6.2), "" when none starts here.
func (p *extParser) token() string {
	start := p.i
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *extParser) skipOWS() {
	for p.i < len(p.s) && isOWS(p.s[p.i]) {
		p.i++
	}
}

func isOWS(c byte) bool { return c == ' ' || c == '\t' }

// isTokenChar reports a tchar of RFC 9110 5.6.2.
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
