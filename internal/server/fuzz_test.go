package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzLoopHandshake checks the epoll loops' own reading of a request head
// against net/http's routes: a head the loops would upgrade themselves must
// be one the server's route for GET /app/{key} matches, with the same key,
// and which ws.Upgrade would accept. Seeded with the handshakes of
// pusher-js (Node), a browser and the `ws` package.
func FuzzLoopHandshake(f *testing.F) {
	for _, seed := range []string{
		handshakeHead,
		"GET /app/app-key?protocol=7&client=js&version=8.6.0&flash=false HTTP/1.1\r\nHost: 127.0.0.1:6001\r\n" +
			"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" +
			"Sec-WebSocket-Key: x3JJHMbDL1EzLkh9GBhXDw==\r\n\r\n",
		"GET /app/app-key?protocol=7&client=js&version=8.4.0&flash=false HTTP/1.1\r\nHost: localhost:6001\r\n" +
			"Connection: Upgrade\r\nPragma: no-cache\r\nCache-Control: no-cache\r\nUser-Agent: Mozilla/5.0\r\n" +
			"Upgrade: websocket\r\nOrigin: http://localhost:8000\r\nSec-WebSocket-Version: 13\r\n" +
			"Accept-Encoding: gzip, deflate, br\r\nAccept-Language: en-US,en;q=0.9\r\n" +
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
			"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n",
		"GET /app/app%2Dkey?protocol=7 HTTP/1.1\r\nHost: roost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
		"GET /app//app-key?protocol=7 HTTP/1.1\r\nHost: roost\r\n\r\n",
		"POST /apps/app-id/events HTTP/1.1\r\nHost: roost\r\nContent-Length: 2\r\n\r\n{}",
		"GET /up HTTP/1.0\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	s := newServer(f, "epoll", nil)
	f.Cleanup(func() { s.Shutdown(context.Background()) })
	f.Fuzz(func(t *testing.T, head []byte) {
		r, ok := readHead(head)
		if !ok {
			return
		}
		up, ok := s.plainHandshake(r)
		if !ok {
			return
		}
		app := up.App
		if app == nil || up.Key == "" {
			t.Fatalf("upgrade without an app or a key: %q", head)
		}
		var routed string
		mux := http.NewServeMux()
		mux.HandleFunc("GET /app/{key}", func(_ http.ResponseWriter, r *http.Request) { routed = r.PathValue("key") })
		mux.ServeHTTP(httptest.NewRecorder(), r)
		if appKey, _ := appPath(r); routed == "" || routed != appKey || app.Key != appKey {
			t.Fatalf("the loop would upgrade %q for app key %q; net/http routes it to %q", head, appKey, routed)
		}
	})
}
