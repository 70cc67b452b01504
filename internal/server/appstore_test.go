package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// dbKinds are the databases apps are served from in these tests.
var dbKinds = []struct {
	name string
	new  func(testing.TB) *testutil.TestDB
	addr string
}{
	{"postgres", testutil.NewPostgres, testutil.PostgresAddr},
	{"mariadb", testutil.NewMariaDB, testutil.MariaDBAddr},
}

// withAppStore serves apps from url, refreshed every 200ms.
func withAppStore(url string) func(*config.Config) {
	return func(c *config.Config) {
		c.AppStore = config.AppStore{URL: url, Table: "apps", Refresh: 200 * time.Millisecond,
			UnknownTTL: time.Second, Wait: time.Second}
	}
}

func TestAppDisabledInTheDatabaseClosesItsConnections(t *testing.T) {
	for _, d := range dbKinds {
		for _, tr := range transports {
			t.Run(d.name+"/"+tr, func(t *testing.T) {
				db := d.new(t)
				db.Exec(t, testutil.SoketiSchema(db.Postgres, "apps"))
				db.InsertSoketiApp(t, "apps", "doomed", "doomed-key", "s", -1)
				db.InsertSoketiApp(t, "apps", "kept", "kept-key", "s", -1)
				srv := startServer(t, tr, withAppStore(db.URL))
				doomed := testutil.Connect(t, srv.url("doomed-key"), srv.opts)
				doomed.Subscribe("news")
				kept := testutil.Connect(t, srv.url("kept-key"), srv.opts)

				db.Exec(t, "UPDATE apps SET "+db.Quote("enabled")+" = 0 WHERE id = 'doomed'")
				doomed.Expect("pusher:error")
				if code := doomed.CloseCode(); code != ws.CloseCode(pusher.AppDisabled) {
					t.Errorf("close code %d, want 4003", code)
				}
				kept.Ping() // the other app's connection is untouched
				if code := srv.dial(t, "doomed-key").CloseCode(); code != ws.CloseCode(pusher.AppDisabled) {
					t.Errorf("new connection to the disabled app: close code %d, want 4003", code)
				}
			})
		}
	}
}

func TestLoweredMaxConnectionsRefusesNewConnections(t *testing.T) {
	for _, d := range dbKinds {
		t.Run(d.name, func(t *testing.T) {
			db := d.new(t)
			db.Exec(t, testutil.SoketiSchema(db.Postgres, "apps"))
			db.InsertSoketiApp(t, "apps", "capped", "capped-key", "s", 10)
			srv := startServer(t, "epoll", withAppStore(db.URL))
			testutil.Connect(t, srv.url("capped-key"), srv.opts)
			db.Exec(t, "UPDATE apps SET max_connections = 1 WHERE id = 'capped'")
			testutil.Eventually(t, waitLimit, "the lowered limit to be read", func() bool {
				a, err := srv.apps.ByKey(context.Background(), "capped-key")
				return err == nil && a.MaxConnections == 1
			})
			if code := srv.dial(t, "capped-key").CloseCode(); code != ws.CloseCode(pusher.OverQuota) {
				t.Errorf("second connection over the lowered limit: close code %d, want 4004", code)
			}
		})
	}
}

func TestDatabaseOutageKeepsCachedAppsServing(t *testing.T) {
	for _, d := range dbKinds {
		t.Run(d.name, func(t *testing.T) {
			db := d.new(t)
			db.Exec(t, testutil.SoketiSchema(db.Postgres, "apps"))
			db.InsertSoketiApp(t, "apps", "cached", "cached-key", "s", -1)
			proxy := testutil.NewProxy(t, d.addr)
			srv := startServer(t, "epoll", withAppStore(strings.Replace(db.URL, d.addr, proxy.Addr, 1)))
			open := testutil.Connect(t, srv.url("cached-key"), srv.opts)
			if got := ready(t, srv); got != http.StatusOK {
				t.Fatalf("/ready = %d before the outage", got)
			}

			proxy.Cut()
			testutil.Eventually(t, waitLimit, "/ready to report degraded", func() bool {
				return ready(t, srv) == http.StatusServiceUnavailable
			})
			open.Ping()
			testutil.Connect(t, srv.url("cached-key"), srv.opts) // a new client of a cached app
			if code := srv.dial(t, "uncached-key").CloseCode(); code != ws.CloseCode(pusher.OverCapacity) {
				t.Errorf("uncached key during the outage: close code %d, want 4100 (retry later)", code)
			}

			proxy.Restore()
			testutil.Eventually(t, waitLimit, "/ready to recover", func() bool { return ready(t, srv) == http.StatusOK })
			if code := srv.dial(t, "uncached-key").CloseCode(); code != ws.CloseCode(pusher.AppNotFound) {
				t.Errorf("unknown key after the outage: close code %d, want 4001", code)
			}
		})
	}
}

// ready returns the status of GET /ready.
func ready(t *testing.T, srv *testServer) int {
	t.Helper()
	resp, err := http.Get("http://" + srv.addr + "/ready")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
