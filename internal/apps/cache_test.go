package apps

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/config"
)

func TestUnknownEntriesExpireAfterTheirTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newDB(config.AppStore{UnknownTTL: 5 * time.Second, Refresh: 10 * time.Second}, slog.New(slog.DiscardHandler), Hooks{})
		s.markUnknown(colKey, "nope")
		if a, known := s.cached(colKey, "nope"); a != nil || !known {
			t.Fatalf("cached = %v, %v; want known unknown", a, known)
		}
		time.Sleep(5 * time.Second)
		if _, known := s.cached(colKey, "nope"); known {
			t.Error("still known unknown after its TTL")
		}
	})
}

func TestUnknownTTLNeverOutlivesTheRefresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newDB(config.AppStore{UnknownTTL: time.Hour, Refresh: 2 * time.Second}, slog.New(slog.DiscardHandler), Hooks{})
		s.markUnknown(colID, "nope")
		time.Sleep(2 * time.Second)
		if _, known := s.cached(colID, "nope"); known {
			t.Error("an unknown id outlived the refresh interval")
		}
	})
}

func TestUnknownCacheIsBounded(t *testing.T) {
	s := newDB(config.AppStore{UnknownTTL: time.Hour, Refresh: time.Hour}, slog.New(slog.DiscardHandler), Hooks{})
	for i := range maxUnknown + 10 {
		s.markUnknown(colKey, string(rune(i)))
	}
	if n := len(s.unknown); n > maxUnknown {
		t.Errorf("%d unknown entries, want at most %d", n, maxUnknown)
	}
}

func TestOutageLogIsRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs syncBuffer
		h := health{log: slog.New(slog.NewTextHandler(&logs, nil))}
		down := errors.New("connection refused")
		for range 100 {
			h.fail(down)
		}
		if n := strings.Count(logs.String(), "app store unreachable"); n != 1 {
			t.Fatalf("%d outage lines for 100 failures at once, want 1", n)
		}
		time.Sleep(logEvery)
		h.fail(down)
		if !strings.Contains(logs.String(), "failures_since_last_line=99") {
			t.Errorf("the second line does not count the failures in between:\n%s", logs.String())
		}
		if h.get() == nil {
			t.Error("get() = nil during the outage")
		}
		h.ok()
		if h.get() != nil || !strings.Contains(logs.String(), "reachable again") {
			t.Errorf("after ok(): get() = %v, log:\n%s", h.get(), logs.String())
		}
	})
}

func TestDisableIsReportedOnlyWhenAnAppIsSwitchedOff(t *testing.T) {
	var off disabled
	s := newDB(config.AppStore{}, slog.New(slog.DiscardHandler), Hooks{OnDisable: off.add})
	on, no := true, false
	s.put(config.App{ID: "a", Key: "k", Secret: "s", Enabled: &on}, nil)
	s.put(config.App{ID: "a", Key: "k", Secret: "new", Enabled: &on}, nil)
	if off.has("a") {
		t.Fatal("a secret change was reported as a disable")
	}
	s.put(config.App{ID: "a", Key: "k2", Secret: "new", Enabled: &no}, nil)
	if !off.has("a") {
		t.Error("switching the app off was not reported")
	}
	if a, _ := s.cached(colKey, "k"); a != nil {
		t.Error("the app's old key still finds it")
	}
}
