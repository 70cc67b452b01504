package apps

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

// databases are the two kinds of database every store test runs against.
var databases = []struct {
	name string
	new  func(testing.TB) *testutil.TestDB
}{
	{"postgres", testutil.NewPostgres},
	{"mariadb", testutil.NewMariaDB},
}

// eachDB runs test against a fresh database of each kind holding soketi's
// table, named apps.
func eachDB(t *testing.T, test func(t *testing.T, db *testutil.TestDB)) {
	for _, d := range databases {
		t.Run(d.name, func(t *testing.T) {
			db := d.new(t)
			db.Exec(t, testutil.SoketiSchema(db.Postgres, "apps"))
			test(t, db)
		})
	}
}

// disabled records the ids onDisable is told, for tests to poll.
type disabled struct {
	mu  sync.Mutex
	ids []string
}

func (d *disabled) add(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ids = append(d.ids, id)
}

func (d *disabled) has(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, x := range d.ids {
		if x == id {
			return true
		}
	}
	return false
}

// syncBuffer is a log destination tests can read while the store writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// openStore opens a DB store on url with a short refresh, closed when the
// test ends.
func openStore(t *testing.T, url string, edit func(*config.AppStore)) (*DB, *disabled, *syncBuffer) {
	t.Helper()
	cfg := config.AppStore{URL: url, Table: "apps", Refresh: 100 * time.Millisecond, UnknownTTL: 5 * time.Second, Wait: 2 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	var off disabled
	var logs syncBuffer
	s, err := OpenDB(cfg, slog.New(slog.NewTextHandler(&logs, nil)), Hooks{OnDisable: off.add})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &off, &logs
}

func mustKey(t *testing.T, s Store, key string) *config.App {
	t.Helper()
	a, err := s.ByKey(context.Background(), key)
	if err != nil {
		t.Fatalf("ByKey(%q): %v", key, err)
	}
	return a
}

func TestSoketiTableWorksAsIs(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		db.InsertSoketiApp(t, "apps", "app-id", "app-key", "app-secret", 200)
		s, _, _ := openStore(t, db.URL, nil)
		a := mustKey(t, s, "app-key")
		if a == nil {
			t.Fatal("soketi's fixture app not found by key")
		}
		want := config.App{ID: "app-id", Key: "app-key", Secret: "app-secret", ClientEvents: true, MaxConnections: 200,
			MaxPresenceMembers: 100, MaxPresenceUserInfo: 1024}
		if a.ID != want.ID || a.Secret != want.Secret || !a.IsEnabled() || a.ClientEvents != want.ClientEvents ||
			a.MaxConnections != want.MaxConnections || a.MaxPresenceMembers != want.MaxPresenceMembers ||
			a.MaxPresenceUserInfo != want.MaxPresenceUserInfo {
			t.Errorf("got %+v, want %+v", *a, want)
		}
		if b, err := s.ByID(context.Background(), "app-id"); err != nil || b != a {
			t.Errorf("ByID = %v, %v; want the cached app", b, err)
		}
		if a := mustKey(t, s, "no-such-key"); a != nil {
			t.Errorf("unknown key found: %+v", a)
		}
	})
}

func TestSoketiLimitColumns(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		db.InsertSoketiApp(t, "apps", "limited", "limited-key", "s", -1)
		db.Exec(t, "UPDATE apps SET max_presence_members_per_channel = 7, max_presence_member_size_in_kb = 2, "+
			"max_backend_events_per_sec = 50, max_client_events_per_sec = 20, max_read_req_per_sec = -1 WHERE id = 'limited'")
		s, _, _ := openStore(t, db.URL, nil)
		a := mustKey(t, s, "limited-key")
		if a == nil || a.MaxConnections != 0 || a.MaxPresenceMembers != 7 || a.MaxPresenceUserInfo != 2048 ||
			a.MaxBackendEventsPerSec != 50 || a.MaxClientEventsPerSec != 0 || a.MaxReadReqPerSec != 0 {
			t.Errorf("got %+v; want no connection limit, 7 members, 2048 bytes of user info, "+
				"50 backend events per second, no read limit, and no app-wide client event limit "+
				"(soketi counts that column per connection)", a)
		}
	})
}

func TestInsertedAppIsServedWithinTheRefreshInterval(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		s, _, _ := openStore(t, db.URL, func(c *config.AppStore) { c.Refresh = 300 * time.Millisecond })
		if a := mustKey(t, s, "late-key"); a != nil {
			t.Fatal("found before it was inserted")
		}
		db.InsertSoketiApp(t, "apps", "late", "late-key", "s", 10)
		// The unknown TTL (5s) is cut to the refresh interval, so the
		// negative answer expires within it.
		testutil.Eventually(t, 5*time.Second, "the inserted app to be served", func() bool {
			return mustKey(t, s, "late-key") != nil
		})
	})
}

