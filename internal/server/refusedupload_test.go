package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestUnsignedChunkedUploadReads401: a client streaming 10 MB of chunked
// body with a wrong signature reads the 401 it is refused with. The server
// answers before reading the body; if it then closed the socket with the
// body still arriving, the kernel's reset could reach the client before
// the client had read the 401, and the client would see only the reset.
func TestUnsignedChunkedUploadReads401(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		srv := startServer(t, tr, nil)
		// A reader of unknown length makes net/http send the body chunked.
		body := struct{ io.Reader }{strings.NewReader(strings.Repeat("x", 10<<20))}
		query := "auth_key=app-key&auth_timestamp=1&auth_version=1.0&body_md5=0&auth_signature=0"
		req, err := http.NewRequest(http.MethodPost, "http://"+srv.addr+"/apps/app-id/events?"+query, body)
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{Transport: &http.Transport{}, Timeout: waitLimit}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("an unsigned 10 MB chunked upload got %v, want its 401", err)
		}
		defer resp.Body.Close()
		msg, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("the 401's body: %v", err)
		}
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("an unsigned 10 MB chunked upload got %d %q, want 401", resp.StatusCode, msg)
		}
	})
}
