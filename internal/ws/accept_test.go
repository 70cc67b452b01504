package ws

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// rfcKey and rfcAccept are the example of RFC 6455 section 1.3.
const (
	rfcKey    = "dGhlIHNhbXBsZSBub25jZQ=="
	rfcAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
)

func TestAcceptKey(t *testing.T) {
	if got := AcceptKey(rfcKey); got != rfcAccept {
		t.Errorf("AcceptKey(%q) = %q, want %q", rfcKey, got, rfcAccept)
	}
	long := strings.Repeat("k", 100) // not a valid key, but AcceptKey must not care
	if AcceptKey(long) == "" {
		t.Error("AcceptKey of a long key is empty")
	}
}

// upgraded is what Upgrade returned in a test server's handler.
type upgraded struct {
	conn     net.Conn
	buffered []byte
	st       State
	err      error
}

// startUpgradeServer runs a server whose handler calls Upgrade and reports
// the result.
func startUpgradeServer(t *testing.T) (string, <-chan upgraded) {
	return startUpgradeServerWith(t, nil)
}

// startUpgradeServerWith is startUpgradeServer with Upgrade's options.
func startUpgradeServerWith(t *testing.T, opts *UpgradeOptions) (string, <-chan upgraded) {
	results := make(chan upgraded, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buffered, st, err := Upgrade(w, r, opts)
		results <- upgraded{conn, buffered, st, err}
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), results
}

// sendRaw writes raw bytes to addr and reads the HTTP response.
func sendRaw(t *testing.T, addr, raw string) (*http.Response, *bufio.Reader, net.Conn) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp, br, conn
}

func handshakeLines(lines ...string) string {
	return strings.Join(append(lines, "", ""), "\r\n")
}

var goodRequest = []string{
	"GET /app/278d425bdf160c739803?protocol=7&client=js&version=8.6.0&flash=false HTTP/1.1",
	"Host: localhost",
	"Upgrade: websocket",
	"Connection: keep-alive, Upgrade",
	"Sec-WebSocket-Version: 13",
	"Sec-WebSocket-Key: " + rfcKey,
	"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits",
	"Sec-WebSocket-Protocol: chat",
}

// TestUpgrade sends a handshake and a first frame in one write, as an eager
// client may: the frame must come back as the buffered bytes.
func TestUpgrade(t *testing.T) {
	addr, results := startUpgradeServer(t)
	frame := text(`{"event":"pusher:ping","data":{}}`)
	resp, br, _ := sendRaw(t, addr, handshakeLines(goodRequest...)+string(frame))
	res := <-results
	if res.err != nil {
		t.Fatalf("Upgrade: %v", res.err)
	}
	defer res.conn.Close()
	checkSwitchingResponse(t, resp)
	if string(res.buffered) != string(frame) {
		t.Errorf("buffered %q, want the frame %q", res.buffered, frame)
	}
	if _, err := res.conn.Write(AppendFrame(nil, OpText, []byte("hi"))); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if _, err := io.ReadFull(br, got); err != nil || string(got) != "\x81\x02hi" {
		t.Errorf("client read %q, %v after the upgrade", got, err)
	}
}

func checkSwitchingResponse(t *testing.T, resp *http.Response) {
	t.Helper()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %s", resp.Status)
	}
	if err := checkSwitching(resp, rfcKey); err != nil {
		t.Error(err)
	}
	for _, h := range []string{"Sec-WebSocket-Extensions", "Sec-WebSocket-Protocol"} {
		if v := resp.Header.Get(h); v != "" {
			t.Errorf("response accepted %s: %q", h, v)
		}
	}
}

