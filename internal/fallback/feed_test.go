package fallback

import (
	"strconv"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/ws"
)

// BenchmarkFeedTake is one delivery to an xhr_streaming session held by a
// loop: a message queued, then taken framed as one HTTP/1.1 chunk.
func BenchmarkFeedTake(b *testing.B) {
	r := newRig(b, nil)
	c := r.openStreaming(b)
	f := &feed{c: c, gen: c.gen, chunked: true}
	frame := ws.AppendFrame(nil, ws.OpText, []byte(`{"event":"price","channel":"ticker","data":"{\"symbol\":\"ROOST\",\"price\":101.25,\"at\":1733200000}"}`))
	b.ReportAllocs()
	for b.Loop() {
		c.Send(frame)
		if out, _ := f.Take(); len(out) == 0 {
			b.Fatal("nothing taken")
		}
	}
}

// TestFeedTakeFramesChunks checks a held stream's bytes as an HTTP/1.1
// client reads them: each take one chunk of the lines queued (a size line
// of one, two or three hex digits), and the session's close line followed
// by the last chunk; HTTP/1.0 gets the lines bare.
func TestFeedTakeFramesChunks(t *testing.T) {
	r := newRig(t, nil)
	for _, size := range []int{3, 40, 300} {
		c := r.openStreaming(t)
		f := &feed{c: c, gen: c.gen, chunked: true}
		msg := `{"event":"e","data":"` + strings.Repeat("x", size) + `"}`
		c.Send(ws.AppendFrame(nil, ws.OpText, []byte(msg)))
		c.Send(ws.AppendFrame(nil, ws.OpText, []byte(msg)))
		lines := "a[" + strconv.Quote(msg) + "," + strconv.Quote(msg) + "]\n"
		want := strconv.FormatInt(int64(len(lines)), 16) + "\r\n" + lines + "\r\n"
		if out, last := f.Take(); string(out) != want || last {
			t.Fatalf("size %d: took %q (last %v), want %q", size, out, last, want)
		}
		if out, last := f.Take(); len(out) != 0 || last {
			t.Fatalf("size %d: took %q (last %v) with nothing queued", size, out, last)
		}
		c.Close(4000, "bye")
		end := closeLine(4000, "bye")
		want = strconv.FormatInt(int64(len(end)), 16) + "\r\n" + string(end) + "\r\n0\r\n\r\n"
		if out, last := f.Take(); string(out) != want || !last {
			t.Fatalf("size %d: took %q (last %v) after the close, want %q", size, out, last, want)
		}
	}
	c := r.openStreaming(t)
	f := &feed{c: c, gen: c.gen}
	c.Send(ws.AppendFrame(nil, ws.OpText, []byte(`{"event":"e"}`)))
	if out, _ := f.Take(); string(out) != `a["{\"event\":\"e\"}"]`+"\n" {
		t.Fatalf("HTTP/1.0 took %q", out)
	}
}
