package tlsidle

import (
	"bytes"
	"crypto/tls"
	"reflect"
	"unsafe"
)

// fields are the byte offsets in tls.Conn of the buffers Shrink empties;
// ok is false when any of them is missing or has another type.
var fields = func() (f struct {
	rawInput, input, hand uintptr
	ok                    bool
}) {
	t := reflect.TypeFor[tls.Conn]()
	var ok [3]bool
	f.rawInput, ok[0] = offset(t, "rawInput", reflect.TypeFor[bytes.Buffer]())
	f.input, ok[1] = offset(t, "input", reflect.TypeFor[bytes.Reader]())
	f.hand, ok[2] = offset(t, "hand", reflect.TypeFor[bytes.Buffer]())
	f.ok = ok == [3]bool{true, true, true}
	return f
}()

// offset returns the offset of the field name of struct t if it has type want.
func offset(t reflect.Type, name string, want reflect.Type) (uintptr, bool) {
	sf, ok := t.FieldByName(name)
	if !ok || sf.Type != want || len(sf.Index) != 1 {
		return 0, false
	}
	return sf.Offset, true
}

// Supported reports whether Shrink and Forget can work with this Go
// release's crypto/tls.
func Supported() bool { return fields.ok && handshakeFields.ok }

// Shrink releases c's read and handshake buffers when all of them are
// empty, and reports whether it did. It must not run concurrently with a
// Read or a handshake on c (writes may run): call it from the goroutine
// that reads c, between reads, after the handshake.
func Shrink(c *tls.Conn) bool {
	if !fields.ok || c == nil {
		return false
	}
	p := unsafe.Pointer(c)
	raw := (*bytes.Buffer)(unsafe.Add(p, fields.rawInput))
	in := (*bytes.Reader)(unsafe.Add(p, fields.input))
	hand := (*bytes.Buffer)(unsafe.Add(p, fields.hand))
	if raw.Len() != 0 || in.Len() != 0 || hand.Len() != 0 {
		return false
	}
	if raw.Cap() == 0 && hand.Cap() == 0 {
		return false
	}
	*raw, *in, *hand = bytes.Buffer{}, bytes.Reader{}, bytes.Buffer{}
	return true
}
