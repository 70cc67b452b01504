package pusher

import (
	"strings"
	"testing"
)

// TestAppendEventNoAlloc guards the fan-out path: encoding a publish into a
// big-enough buffer must not allocate.
func TestAppendEventNoAlloc(t *testing.T) {
	data := `{"message":"h\u00e9llo \"world\"","n":42}` + "\u2028\xff"
	buf := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendEvent(buf[:0], "new-message", "private-chat-room-1", data)
		buf = AppendEventUser(buf, "client-typing", "presence-room", data, "user-1")
		buf = AppendMemberAdded(buf, "presence-room", Member{UserID: "user-1", UserInfo: []byte(`{"a":1}`)})
		buf = AppendError(buf, ClientRateLimit, ClientRateLimit.Text())
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

func benchmarkAppendEvent(b *testing.B, data string) {
	buf := make([]byte, 0, 2*len(data)+256)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		buf = AppendEvent(buf[:0], "new-message", "presence-chat-room-1", data)
	}
}

func BenchmarkAppendEventSmall(b *testing.B) {
	benchmarkAppendEvent(b, `{"message":"hello world","user":"alice","ts":1700000000}`)
}

func BenchmarkAppendEvent1KB(b *testing.B) {
	benchmarkAppendEvent(b, `{"text":"`+strings.Repeat("lorem ipsum dolor sit amet, ", 36)+`"}`)
}

func BenchmarkAppendEvent1KBUnicode(b *testing.B) {
	benchmarkAppendEvent(b, `{"text":"`+strings.Repeat("h\u00e9llo w\u00f6rld \u4e16\u754c ", 50)+`"}`)
}

func BenchmarkParseMessageClientEvent(b *testing.B) {
	msg := []byte(msgClientEvent)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseMessage(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSubscribePresence(b *testing.B) {
	msg := []byte(msgSubscribePresence)
	b.ReportAllocs()
	for b.Loop() {
		m, _ := ParseMessage(msg)
		s, _ := ParseSubscribe(m.Data)
		if _, err := ParseChannelData(s.ChannelData); err != nil {
			b.Fatal(err)
		}
	}
}
