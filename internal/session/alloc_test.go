package session

import "testing"

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
