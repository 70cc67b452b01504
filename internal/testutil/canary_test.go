package testutil

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/ws"
)

// fakeChannel is a WebSocket server that sends every event published
// through publish to its one client, dropping event 2 (answered as
// published), sending event 3 twice and refusing event 4.
type fakeChannel struct {
	conns chan net.Conn
	conn  net.Conn
}

func (f *fakeChannel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, _, _, err := ws.Upgrade(w, r, nil)
	if err == nil {
		f.conns <- conn
	}
}

func (f *fakeChannel) publish(data string) error {
	frame := ws.AppendFrame(nil, ws.OpText, []byte(`{"event":"canary","channel":"c","data":"`+data+`"}`))
	switch data {
	case "2":
		return nil
	case "3":
		frame = append(frame, frame...)
	case "4":
		return errors.New("refused")
	}
	_, err := f.conn.Write(frame)
	return err
}

func TestCanaryCountsMissesAndDuplicates(t *testing.T) {
	f := &fakeChannel{conns: make(chan net.Conn, 1)}
	srv := httptest.NewServer(f)
	defer srv.Close()
	sub := Dial(t, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	f.conn = <-f.conns
	defer f.conn.Close()
	c := StartCanary(sub, "c", f.publish)
	Eventually(t, ReadTimeout, "six canary events", func() bool { return c.Sent() >= 6 })
	c.Stop(CanaryEvery)
	r := c.Report(time.Time{}, time.Time{})
	if r.Sent < 6 || r.Missed != 1 || r.Refused != 1 || r.Duplicates != 1 || len(r.Errors) != 1 || r.Max <= 0 {
		t.Fatalf("report %v (errors %v); want event 2 missed, 4 refused, 3 twice, one publish error", r, r.Errors)
	}
	if r := c.Report(time.Now(), time.Time{}); r.Sent != 0 {
		t.Fatalf("report from now on: %v, want nothing sent", r)
	}
}
