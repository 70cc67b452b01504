package session

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// BenchmarkPing is what an idle pusher-js connection costs the server
// every activity_timeout: one pusher:ping answered.
func BenchmarkPing(b *testing.B) {
	r := newFixture(b, nil).connect()
	r.discard = true
	ping := []byte(`{"event":"pusher:ping","data":{}}`)
	b.ReportAllocs()
	for b.Loop() {
		r.call().HandleText(ping)
	}
}

// TestPingAllocatesNothing guards the upkeep of an idle connection.
func TestPingAllocatesNothing(t *testing.T) {
	r := newFixture(t, nil).connect()
	r.discard = true
	ping := []byte(`{"event":"pusher:ping","data":{}}`)
	if n := testing.AllocsPerRun(100, func() { r.call().HandleText(ping) }); n != 0 {
		t.Fatalf("a pusher:ping costs %v allocations, want 0", n)
	}
}

// BenchmarkOwnChannelBytes reports what an idle connection subscribed to a
// channel of its own (private-user-123 style) costs the heap: the Session a
// transport embeds in its connection, and what the session and the hub
// allocate besides it (the subscription, the channel, its name, its slot in
// the app's table), for 10,000 connections.
func BenchmarkOwnChannelBytes(b *testing.B) {
	const n = 10000
	msgs := make([][]byte, n)
	for j := range msgs {
		msgs[j] = []byte(subscribe(fmt.Sprint("user-", j), "", ""))
	}
	b.ReportAllocs()
	for b.Loop() {
		f := newFixture(b, nil)
		conns := make([]recorder, n)
		for j := range conns {
			conns[j] = recorder{f: f, discard: true}
			conns[j].call().Init(&f.env.Config.Apps[0])
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for j := range conns {
			conns[j].call().HandleText(msgs[j])
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/subscribed")
		b.ReportMetric(float64(unsafe.Sizeof(Session{})), "B/session")
		runtime.KeepAlive(conns)
	}
}

// BenchmarkConnectSubscribe is the session's share of what roost bench
// churn measures: pusher:connection_established, a subscription to a
// public channel of its own and its answer, then the close.
func BenchmarkConnectSubscribe(b *testing.B) {
	f := newFixture(b, nil)
	msg := []byte(subscribe("churn-1", "", ""))
	b.ReportAllocs()
	for b.Loop() {
		r := recorder{f: f, discard: true}
		r.call().Init(&f.env.Config.Apps[0])
		r.call().HandleText(msg)
		r.call().Closed()
	}
}
