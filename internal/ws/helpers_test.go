package ws

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// testKey masks the frames that tests build.
var testKey = [4]byte{0x37, 0xfa, 0x21, 0x3d}

// rawFrame builds a masked client frame with any bits, valid or not.
func rawFrame(fin bool, rsv byte, op Opcode, payload string) []byte {
	h := header{fin: fin, rsv: rsv << 4, op: op, masked: true, key: testKey, length: uint64(len(payload))}
	b := appendHeader(nil, h)
	start := len(b)
	b = append(b, payload...)
	maskBytes(testKey, b[start:])
	return b
}

func text(s string) []byte           { return rawFrame(true, 0, OpText, s) }
func textStart(s string) []byte      { return rawFrame(false, 0, OpText, s) }
func cont(s string, fin bool) []byte { return rawFrame(fin, 0, OpContinuation, s) }
func binFrame(s string) []byte       { return rawFrame(true, 0, OpBinary, s) }
func ping(s string) []byte           { return rawFrame(true, 0, OpPing, s) }
func pong(s string) []byte           { return rawFrame(true, 0, OpPong, s) }

// closeFrame builds a masked close frame with code and reason.
func closeFrame(code CloseCode, reason string) []byte {
	body := string([]byte{byte(code >> 8), byte(code)}) + reason
	return rawFrame(true, 0, OpClose, body)
}

// fragments splits s into one text fragment per part of the given size.
func fragments(s string, size int) [][]byte {
	var out [][]byte
	for i := 0; i < len(s) || i == 0; i += size {
		part := s[i:min(i+size, len(s))]
		last := i+size >= len(s)
		if i == 0 {
			out = append(out, rawFrame(last, 0, OpText, part))
		} else {
			out = append(out, cont(part, last))
		}
	}
	return out
}

// Ways to deliver frames, as Autobahn names them: all in one chop, one
// frame per read, one octet per read, or fixed-size chops.
func oneChop(frames ...[]byte) [][]byte  { return [][]byte{bytes.Join(frames, nil)} }
func perFrame(frames ...[]byte) [][]byte { return frames }
func octets(frames ...[]byte) [][]byte   { return chops(1, frames...) }

func chops(size int, frames ...[]byte) [][]byte {
	all := bytes.Join(frames, nil)
	var out [][]byte
	for len(all) > size {
		out = append(out, all[:size])
		all = all[size:]
	}
	return append(out, all)
}

// recorder is a Handler that writes down what it receives and, like a
// server, stops at a close frame.
type recorder struct {
	events  []string
	stopped bool
}

func (r *recorder) OnText(p []byte) bool { return r.add("text:" + string(p)) }
func (r *recorder) OnPing(p []byte) bool { return r.add("ping:" + string(p)) }
func (r *recorder) OnPong(p []byte) bool { return r.add("pong:" + string(p)) }

func (r *recorder) OnClose(code CloseCode, reason []byte) bool {
	r.add(fmt.Sprintf("close:%d:%s", code, reason))
	r.stopped = true
	return false
}

func (r *recorder) add(e string) bool {
	r.events = append(r.events, e)
	return true
}

// outcome is what a connection saw after all its input was delivered.
type outcome struct {
	events    []string
	code      CloseCode // the close code Decode failed with; 0 if none
	consumed  int
	failChunk int // 1-based chunk whose delivery made Decode fail
}

// feed plays the transport: it delivers chunks one at a time, keeps what
// Decode leaves unconsumed and prepends it to the next chunk, and checks
// the invariants a caller relies on. Chunks are copied, never modified.
func feed(t testing.TB, chunks [][]byte, maxMessage int) outcome {
	return feedFrom(t, State{}, chunks, maxMessage)
}

// feedFrom is feed on a connection whose handshake left state st.
func feedFrom(t testing.TB, st State, chunks [][]byte, maxMessage int) outcome {
	var (
		frag    []byte
		pending []byte
		rec     recorder
		out     outcome
	)
	for i, c := range chunks {
		pending = append(pending, c...)
		var tail []byte // to check Decode leaves in[n:] alone; skipped when costly
		if len(pending) <= 4<<10 {
			tail = bytes.Clone(pending)
		}
		n, err := Decode(&st, pending, maxMessage, &frag, &rec)
		checkDecode(t, n, err, pending, tail, st, frag)
		out.consumed += n
		pending = pending[n:]
		if err != nil {
			out.code, out.failChunk = closeCode(t, err), i+1
			break
		}
		if rec.stopped {
			break
		}
	}
	Discard(&st, &frag)
	out.events = rec.events
	return out
}

// checkDecode checks what Decode promises its caller after every call.
func checkDecode(t testing.TB, n int, err error, in, before []byte, st State, frag []byte) {
	t.Helper()
	if n < 0 || n > len(in) {
		t.Fatalf("Decode consumed %d of %d bytes", n, len(in))
	}
	if err != nil {
		if st.op != 0 || st.utf8 != 0 || st.ext&extCompressed != 0 || frag != nil {
			t.Fatalf("Decode failed but left state %+v, frag %v", st, frag != nil)
		}
		return
	}
	if before != nil && !bytes.Equal(in[n:], before[n:]) {
		t.Fatalf("Decode modified the %d unconsumed bytes", len(in)-n)
	}
	if (st.op != 0) != (frag != nil) {
		t.Fatalf("state %+v with fragment buffer %v", st, frag != nil)
	}
}

// closeCode extracts the code of a Decode error, which must be a *CloseError.
func closeCode(t testing.TB, err error) CloseCode {
	t.Helper()
	var ce *CloseError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *CloseError", err, err)
	}
	return ce.Code
}

// short abbreviates long event strings for failure messages.
func short(events []string) string {
	var b strings.Builder
	for _, e := range events {
		if len(e) > 60 {
			e = fmt.Sprintf("%s...(%d bytes)", e[:40], len(e))
		}
		fmt.Fprintf(&b, "%q ", e)
	}
	return b.String()
}

func sameEvents(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
