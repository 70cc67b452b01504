package server

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/netpoll"
	"github.com/roostproject/roost/internal/ws"
)

// realHandshakes are request heads as real clients send them to roost's
// development app: pusher-js in Chrome, Firefox and Safari (as Laravel Echo
// sends them too), pusher-js under Node, and the `ws` package.
var realHandshakes = []string{
	handshakeHead,
	"GET /app/app-key?protocol=7&client=js&version=8.4.0&flash=false HTTP/1.1\r\nHost: localhost:6001\r\n" +
		"Connection: Upgrade\r\nPragma: no-cache\r\nCache-Control: no-cache\r\n" +
		"User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36\r\n" +
		"Upgrade: websocket\r\nOrigin: http://localhost:8000\r\nSec-WebSocket-Version: 13\r\n" +
		"Accept-Encoding: gzip, deflate, br, zstd\r\nAccept-Language: en-US,en;q=0.9\r\n" +
		"Cookie: XSRF-TOKEN=eyJpdiI6IkJ4; laravel_session=eyJpdiI6Ik1q\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
		"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n",
	"GET /app/app-key?protocol=7&client=js&version=8.4.0&flash=false HTTP/1.1\r\nHost: localhost:6001\r\n" +
		"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0\r\n" +
		"Accept: */*\r\nAccept-Language: en-US,en;q=0.5\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n" +
		"Sec-WebSocket-Version: 13\r\nOrigin: http://localhost:8000\r\n" +
		"Sec-WebSocket-Extensions: permessage-deflate\r\nSec-WebSocket-Key: x3JJHMbDL1EzLkh9GBhXDw==\r\n" +
		"Connection: keep-alive, Upgrade\r\nSec-Fetch-Dest: empty\r\nSec-Fetch-Mode: websocket\r\n" +
		"Sec-Fetch-Site: same-site\r\nPragma: no-cache\r\nCache-Control: no-cache\r\nUpgrade: websocket\r\n\r\n",
	"GET /app/app-key?protocol=7&client=js&version=8.4.0&flash=false HTTP/1.1\r\nHost: localhost:6001\r\n" +
		"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: AQIDBAUGBwgJCgsMDQ4PEC==\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Extensions: permessage-deflate\r\nOrigin: http://localhost:8000\r\n" +
		"Pragma: no-cache\r\nCache-Control: no-cache\r\nAccept-Language: en-GB,en;q=0.9\r\n" +
		"User-Agent: Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15\r\n" +
		"Accept-Encoding: gzip, deflate\r\n\r\n",
	"GET /app/app-key?protocol=7&client=node&version=8.4.0&flash=false HTTP/1.1\r\nHost: 127.0.0.1:6001\r\n" +
		"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" +
		"Sec-WebSocket-Key: x3JJHMbDL1EzLkh9GBhXDw==\r\n\r\n",
	// As nginx forwards it (deploy/nginx/roost.conf).
	"GET /app/app-key?protocol=7&client=js&version=8.4.0&flash=false HTTP/1.1\r\nUpgrade: websocket\r\n" +
		"Connection: upgrade\r\nHost: realtime.example.com\r\nX-Forwarded-For: 203.0.113.7\r\n" +
		"X-Forwarded-Proto: https\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
		"Origin: https://app.example.com\r\n\r\n",
	"GET /app/app-key?protocol=7&client=js&version=8.4.0&flash=false HTTP/1.1\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nConnection: Upgrade\r\n" +
		"Upgrade: websocket\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" +
		"Host: 127.0.0.1:6001\r\n\r\n",
}

// TestLoopReadsRealHandshakes: the heads real clients send are upgraded on
// the loop, with what net/http and ws.Upgrade read from them.
func TestLoopReadsRealHandshakes(t *testing.T) {
	s := newServer(t, "epoll", nil)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	for _, head := range realHandshakes {
		got, ok := loopUpgrade(s, []byte(head))
		want, wantOK := netHTTPUpgrade(s, []byte(head))
		if !ok || !wantOK || got != want {
			t.Errorf("loop %+v (%v), net/http %+v (%v), for\n%s", got, ok, want, wantOK, head)
		}
	}
}

