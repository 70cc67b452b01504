package httphead

import (
	"bufio"
	"errors"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"testing"
)

const browserHead = "GET /app/key?protocol=7 HTTP/1.1\r\nHost: localhost:6001\r\n" +
	"Upgrade: websocket\r\nConnection:  keep-alive, Upgrade \t\r\nUser-Agent: Mozilla/5.0 (\xc3\xa9)\r\n" +
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"

// TestParse reads the request line and every field, values trimmed.
func TestParse(t *testing.T) {
	r, ok := Parse(browserHead)
	if !ok || r.Method != "GET" || r.Target != "/app/key?protocol=7" || r.Proto != "HTTP/1.1" {
		t.Fatalf("Parse: %+v, %v", r, ok)
	}
	want := []string{"Host", "localhost:6001", "Upgrade", "websocket", "Connection", "keep-alive, Upgrade",
		"User-Agent", "Mozilla/5.0 (\xc3\xa9)", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}
	var got []string
	for f := r.Fields(); ; {
		name, value, ok := f.Next()
		if !ok {
			break
		}
		got = append(got, name, value)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("fields %q, want %q", got, want)
	}
}

// TestParseDeclines: each head outside the strict syntax is not parsed.
func TestParseDeclines(t *testing.T) {
	for _, head := range []string{
		"GET /app/key HTTP/1.1\nHost: x\n\n",             // bare LF
		"GET /app/key HTTP/1.1\r\nHost: x\r\n",           // no empty line
		"GET  /app/key HTTP/1.1\r\nHost: x\r\n\r\n",      // two spaces
		"GET /app/key HTTP/1.1 \r\nHost: x\r\n\r\n",      // a space after the version
		"GET /app/k\x01y HTTP/1.1\r\nHost: x\r\n\r\n",    // a control character in the target
		"GET /app/k\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n", // a byte over 0x7e in the target
		"GET /app/key HTTP/11\r\nHost: x\r\n\r\n",
		"G(T /app/key HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /app/key HTTP/1.1\r\nHost : x\r\n\r\n",      // a space before the colon
		"GET /app/key HTTP/1.1\r\n Host: x\r\n\r\n",      // folding
		"GET /app/key HTTP/1.1\r\nHost: x\r\n y\r\n\r\n", // folding
		"GET /app/key HTTP/1.1\r\nHost x\r\n\r\n",        // no colon
		"GET /app/key HTTP/1.1\r\n: x\r\n\r\n",           // no name
		"GET /app/key HTTP/1.1\r\nHost: x\ry\r\n\r\n",    // a CR in a value
		"GET /app/key HTTP/1.1\r\nHost: x\x00\r\n\r\n",   // a NUL in a value
		"GET /app/key HTTP/1.1\r\nHost: x\x7f\r\n\r\n",   // a DEL in a value
	} {
		if r, ok := Parse(head); ok {
			t.Errorf("Parse(%q) = %+v, want not parsed", head, r)
		}
	}
}

// TestParseAllocatesNothing guards the loops' hot path.
func TestParseAllocatesNothing(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		r, _ := Parse(browserHead)
		for f := r.Fields(); ; {
			if _, _, ok := f.Next(); !ok {
				break
			}
		}
	})
	if n != 0 {
		t.Fatalf("%v allocations per head, want 0", n)
	}
}

// FuzzParse: a head Parse reads, http.ReadRequest reads too, with the same
// method, target, version and field values (in order, per canonical name).
func FuzzParse(f *testing.F) {
	f.Add(browserHead)
	f.Add("POST /apps/1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n")
	f.Add("GET / HTTP/1.0\r\n\r\n")
	f.Fuzz(func(t *testing.T, head string) {
		r, ok := Parse(head)
		if !ok {
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(head)))
		if err != nil {
			var badURL *url.Error
			if errors.As(err, &badURL) {
				return // a target net/url refuses: for the caller to decline
			}
			if strings.Contains(err.Error(), "Host") || strings.Contains(err.Error(), "Content-Length") ||
				strings.Contains(err.Error(), "Transfer-Encoding") || strings.Contains(err.Error(), "malformed HTTP version") ||
				strings.Contains(err.Error(), "invalid method") || strings.Contains(err.Error(), "invalid URI") ||
				strings.Contains(err.Error(), "missing form body") {
				return // field semantics, or a target net/url refuses: for the caller to decline
			}
			t.Fatalf("Parse read %q; http.ReadRequest: %v", head, err)
		}
		if req.Method != r.Method || req.RequestURI != r.Target || req.Proto != r.Proto {
			t.Fatalf("%q: Parse %q %q %q, net/http %q %q %q", head, r.Method, r.Target, r.Proto, req.Method, req.RequestURI, req.Proto)
		}
		seen := map[string]int{}
		for fs := r.Fields(); ; {
			name, value, ok := fs.Next()
			if !ok {
				break
			}
			key := textproto.CanonicalMIMEHeaderKey(name)
			if key == "Host" {
				continue // net/http moves it to req.Host
			}
			if vv := req.Header[key]; seen[key] >= len(vv) || vv[seen[key]] != value {
				t.Fatalf("%q: field %q is %q; net/http has %q", head, name, value, vv)
			}
			seen[key]++
		}
	})
}