func TestRefreshAppliesChanges(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		db.InsertSoketiApp(t, "apps", "a1", "k1", "old-secret", 10)
		db.InsertSoketiApp(t, "apps", "a2", "k2", "s2", 10)
		s, off, _ := openStore(t, db.URL, nil)
		mustKey(t, s, "k1")
		mustKey(t, s, "k2")
		db.Exec(t, "UPDATE apps SET secret = 'new-secret', max_connections = 1 WHERE id = 'a1'")
		db.Exec(t, "UPDATE apps SET "+db.Quote("enabled")+" = 0 WHERE id = 'a2'")
		testutil.Eventually(t, 5*time.Second, "the new secret and limit", func() bool {
			a := mustKey(t, s, "k1")
			return a.Secret == "new-secret" && a.MaxConnections == 1
		})
		testutil.Eventually(t, 5*time.Second, "a2 disabled", func() bool { return off.has("a2") })
		if mustKey(t, s, "k2").IsEnabled() {
			t.Error("a2 is still enabled in the cache")
		}
		if off.has("a1") {
			t.Error("a1 reported disabled, though only its secret changed")
		}
		db.Exec(t, "DELETE FROM apps WHERE id = 'a1'")
		testutil.Eventually(t, 5*time.Second, "deleted a1 reported and dropped", func() bool {
			return off.has("a1") && mustKey(t, s, "k1") == nil
		})
	})
}

func TestMalformedRowDisablesTheAppWithOneLogLine(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		db.InsertSoketiApp(t, "apps", "broken", "broken-key", "s", -5)
		s, _, logs := openStore(t, db.URL, nil)
		a := mustKey(t, s, "broken-key")
		if a == nil || a.IsEnabled() {
			t.Fatalf("got %+v; want the app, disabled", a)
		}
		// Several refreshes later there is still one line.
		waitRefreshes(t, s, 3)
		if n := strings.Count(logs.String(), "malformed row"); n != 1 {
			t.Errorf("%d log lines about the malformed row, want 1:\n%s", n, logs)
		}
		if !strings.Contains(logs.String(), `row="id=broken"`) || !strings.Contains(logs.String(), "max_connections") {
			t.Errorf("the log line does not name the row and column:\n%s", logs)
		}
		db.Exec(t, "UPDATE apps SET max_connections = 5 WHERE id = 'broken'")
		testutil.Eventually(t, 5*time.Second, "the fixed row to enable the app", func() bool {
			return mustKey(t, s, "broken-key").IsEnabled()
		})
	})
}

// waitRefreshes waits for n more refreshes of s.
func waitRefreshes(t *testing.T, s *DB, n int) {
	t.Helper()
	want := s.refreshes.Load() + int64(n)
	testutil.Eventually(t, 5*time.Second, "refreshes", func() bool { return s.refreshes.Load() >= want })
}

func TestUnknownKeysAreCachedAndOutagesServeTheCache(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		addr := testutil.PostgresAddr
		if !db.Postgres {
			addr = testutil.MariaDBAddr
		}
		proxy := testutil.NewProxy(t, addr)
		url := strings.Replace(db.URL, addr, proxy.Addr, 1)
		db.InsertSoketiApp(t, "apps", "cached", "cached-key", "s", 10)
		s, _, logs := openStore(t, url, func(c *config.AppStore) { c.Wait = 500 * time.Millisecond; c.Refresh = time.Second })
		mustKey(t, s, "cached-key")
		mustKey(t, s, "unknown-key")

		proxy.Cut() // the database goes away
		if a := mustKey(t, s, "cached-key"); a == nil {
			t.Error("a cached app is not served during the outage")
		}
		if a := mustKey(t, s, "unknown-key"); a != nil {
			t.Error("an unknown key, cached as unknown, was found")
		}
		if a, err := s.ByKey(context.Background(), "no such key!"); a != nil || err != nil {
			t.Errorf("a key no app can have during the outage: %v, %v; want unknown without asking", a, err)
		}
		if _, err := s.ByKey(context.Background(), "never-asked"); !errors.Is(err, ErrUnavailable) {
			t.Errorf("uncached key during the outage: err %v, want ErrUnavailable", err)
		}
		testutil.Eventually(t, 5*time.Second, "Ready to report the outage", func() bool { return s.Ready() != nil })
		if !strings.Contains(logs.String(), "app store unreachable") {
			t.Errorf("no log line about the outage:\n%s", logs)
		}

		db.InsertSoketiApp(t, "apps", "after", "after-key", "s", 10)
		proxy.Restore() // and comes back
		testutil.Eventually(t, 10*time.Second, "the store to reconnect", func() bool {
			a, err := s.ByKey(context.Background(), "after-key")
			return err == nil && a != nil && s.Ready() == nil
		})
	})
}