// FuzzLoopHandshake checks the epoll loops' own reading of a request head
// against net/http's: a head the loops would upgrade themselves must be one
// that http.ReadRequest reads, that the route for GET /app/{key} matches
// and that ws.Upgrade would accept, for the same app, query, client key and
// extensions. Seeded with real clients' handshakes and near misses.
func FuzzLoopHandshake(f *testing.F) {
	for _, seed := range append(realHandshakes,
		"GET /app/app%2Dkey?protocol=7 HTTP/1.1\r\nHost: roost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
		strings.Replace(handshakeHead, "Host: roost\r\n", "Host: roost\r\nHost: other\r\n", 1),
		strings.Replace(handshakeHead, "Host: roost\r\n", "Host: roost\r\nContent-Length: 0\r\n", 1),
		strings.Replace(handshakeHead, "Host: roost\r\n", "Host: roost\r\n folded\r\n", 1),
		strings.Replace(handshakeHead, "\r\n", "\n", -1),
		"GET /app//app-key?protocol=7 HTTP/1.1\r\nHost: roost\r\n\r\n",
		"POST /apps/app-id/events HTTP/1.1\r\nHost: roost\r\nContent-Length: 2\r\n\r\n{}",
		"GET /up HTTP/1.0\r\n\r\n",
	) {
		f.Add([]byte(seed))
	}
	s := newServer(f, "epoll", nil)
	f.Cleanup(func() { s.Shutdown(context.Background()) })
	f.Fuzz(func(t *testing.T, head []byte) {
		got, ok := loopUpgrade(s, head)
		if !ok {
			return
		}
		if got.app == "" || got.key == "" {
			t.Fatalf("upgrade without an app or a key: %q", head)
		}
		if want, ok := netHTTPUpgrade(s, head); !ok || got != want {
			t.Fatalf("the loop would upgrade %q as %+v; net/http: %+v (upgrades: %v)", head, got, want, ok)
		}
	})
}

// upgraded is what an upgrade decided: the app, the query the protocol is
// read from, the client's key and the extensions of the 101.
type upgraded struct{ app, query, key, extensions string }

// fuzzClient is the address the fuzzed handshakes come from.
var fuzzClient = netip.MustParseAddr("127.0.0.1")

// loopUpgrade is what the loop decides about head: upgraded on the loop,
// or not (handed to net/http, or refused).
func loopUpgrade(s *Server, head []byte) (upgraded, bool) {
	up, _ := s.Handshake(7, head, fuzzClient)
	if up.App == nil {
		return upgraded{}, false
	}
	s.door.Release(s.fds.take(7))
	var r loopRequest
	readLoopRequest(head, &r)
	return upgradedOf(up, string(r.query)), true
}

func upgradedOf(up netpoll.Accepted, query string) upgraded {
	if up.App == nil {
		return upgraded{}
	}
	return upgraded{app: up.App.Key, query: query, key: up.Key, extensions: up.Extensions}
}

// netHTTPUpgrade is what the loop decided about head when it read it with
// http.ReadRequest: the request net/http's server reads, routed by its mux.
func netHTTPUpgrade(s *Server, head []byte) (upgraded, bool) {
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
	if err != nil {
		return upgraded{}, false
	}
	appKey, ok := appPath(r)
	if !ok || !plainRequest(r) || !plainHost(r.Host) {
		return upgraded{}, false
	}
	var routed string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /app/{key}", func(_ http.ResponseWriter, r *http.Request) { routed = r.PathValue("key") })
	mux.ServeHTTP(httptest.NewRecorder(), r)
	if routed != appKey {
		return upgraded{}, false
	}
	key, herr := ws.CheckHandshake(r)
	if herr != nil {
		return upgraded{}, false
	}
	r.RemoteAddr = netip.AddrPortFrom(fuzzClient, 1).String()
	d := s.door.Admit(context.Background(), sessionRequest(r, admission.Epoll, appKey))
	if d.Kind != admission.Admit {
		return upgraded{}, false
	}
	s.door.Release(d.Ticket)
	up := netpoll.Accepted{App: d.App, Key: key}
	up.Extensions, _ = ws.Negotiate(r.Header, upgradeOptions(d.App))
	return upgradedOf(up, r.URL.RawQuery), true
}

// appPath returns the {key} of GET /app/{key} when the path needs no
// unescaping or cleaning, as the route would match it.
func appPath(r *http.Request) (string, bool) {
	if r.Method != http.MethodGet || r.URL.RawPath != "" || r.URL.Host != "" || !strings.HasPrefix(r.RequestURI, "/") {
		return "", false
	}
	key, ok := strings.CutPrefix(r.URL.Path, "/app/")
	if !ok || key == "" || key == "." || key == ".." || strings.ContainsAny(key, "/%") {
		return "", false
	}
	return key, true
}

// plainRequest reports an HTTP/1.1 request that net/http's server would
// accept as it is: one Host (http.ReadRequest refuses two), no body, no
// Expect, and header values without control characters.
func plainRequest(r *http.Request) bool {
	if r.ProtoMajor != 1 || r.ProtoMinor != 1 || r.ContentLength != 0 || len(r.TransferEncoding) > 0 || r.Header["Expect"] != nil {
		return false
	}
	for _, vv := range r.Header {
		for _, v := range vv {
			if strings.ContainsFunc(v, func(c rune) bool { return c < ' ' && c != '\t' || c == 0x7f }) {
				return false
			}
		}
	}
	return true
}
