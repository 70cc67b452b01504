package bench

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// Real server messages, as roost writes them.
var serverMessages = []string{
	`{"event":"pusher:connection_established","data":"{\"socket_id\":\"123.456\",\"activity_timeout\":120}"}`,
	`{"event":"pusher_internal:subscription_succeeded","channel":"bench-p0","data":"{}"}`,
	`{"event":"pusher:pong","data":{}}`,
	`{"event":"bench-ts","channel":"bench-p0","data":"1796041578123456789"}`,
	`{"event":"pusher:error","data":{"code":4001,"message":"unknown app key"}}`,
}

func TestEventParsing(t *testing.T) {
	tests := []struct {
		msg   string
		event string
		stamp int64
	}{
		{serverMessages[0], "pusher:connection_established", 0},
		{serverMessages[3], BenchEvent, 1796041578123456789},
		{`{"channel":"x","event":"late"}`, "", 0},
		{`{"event":"unterminated`, "", 0},
	}
	for _, tt := range tests {
		if got := eventName([]byte(tt.msg)); got != tt.event {
			t.Errorf("eventName(%s) = %q, want %q", tt.msg, got, tt.event)
		}
		if got, ok := eventStamp([]byte(tt.msg)); got != tt.stamp || ok != (tt.stamp != 0) {
			t.Errorf("eventStamp(%s) = %d %v, want %d", tt.msg, got, ok, tt.stamp)
		}
	}
	if d, err := established([]byte(serverMessages[0])); err != nil || d != 120*time.Second {
		t.Errorf("established = %v, %v; want 2m0s", d, err)
	}
	for _, bad := range []string{serverMessages[2], `{"event":"pusher:connection_established","data":"{\"activity_timeout\":0}"}`} {
		if _, err := established([]byte(bad)); err == nil {
			t.Errorf("established(%s): no error", bad)
		}
	}
}

// FuzzServerMessage feeds the load worker's message parsers arbitrary
// bytes seeded with real server messages: they must never panic, and an
// event name they find must be in the message.
func FuzzServerMessage(f *testing.F) {
	for _, m := range serverMessages {
		f.Add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		if ev := eventName(msg); ev != "" && !bytes.Contains(msg, []byte(ev)) {
			t.Fatalf("event %q not in %q", ev, msg)
		}
		eventStamp(msg)
		if d, err := established(msg); err == nil && d <= 0 {
			t.Fatalf("established accepted a non-positive timeout %v", d)
		}
	})
}

// FuzzHistogramJSON decodes arbitrary histogram lines, seeded with a real
// worker reply: no panic, and whatever decodes re-encodes and decodes to
// the same count.
func FuzzHistogramJSON(f *testing.F) {
	var h Histogram
	for _, v := range []int64{3, 900, 1500000, 73000000} {
		h.Record(v)
	}
	seed, _ := json.Marshal(&h)
	f.Add(seed)
	f.Add([]byte(`{"buckets":[],"max":0}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var h Histogram
		if json.Unmarshal(raw, &h) != nil {
			return
		}
		again, err := json.Marshal(&h)
		if err != nil {
			t.Fatal(err)
		}
		var back Histogram
		if err := json.Unmarshal(again, &back); err != nil || back.Count() != h.Count() {
			t.Fatalf("round trip: %v, count %d != %d", err, back.Count(), h.Count())
		}
		h.Percentile(99)
	})
}

func TestEstablishedRejectsHugeTimeout(t *testing.T) {
	msg := `{"event":"pusher:connection_established","data":"{\"activity_timeout\":99999999999999}"}`
	if _, err := established([]byte(msg)); err == nil {
		t.Fatal("an activity timeout that overflows a Duration was accepted")
	}
}
