package cluster

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/testutil"
)

// TestSignOutDuringPauseWaitsForTheStore: while the backend is paused
// (SIGSTOP), the connections on node A of eve, also signed in on node B,
// and of gone, signed in on A alone, close. A cannot tell whether either
// is signed in elsewhere, so it tells nobody yet. Once the backend runs
// again and A has settled, the watcher on B is told that gone went
// offline, once, and never that eve did: an event A publishes after
// gone's offline marks the end of what A told it.
func TestSignOutDuringPauseWaitsForTheStore(t *testing.T) {
	onPausables(t, func(t *testing.T, srv pausable) {
		d := newHookDuoTTL(t, "roost-signout", srv.Reach(), srv.Output, deferredNodeTTL)
		eveA, goneA := dial(t, d.a, "eve"), dial(t, d.a, "gone")
		signIn(t, eveA, "eve")
		signIn(t, dial(t, d.b, "eve"), "eve")
		signIn(t, goneA, "gone")
		watcher := dial(t, d.b, "watcher")
		signIn(t, watcher, "watcher", "eve", "gone")
		if _, ok := watcher.Await(hookWait, watchlist("online", "eve")); !ok {
			t.Fatalf("the watcher never learned eve online: %s", watcher.Describe())
		}
		watcher.Subscribe("marker")
		srv.Pause()
		waitNodes(t, []*node{d.a}, http.StatusServiceUnavailable, "degraded:")
		eveA.Conn.Close()
		goneA.Conn.Close()
		srv.Resume()
		waitNodes(t, []*node{d.a}, http.StatusOK, "ready")
		if _, ok := watcher.Await(hookWait, watchlist("offline", "gone")); !ok {
			t.Fatalf("the watcher never learned gone offline: %s", watcher.Describe())
		}
		d.a.trigger("marker", "after", "{}") // behind anything A sent before
		if _, ok := watcher.Await(hookWait, inChannel("marker", "after")); !ok {
			t.Fatalf("the watcher never got A's marker: %s", watcher.Describe())
		}
		for _, u := range []string{"eve", "gone"} {
			want := 0
			if u == "gone" {
				want = 1
			}
			if got := count(watcher, watchlist("offline", u)); got != want {
				t.Errorf("the watcher was told %s offline %d times, want %d: %s", u, got, want, watcher.Describe())
			}
		}
	})
}

// signIn signs c in as user with a watchlist (Pusher docs, "User
// authentication"), signed with the nodes' app.
func signIn(t *testing.T, c *testutil.Client, user string, watch ...string) {
	t.Helper()
	ud, _ := json.Marshal(map[string]any{"id": user, "watchlist": watch})
	sig := appKey + ":" + auth.Sign(appSecret, auth.UserMessage(c.SocketID, string(ud)))
	msg, _ := json.Marshal(map[string]any{"event": "pusher:signin", "data": map[string]string{"auth": sig, "user_data": string(ud)}})
	c.Send("%s", msg)
	c.Expect("pusher:signin_success")
}

// watchlist matches a watchlist event (online or offline) naming user.
func watchlist(name, user string) func(testutil.Frame) bool {
	return func(f testutil.Frame) bool {
		var d struct {
			Events []struct {
				Name    string   `json:"name"`
				UserIDs []string `json:"user_ids"`
			} `json:"events"`
		}
		if f.Event != "pusher_internal:watchlist_events" || json.Unmarshal([]byte(f.Text()), &d) != nil {
			return false
		}
		for _, e := range d.Events {
			if e.Name == name && strings.Contains(","+strings.Join(e.UserIDs, ",")+",", ","+user+",") {
				return true
			}
		}
		return false
	}
}

// count is how many of the frames c has read match want.
func count(c *testutil.Client, want func(testutil.Frame) bool) int {
	n := 0
	for _, f := range c.Frames() {
		if want(f) {
			n++
		}
	}
	return n
}

// TestWatcherSignedInDuringPauseLearnsTheOthers: a watcher that signs in
// on node B while the backend is paused is told only B's own users online
// (B cannot ask the store); eve, signed in on A, is not among them. Once
// the backend runs again B checks what its watchers were told against the
// store, and the watcher is told eve is online.
func TestWatcherSignedInDuringPauseLearnsTheOthers(t *testing.T) {
	onPausables(t, func(t *testing.T, srv pausable) {
		d := newHookDuoTTL(t, "roost-watcher", srv.Reach(), srv.Output, deferredNodeTTL)
		signIn(t, dial(t, d.a, "eve"), "eve")
		marks := dial(t, d.b, "marks")
		marks.Subscribe("marker")
		d.a.trigger("marker", "before", "{}") // behind eve's online, which must not land late
		if _, ok := marks.Await(hookWait, inChannel("marker", "before")); !ok {
			t.Fatalf("A's marker never reached B: %s", marks.Describe())
		}
		srv.Pause()
		waitNodes(t, []*node{d.b}, http.StatusServiceUnavailable, "degraded:")
		watcher := dial(t, d.b, "watcher")
		signIn(t, watcher, "watcher", "eve")
		if _, ok := watcher.Find(watchlist("online", "eve")); ok {
			t.Fatal("B told eve online while it could not ask the store: the test shows nothing")
		}
		srv.Resume()
		if _, ok := watcher.Await(hookWait, watchlist("online", "eve")); !ok {
			t.Fatalf("the watcher never learned eve online: %s", watcher.Describe())
		}
	})
}
