package tlsidle

import (
	"context"
	"crypto/tls"
	"errors"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// exporter is the type of tls.Conn's keying-material exporter.
type exporter = func(label string, context []byte, length int) ([]byte, error)

// handshakeFields are the byte offsets in tls.Conn of what Forget drops
// and of the two fields it checks first; ok is false when any of them is
// missing or has another type.
var handshakeFields = func() (f struct {
	isClient, complete, handshakeFn, ekm, resumptionSecret uintptr
	ok                                                     bool
}) {
	t := reflect.TypeFor[tls.Conn]()
	var ok [5]bool
	f.isClient, ok[0] = offset(t, "isClient", reflect.TypeFor[bool]())
	f.complete, ok[1] = offset(t, "isHandshakeComplete", reflect.TypeFor[atomic.Bool]())
	f.handshakeFn, ok[2] = offset(t, "handshakeFn", reflect.TypeFor[func(context.Context) error]())
	f.ekm, ok[3] = offset(t, "ekm", reflect.TypeFor[exporter]())
	f.resumptionSecret, ok[4] = offset(t, "resumptionSecret", reflect.TypeFor[[]byte]())
	f.ok = ok == [5]bool{true, true, true, true, true}
	return f
}()

// ErrForgotten is what ExportKeyingMaterial returns, and a handshake would
// return, on a connection that Forget has run on.
var ErrForgotten = errors.New("tlsidle: the connection's handshake state was released")

// forgottenExporter replaces the exporter; it holds no secret.
func forgottenExporter(string, []byte, int) ([]byte, error) { return nil, ErrForgotten }

// forgottenHandshake replaces the handshake function, which crypto/tls
// never calls again once the handshake is complete.
func forgottenHandshake(context.Context) error { return ErrForgotten }

// Forget drops what a server connection keeps after its handshake only
// for calls roost does not make on it afterwards, and reports whether it
// did. They are the keying-material exporter (RFC 8446 7.5, RFC 5705),
// whose closure holds the exporter secret, or with TLS 1.2 the master
// secret and a copy of the whole ClientHello; the resumption secret, used
// only to issue the session ticket during the handshake (RFC 8446 4.6.1);
// and the handshake function, a closure bound to c. Records are read,
// decrypted, encrypted and written as before, and key updates still work.
// Afterwards ConnectionState().ExportKeyingMaterial returns ErrForgotten.
// It does nothing to a client connection or before the handshake is
// complete. It must not run concurrently with any other call on c: call it
// from the goroutine that owns c, before handing c on.
func Forget(c *tls.Conn) bool {
	f := &handshakeFields
	if !f.ok || c == nil {
		return false
	}
	p := unsafe.Pointer(c)
	if *(*bool)(unsafe.Add(p, f.isClient)) || !(*atomic.Bool)(unsafe.Add(p, f.complete)).Load() {
		return false
	}
	*(*func(context.Context) error)(unsafe.Add(p, f.handshakeFn)) = forgottenHandshake
	*(*exporter)(unsafe.Add(p, f.ekm)) = forgottenExporter
	*(*[]byte)(unsafe.Add(p, f.resumptionSecret)) = nil
	return true
}