func TestTableNameIsConfigurable(t *testing.T) {
	for _, d := range databases {
		t.Run(d.name, func(t *testing.T) {
			db := d.new(t)
			table := "tenant_apps"
			if db.Postgres {
				db.Exec(t, "CREATE SCHEMA realtime")
				table = "realtime.tenant_apps"
			}
			db.Exec(t, testutil.SoketiSchema(db.Postgres, table))
			db.InsertSoketiApp(t, table, "t1", "t1-key", "s", 1)
			s, _, _ := openStore(t, db.URL, func(c *config.AppStore) { c.Table = table })
			if a := mustKey(t, s, "t1-key"); a == nil {
				t.Errorf("app in table %s not found", table)
			}
		})
	}
}

// changes records what OnChange is told, for tests to poll.
type changes struct {
	mu   sync.Mutex
	last map[string]*config.App
}

func (c *changes) add(id string, a *config.App) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last[id] = a
}

// hooks returns the webhooks OnChange last reported for id, and whether it
// reported the app at all (false also after its removal).
func (c *changes) hooks(id string) ([]config.Webhook, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.last[id]
	if a == nil {
		return nil, false
	}
	return a.Webhooks, true
}

func TestWebhooksColumnFollowsTheTable(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		db.InsertSoketiApp(t, "apps", "hooked", "hooked-key", "s", -1)
		db.Exec(t, `UPDATE apps SET webhooks = '[{"url":"https://one.example/h","event_types":["channel_occupied"]}]' WHERE id = 'hooked'`)
		seen := &changes{last: map[string]*config.App{}}
		var logs syncBuffer
		cfg := config.AppStore{URL: db.URL, Table: "apps", Refresh: 100 * time.Millisecond, UnknownTTL: time.Second, Wait: 2 * time.Second}
		s, err := OpenDB(cfg, slog.New(slog.NewTextHandler(&logs, nil)), Hooks{OnChange: seen.add})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		a := mustKey(t, s, "hooked-key")
		if a == nil || len(a.Webhooks) != 1 || a.Webhooks[0].URL != "https://one.example/h" || !a.Webhooks[0].Wants("channel_occupied") || a.Webhooks[0].Wants("client_event") {
			t.Fatalf("app read as %+v; want its one webhook", a)
		}
		if hooks, ok := seen.hooks("hooked"); !ok || len(hooks) != 1 {
			t.Fatalf("OnChange told %v, %v; want the app with its webhook", hooks, ok)
		}
		db.Exec(t, `UPDATE apps SET webhooks = '[{"url":"https://two.example/h","event_types":["client_event","member_added"]}]' WHERE id = 'hooked'`)
		testutil.Eventually(t, 5*time.Second, "the changed URL reported", func() bool {
			hooks, _ := seen.hooks("hooked")
			return len(hooks) == 1 && hooks[0].URL == "https://two.example/h" && hooks[0].Wants("member_added")
		})
		db.Exec(t, `UPDATE apps SET webhooks = '[{"url":"https://two.example/h","event_types":["member_gone"]}]' WHERE id = 'hooked'`)
		testutil.Eventually(t, 5*time.Second, "the bad column to switch the app off", func() bool {
			hooks, ok := seen.hooks("hooked")
			return ok && len(hooks) == 0 && !mustKey(t, s, "hooked-key").IsEnabled()
		})
		if l := logs.String(); !strings.Contains(l, `row="id=hooked"`) || !strings.Contains(l, "webhooks[0].event_types") {
			t.Errorf("the log line does not name the app and the field:\n%s", l)
		}
		db.Exec(t, "DELETE FROM apps WHERE id = 'hooked'")
		testutil.Eventually(t, 5*time.Second, "the deleted row reported", func() bool {
			seen.mu.Lock()
			defer seen.mu.Unlock()
			a, ok := seen.last["hooked"]
			return ok && a == nil
		})
	})
}

// TestWrittenWebhooksReadBack: an app written through the store (the admin
// API's path) keeps its webhooks, in soketi's shape, event types spelled out.
func TestWrittenWebhooksReadBack(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		s, _, _ := openStore(t, db.URL, nil)
		a := &config.App{ID: "w", Key: "w-key", Secret: "s", Webhooks: []config.Webhook{
			{URL: "https://b.example/all"}, {URL: "https://b.example/some", EventTypes: []string{"cache_miss"}}}}
		if err := config.CheckApp(a); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		got := mustKey(t, s, "w-key")
		if got == nil || len(got.Webhooks) != 2 || len(got.Webhooks[0].EventTypes) != len(config.WebhookEventTypes) ||
			got.Webhooks[1].URL != "https://b.example/some" || !slices.Equal(got.Webhooks[1].EventTypes, []string{"cache_miss"}) {
			t.Fatalf("read back %+v", got)
		}
		a.Webhooks = a.Webhooks[1:]
		if err := s.Update(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		if got := mustKey(t, s, "w-key"); len(got.Webhooks) != 1 {
			t.Fatalf("after update: %+v", got.Webhooks)
		}
	})
}
