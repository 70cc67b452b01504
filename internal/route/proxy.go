package route

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// targetKey carries the holder's address from Forward to the proxy.
type targetKey struct{}

// newProxy returns the reverse proxy that forwards requests to the nodes
// holding their sessions: each write is flushed at once (a stream's frames
// must not wait), and each request is marked as forwarded by node.
func newProxy(node string) *httputil.ReverseProxy {
	tr := &http.Transport{
		Proxy:               nil, // node to node, never through HTTP_PROXY
		DialContext:         (&net.Dialer{Timeout: storeTimeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   false,
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			target := pr.In.Context().Value(targetKey{}).(*url.URL)
			pr.SetURL(target)
			pr.SetXForwarded()
			pr.Out.Header.Set(Header, node)
		},
		Transport:     tr,
		FlushInterval: -1,
		BufferPool:    &buffers{},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client went
			}
			http.Error(w, "roost: the node holding this session is unreachable: it ended", http.StatusNotFound)
		},
	}
}

// serve forwards r to target. The holder answers CORS itself, so the
// headers this node set are dropped; a request that receives (a stream, a
// poll) is held as long as the holder holds it, so it loses this server's
// timeouts, as it does on the holder (an xhr_send keeps them).
func serve(p *httputil.ReverseProxy, w http.ResponseWriter, r *http.Request, target *url.URL) {
	for k := range w.Header() {
		if strings.HasPrefix(k, "Access-Control-") || k == "Vary" {
			w.Header().Del(k)
		}
	}
	if !strings.HasSuffix(r.URL.Path, "/xhr_send") {
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Time{})
		rc.SetWriteDeadline(time.Time{})
	}
	p.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), targetKey{}, target)))
}

// buffers lends the proxy its copy buffers, so that a forwarded request
// does not allocate one of its own.
type buffers struct{ p sync.Pool }

func (b *buffers) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 16<<10)
}

func (b *buffers) Put(v []byte) { b.p.Put(&v) }
