package route

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// BenchmarkSend is one xhr_send answered 204 by the node holding its
// session: sent to that node (direct), or to another that forwards it
// (forwarded: a store read on the machine's Redis and a hop), the cost a
// round-robin balancer adds to (N-1)/N of a session's requests.
func BenchmarkSend(b *testing.B) {
	reach := testutil.Backends[0].Start(b)
	prefix := fmt.Sprintf("route-bench-%d", rand.Uint64())
	const key = "key-1/1/benchxhr"
	holder := benchPeer(b, reach, prefix, 1, key)
	other := benchPeer(b, reach, prefix, 2, "")
	holder.r.Held(key)
	url := "/pusher/app/" + key + "/xhr_send"
	for _, c := range []struct{ name, base string }{{"direct", holder.srv.URL}, {"forwarded", other.srv.URL}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := http.Post(c.base+url, "application/json", nil)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusNoContent {
					b.Fatalf("status %d", res.StatusCode)
				}
			}
		})
	}
}

// benchPeer is a node whose server answers xhr_send for held with 204 and
// forwards every other session's.
func benchPeer(b *testing.B, reach testutil.Reach, prefix string, id uint64, held string) *peer {
	n := openNode(b, testutil.Backends[0].Name, reach, prefix, id)
	p := &peer{r: New(Config{Routes: n, Node: n.ID()})}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if held != "" || !p.r.Forward(w, r, "key-1/1/benchxhr") {
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	b.Cleanup(p.srv.Close)
	b.Cleanup(p.r.Close)
	p.r.Advertise(p.srv.URL)
	return p
}
