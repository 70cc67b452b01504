package ws

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// subscribeMessage is a typical client message: pusher-js subscribing to a
// private channel.
const subscribeMessage = `{"event":"pusher:subscribe","data":{"auth":"278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4","channel":"private-foobar"}}`

func BenchmarkDecode(b *testing.B) {
	frame := text(subscribeMessage)
	benchmarkDecode(b, frame)
}

func BenchmarkDecodeFragmented(b *testing.B) {
	m := subscribeMessage
	benchmarkDecode(b, bytes.Join(fragmentsOf(m[:40], m[40:90], m[90:]), nil))
}

// benchmarkDecode decodes in repeatedly; the copy restores the masked
// bytes that Decode unmasks in place (about a nanosecond of the total).
func benchmarkDecode(b *testing.B, in []byte) {
	buf := make([]byte, len(in))
	var (
		st   State
		frag []byte
		h    Handler = nopHandler{}
	)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		copy(buf, in)
		if n, err := Decode(&st, buf, 1<<16, &frag, h); n != len(in) || err != nil {
			b.Fatalf("Decode = %d, %v", n, err)
		}
	}
}

func BenchmarkAppendFrame(b *testing.B) {
	for _, size := range []int{64, 4096} {
		payload := bytes.Repeat([]byte("x"), size)
		b.Run(sizeName(size), func(b *testing.B) {
			dst := make([]byte, 0, size+maxHeaderSize)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				dst = AppendFrame(dst[:0], OpText, payload)
			}
		})
	}
}

func BenchmarkUTF8(b *testing.B) {
	inputs := map[string][]byte{
		"ascii":     bytes.Repeat([]byte("abcdefgh"), 512),
		"multibyte": []byte(strings.Repeat("κόσμε-çé😀", 4096/20)),
	}
	for name, p := range inputs {
		b.Run(name, func(b *testing.B) {
			cut := len(p)/2 + 1 // likely inside a code point
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				if utf8Continue(utf8Continue(utf8Accept, p[:cut]), p[cut:]) != utf8Accept {
					b.Fatal("rejected valid text")
				}
			}
		})
	}
}

func BenchmarkMask(b *testing.B) {
	p := make([]byte, 4096)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		maskBytes(testKey, p)
	}
}

func BenchmarkAcceptKey(b *testing.B) {
	dst := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		dst = appendAcceptKey(dst[:0], rfcKey)
	}
}

func sizeName(n int) string { return fmt.Sprintf("%dB", n) }
