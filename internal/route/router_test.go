package route

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/natsstore"
	"github.com/roostproject/roost/internal/cluster/redisstore"
	"github.com/roostproject/roost/internal/testutil"
)

const wait = 10 * time.Second

// openNode joins node id to the backend under prefix, once its store answers.
func openNode(t testing.TB, name string, reach testutil.Reach, prefix string, id uint64) *cluster.Node {
	t.Helper()
	b := redisstore.Backend(reach.URL)
	if name == "nats" {
		b = natsstore.Backend(reach.URL)
	}
	n, err := cluster.Open(cluster.Settings{Prefix: prefix, Node: id, Apps: []string{"1"}}, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	testutil.Eventually(t, wait, "the store reachable", func() bool { return n.Ready() == nil })
	return n
}

// peer is a node's router and an HTTP server in front of it that plays
// the fallback handler: it streams the sessions in holds ("o", then "h"
// once release is closed) and forwards or refuses the others.
type peer struct {
	r       *Router
	srv     *httptest.Server
	holds   map[string]bool
	release chan struct{}
	by      chan string // the forwarding mark of each streamed request
}

func newPeer(t *testing.T, n *cluster.Node) *peer {
	p := &peer{holds: map[string]bool{}, release: make(chan struct{}), by: make(chan string, 8)}
	p.r = New(Config{Routes: n, Node: n.ID()})
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	t.Cleanup(p.r.Close)
	p.r.Advertise(p.srv.URL)
	return p
}

func (p *peer) serve(w http.ResponseWriter, r *http.Request) {
	key := strings.Join(strings.Split(r.URL.Path, "/")[3:6], "/")
	w.Header().Set("Access-Control-Allow-Origin", "https://page.example")
	if p.holds[key] {
		p.by <- r.Header.Get(Header)
		io.WriteString(w, "o\n")
		w.(http.Flusher).Flush()
		<-p.release
		io.WriteString(w, "h\n")
		return
	}
	if !p.r.Forward(w, r, key) {
		http.Error(w, "not held here", http.StatusNotFound)
	}
}

// hold makes p the holder of key, as the fallback handler does on a
// session's first request.
func (p *peer) hold(key string) {
	p.holds[key] = true
	p.r.Held(key)
}

func post(t *testing.T, url string, header ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func body(t *testing.T, res *http.Response) string {
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

func TestForwardingToTheHolder(t *testing.T) {
	for _, b := range testutil.Backends {
		t.Run(b.Name, func(t *testing.T) {
			reach := b.Start(t)
			prefix := fmt.Sprintf("route-%d", rand.Uint64())
			a := newPeer(t, openNode(t, b.Name, reach, prefix, 1))
			o := newPeer(t, openNode(t, b.Name, reach, prefix, 2))
			path := func(key, kind string) string { return "/pusher/app/" + key + "/" + kind }

			t.Run("a stream flows through as it is written", func(t *testing.T) {
				a.hold("key-1/7/abcdefgh")
				res := post(t, o.srv.URL+path("key-1/7/abcdefgh", "xhr_streaming"))
				if res.StatusCode != http.StatusOK {
					t.Fatalf("status %d: %s", res.StatusCode, body(t, res))
				}
				if by := <-a.by; by != "2" {
					t.Fatalf("the holder saw %s %q, want the forwarding node's id", Header, by)
				}
				line, err := bufio.NewReader(res.Body).ReadString('\n')
				if err != nil || line != "o\n" {
					t.Fatalf("first line %q, %v: it must arrive before the holder's response ends", line, err)
				}
				if got := res.Header.Values("Access-Control-Allow-Origin"); len(got) != 1 {
					t.Fatalf("Access-Control-Allow-Origin %q: want the holder's one value", got)
				}
				close(a.release)
			})

			t.Run("a session no one holds is served here", func(t *testing.T) {
				res := post(t, o.srv.URL+path("key-1/7/nobodyhr", "xhr_send"))
				if got := body(t, res); res.StatusCode != http.StatusNotFound || got != "not held here\n" {
					t.Fatalf("%d %q", res.StatusCode, got)
				}
			})

			t.Run("a forwarded request is never forwarded again", func(t *testing.T) {
				o.hold("key-1/8/ownedbyo")
				close(o.release) // its streams answer at once
				if res := post(t, a.srv.URL+path("key-1/8/ownedbyo", "xhr_streaming")); res.StatusCode != http.StatusOK {
					t.Fatalf("unmarked: status %d, want forwarded to its holder", res.StatusCode)
				}
				res := post(t, a.srv.URL+path("key-1/8/ownedbyo", "xhr_streaming"), Header, "9")
				if got := body(t, res); res.StatusCode != http.StatusNotFound || !strings.Contains(got, "forwarded here by node 9") {
					t.Fatalf("marked: %d %q", res.StatusCode, got)
				}
				if len(o.by) != 1 {
					t.Fatalf("the holder got %d requests, want the unmarked one only", len(o.by))
				}
			})

			t.Run("a holder that is gone is 404", func(t *testing.T) {
				c := newPeer(t, openNode(t, b.Name, reach, prefix, 3))
				c.hold("key-1/9/gonenode")
				c.srv.Close()
				res := post(t, a.srv.URL+path("key-1/9/gonenode", "xhr"))
				if got := body(t, res); res.StatusCode != http.StatusNotFound || !strings.Contains(got, "unreachable") {
					t.Fatalf("%d %q", res.StatusCode, got)
				}
			})

			t.Run("a draining node ends the streams it forwards", func(t *testing.T) {
				holder := newPeer(t, openNode(t, b.Name, reach, prefix, 5))
				fwd := newPeer(t, openNode(t, b.Name, reach, prefix, 6))
				holder.hold("key-1/11/drainsme")
				res := post(t, fwd.srv.URL+path("key-1/11/drainsme", "xhr_streaming"))
				<-holder.by
				br := bufio.NewReader(res.Body)
				if line, err := br.ReadString('\n'); line != "o\n" {
					t.Fatalf("first line %q, %v", line, err)
				}
				fwd.r.Drain()
				ended := make(chan []byte)
				go func() { rest, _ := io.ReadAll(br); ended <- rest }()
				select { // the holder still holds the stream: only the drain ends it
				case rest := <-ended:
					if len(rest) != 0 {
						t.Errorf("after the drain the stream carried %q", rest)
					}
				case <-time.After(wait):
					t.Errorf("the forwarded stream outlived the drain by %v", wait)
				}
				close(holder.release)
			})

			t.Run("an ended session's record goes", func(t *testing.T) {
				n := openNode(t, b.Name, reach, prefix, 4)
				d := newPeer(t, n)
				d.hold("key-1/10/endsnowx")
				ctx := context.Background()
				if rec, err := n.Owner(ctx, "key-1/10/endsnowx"); err != nil || !strings.HasPrefix(rec, "4 http://") {
					t.Fatalf("record %q, %v", rec, err)
				}
				d.r.Ended("key-1/10/endsnowx")
				d.r.Close()
				if rec, err := n.Owner(ctx, "key-1/10/endsnowx"); err != nil || rec != "" {
					t.Fatalf("record %q, %v after the session ended", rec, err)
				}
			})
		})
	}
}
