package apps

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

// newSource builds a Source from a YAML config and an app store URL.
func newSource(t *testing.T, yaml, url string) (*Source, *syncBuffer) {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AppStore.URL = url
	var logs syncBuffer
	s, err := New(&cfg, slog.New(slog.NewTextHandler(&logs, nil)), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &logs
}

func TestConfiguredAppsWinOnAClash(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		db.InsertSoketiApp(t, "apps", "file-id", "db-key", "db-secret", 0)
		db.InsertSoketiApp(t, "apps", "db-id", "file-key", "db-secret", 0)
		db.InsertSoketiApp(t, "apps", "db-only", "db-only-key", "db-secret", 0)
		s, logs := newSource(t, "apps:\n  - {id: file-id, key: file-key, secret: file-secret}\n", db.URL)
		if a := mustKey(t, s, "file-key"); a == nil || a.Secret != "file-secret" {
			t.Errorf("file-key = %+v, want the configured app", a)
		}
		if a := mustKey(t, s, "db-key"); a != nil {
			t.Errorf("a row with a configured app's id is served: %+v", a)
		}
		if a := mustKey(t, s, "db-only-key"); a == nil || a.Secret != "db-secret" {
			t.Errorf("db-only-key = %+v, want the row", a)
		}
		mustKey(t, s, "db-key")
		if n := strings.Count(logs.String(), "configured app wins"); n != 1 {
			t.Errorf("%d clash log lines, want 1:\n%s", n, logs)
		}
	})
}

func TestDevelopmentAppIsNotServedWithADatabase(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		s, _ := newSource(t, "", db.URL)
		if a := mustKey(t, s, "app-key"); a != nil {
			t.Errorf("the development app, whose secret is public, is served beside a database: %+v", a)
		}
	})
}

func TestFileSourceIsReadOnly(t *testing.T) {
	s, _ := newSource(t, "", "")
	ctx := context.Background()
	a := config.App{ID: "new", Key: "new-key", Secret: "s"}
	if err := s.Create(ctx, &a); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Create = %v, want ErrReadOnly", err)
	}
	if err := s.Delete(ctx, "app-id"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Delete = %v, want ErrReadOnly", err)
	}
	if list, err := s.List(ctx, "", 10); err != nil || len(list) != 1 || list[0].ID != "app-id" {
		t.Errorf("List = %v, %v; want the development app", list, err)
	}
}

func TestManageAppsInTheDatabase(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		s, _ := newSource(t, "apps:\n  - {id: file-id, key: file-key, secret: s}\n", db.URL)
		ctx := context.Background()
		a := config.App{ID: "made", Key: "made-key", Secret: "made-secret", ClientEvents: true, MaxConnections: 3}
		if err := s.Create(ctx, &a); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if got := mustKey(t, s, "made-key"); got == nil || got.Secret != "made-secret" || !got.ClientEvents || got.MaxConnections != 3 {
			t.Fatalf("created app reads back as %+v", got)
		}
		dup := config.App{ID: "other", Key: "made-key", Secret: "s"}
		if err := s.Create(ctx, &dup); !errors.Is(err, ErrConflict) {
			t.Errorf("Create with a taken key = %v, want ErrConflict", err)
		}
		clash := config.App{ID: "file-id", Key: "fresh", Secret: "s"}
		if err := s.Create(ctx, &clash); !errors.Is(err, ErrConflict) {
			t.Errorf("Create with a configured app's id = %v, want ErrConflict", err)
		}
		bad := config.App{ID: "bad id", Key: "k", Secret: "s"}
		if err := s.Create(ctx, &bad); err == nil || !strings.Contains(err.Error(), "config: id:") {
			t.Errorf("Create with a bad id = %v, want the config rule's error", err)
		}
		off := false
		a.Enabled, a.Secret = &off, "rotated"
		if err := s.Update(ctx, &a); err != nil {
			t.Fatalf("Update: %v", err)
		}
		if got := mustKey(t, s, "made-key"); got.IsEnabled() || got.Secret != "rotated" {
			t.Errorf("after Update the cache holds %+v, want it disabled with the new secret at once", got)
		}
		if list, err := s.List(ctx, "", 10); err != nil || len(list) != 1 || list[0].ID != "made" {
			t.Errorf("List = %+v, %v", list, err)
		}
		if err := s.Delete(ctx, "made"); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if err := s.Delete(ctx, "made"); !errors.Is(err, ErrNotFound) {
			t.Errorf("second Delete = %v, want ErrNotFound", err)
		}
		if err := s.Update(ctx, &a); !errors.Is(err, ErrNotFound) {
			t.Errorf("Update of a deleted app = %v, want ErrNotFound", err)
		}
		testutil.Eventually(t, 5*time.Second, "the deleted app gone", func() bool { return mustKey(t, s, "made-key") == nil })
	})
}

// TestCachedByKeyNeverAsksTheDatabase: a configured app and an app the
// cache holds are answered without waiting; an app not asked for yet is
// left to ByKey, which asks the database.
func TestCachedByKeyNeverAsksTheDatabase(t *testing.T) {
	eachDB(t, func(t *testing.T, db *testutil.TestDB) {
		db.InsertSoketiApp(t, "apps", "db-id", "db-key", "db-secret", 0)
		s, _ := newSource(t, "apps:\n  - {id: file-id, key: file-key, secret: file-secret}\n", db.URL)
		if a, known := s.CachedByKey("file-key"); !known || a == nil || a.ID != "file-id" {
			t.Fatalf("configured app: %+v, %v", a, known)
		}
		if a, known := s.CachedByKey("db-key"); known {
			t.Fatalf("an app never asked for is known without the database: %+v", a)
		}
		mustKey(t, s, "db-key")
		if a, known := s.CachedByKey("db-key"); !known || a == nil || a.ID != "db-id" {
			t.Fatalf("cached app: %+v, %v", a, known)
		}
	})
}
