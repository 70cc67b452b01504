package apps

import (
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

// triggerSQL returns the NOTIFY trigger as docs/apps.md gives it, so the
// test proves the documented SQL works.
func triggerSQL(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/apps.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(CREATE OR REPLACE FUNCTION roost_apps_notify.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/apps.md has no roost_apps_notify trigger")
	}
	return string(m[1])
}

func TestNotifyAppliesChangesAtOnce(t *testing.T) {
	db := testutil.NewPostgres(t)
	db.Exec(t, testutil.SoketiSchema(true, "apps"))
	db.Exec(t, triggerSQL(t))
	db.InsertSoketiApp(t, "apps", "watched", "watched-key", "old", 10)
	// A refresh interval far longer than the test: only NOTIFY can make
	// these changes visible in time.
	s, off, _ := openStore(t, db.URL, func(c *config.AppStore) { c.Refresh, c.UnknownTTL = time.Hour, time.Hour })
	mustKey(t, s, "watched-key")
	if a := mustKey(t, s, "new-key"); a != nil {
		t.Fatal("found before it was inserted")
	}
	// The LISTEN connection may not be up yet: repeat the change until it
	// is seen.
	testutil.Eventually(t, 10*time.Second, "the disabled app to be seen through NOTIFY", func() bool {
		db.Exec(t, `UPDATE apps SET "enabled" = 0, secret = 'new' WHERE id = 'watched'`)
		return off.has("watched") && mustKey(t, s, "watched-key").Secret == "new"
	})
	db.InsertSoketiApp(t, "apps", "new", "new-key", "s", 10)
	testutil.Eventually(t, 10*time.Second, "the inserted app to be served through NOTIFY", func() bool {
		return mustKey(t, s, "new-key") != nil
	})
}