// TestUpgradeDeflate accepts a client's permessage-deflate offer when the
// server allows it, and only then.
func TestUpgradeDeflate(t *testing.T) {
	for _, c := range []struct {
		name  string
		opts  *UpgradeOptions
		offer string
		want  string
	}{
		{"allowed", &UpgradeOptions{Deflate: true}, "permessage-deflate; client_max_window_bits", DeflateResponse},
		{"not allowed", nil, "permessage-deflate; client_max_window_bits", ""},
		{"not offered", &UpgradeOptions{Deflate: true}, "", ""},
		{"unacceptable offer", &UpgradeOptions{Deflate: true}, "permessage-deflate; server_max_window_bits=9", ""},
		{"window echoed", &UpgradeOptions{Deflate: true}, "permessage-deflate; server_max_window_bits=15", DeflateResponse + "; server_max_window_bits=15"},
	} {
		addr, results := startUpgradeServerWith(t, c.opts)
		req := slices.DeleteFunc(slices.Clone(goodRequest), func(l string) bool { return strings.HasPrefix(l, "Sec-WebSocket-Extensions") })
		if c.offer != "" {
			req = append(req, "Sec-WebSocket-Extensions: "+c.offer)
		}
		resp, _, _ := sendRaw(t, addr, handshakeLines(req...))
		res := <-results
		if res.err != nil {
			t.Fatalf("%s: Upgrade: %v", c.name, res.err)
		}
		res.conn.Close()
		got := resp.Header.Get("Sec-WebSocket-Extensions")
		if got != c.want || res.st.Deflate() != (c.want != "") {
			t.Errorf("%s: response %q, state deflate %v; want %q", c.name, got, res.st.Deflate(), c.want)
		}
	}
}

func TestUpgradeRejects(t *testing.T) {
	without := func(prefix string) []string {
		var out []string
		for _, l := range goodRequest {
			if !strings.HasPrefix(l, prefix) {
				out = append(out, l)
			}
		}
		return out
	}
	replace := func(prefix, line string) []string { return append(without(prefix), line) }
	tests := []struct {
		name    string
		request []string
		status  int
		header  string // a header the rejection must carry, "Name: value"
	}{
		{"POST", append([]string{"POST /app/x HTTP/1.1"}, goodRequest[1:]...), 405, "Allow: GET"},
		{"HTTP/1.0", append([]string{"GET /app/x HTTP/1.0"}, goodRequest[1:]...), 400, ""},
		{"no Upgrade", without("Upgrade:"), 426, "Upgrade: websocket"},
		{"Upgrade h2c", replace("Upgrade:", "Upgrade: h2c"), 426, "Upgrade: websocket"},
		{"no Connection upgrade", replace("Connection:", "Connection: keep-alive"), 426, "Sec-WebSocket-Version: 13"},
		{"no version", without("Sec-WebSocket-Version:"), 426, "Sec-WebSocket-Version: 13"},
		{"version 8", replace("Sec-WebSocket-Version:", "Sec-WebSocket-Version: 8"), 426, "Sec-WebSocket-Version: 13"},
		{"no key", without("Sec-WebSocket-Key:"), 400, ""},
		{"short key", replace("Sec-WebSocket-Key:", "Sec-WebSocket-Key: c2hvcnQ="), 400, ""},
		{"key not base64", replace("Sec-WebSocket-Key:", "Sec-WebSocket-Key: !!!!!!!!!!!!!!!!!!!!!!=="), 400, ""},
		{"key of 18 bytes", replace("Sec-WebSocket-Key:", "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAAAA"), 400, ""},
		{"two keys", append(without("Sec-WebSocket-Key:"), "Sec-WebSocket-Key: "+rfcKey, "Sec-WebSocket-Key: "+rfcKey), 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, results := startUpgradeServer(t)
			resp, _, _ := sendRaw(t, addr, handshakeLines(tt.request...))
			res := <-results
			var herr *HandshakeError
			if !errors.As(res.err, &herr) || herr.Status != tt.status || resp.StatusCode != tt.status {
				t.Fatalf("status %d, Upgrade error %v; want %d", resp.StatusCode, res.err, tt.status)
			}
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			if !strings.Contains(string(body), herr.Reason) {
				t.Errorf("body %q does not explain %q", body, herr.Reason)
			}
			if name, value, ok := strings.Cut(tt.header, ": "); ok && resp.Header.Get(name) != value {
				t.Errorf("%s: %q, want %q", name, resp.Header.Get(name), value)
			}
		})
	}
}

func TestUpgradeWithoutHijacker(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/app/x", nil)
	for _, l := range goodRequest[2:] {
		name, value, _ := strings.Cut(l, ": ")
		r.Header.Add(name, value)
	}
	w := httptest.NewRecorder()
	if _, _, _, err := Upgrade(w, r, nil); err == nil || w.Code != http.StatusInternalServerError {
		t.Errorf("Upgrade on a recorder: err %v, status %d", err, w.Code)
	}
}
