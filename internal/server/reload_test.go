package server

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

// reloadServer builds, without listening, a node of yaml whose log is
// kept.
func reloadServer(t *testing.T, yaml string) (*Server, *logBuffer) {
	t.Helper()
	cfg := parseConfig(t, yaml)
	logs := &logBuffer{}
	srv, err := New(cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return srv, logs
}

func parseConfig(t *testing.T, yaml string) config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestReloadRefusesThePublicAppOnAnOpenAddress checks that a reload to a
// file without apps (which means the development app, whose secret is
// public) is refused on a node bound beyond loopback, even when the new
// file names a loopback address, which would only apply at a restart.
func TestReloadRefusesThePublicAppOnAnOpenAddress(t *testing.T) {
	srv, logs := reloadServer(t, "addr: 0.0.0.0:6001\napps: [{id: a, key: a-key, secret: a-secret}]\n")
	if err := srv.Reload(parseConfig(t, "addr: 127.0.0.1:6001\n")); err == nil {
		t.Fatal("a reload to the development app on 0.0.0.0 was applied")
	}
	if a, _ := srv.apps.ByKey(context.Background(), "a-key"); a == nil {
		t.Error("the refused reload dropped the running apps")
	}
	if !srv.loaded.get().Failed || !strings.Contains(logs.String(), "config reload refused") {
		t.Errorf("the refusal is not recorded and logged:\n%s", logs)
	}
}

// TestReloadNamesWhatNeedsARestart checks that a reload names the changed
// settings that need a restart, not the webhooks it gives an app, and
// that the apps still apply.
func TestReloadNamesWhatNeedsARestart(t *testing.T) {
	srv, logs := reloadServer(t, "addr: 127.0.0.1:0\napps: [{id: a, key: a-key, secret: a-secret}]\n")
	next := parseConfig(t, "addr: 127.0.0.1:0\nloops: 3\napps:\n  - id: a\n    key: a-key\n    secret: new\n"+
		"    webhooks: [{url: 'http://127.0.0.1:1/hook'}]\n")
	if err := srv.Reload(next); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "setting=loops") || strings.Contains(logs.String(), "webhooks") {
		t.Errorf("the log does not name loops, and only loops, as needing a restart:\n%s", logs)
	}
	if a, _ := srv.apps.ByKey(context.Background(), "a-key"); a == nil || a.Secret != "new" {
		t.Errorf("the reload did not apply the app: %+v", a)
	}
}

// TestReloadAddsWebhooks: on a node that started with no webhooks at all
// (and no app store), a reload that gives an app a webhook URL has the
// app's next events sent there, signed with its secret, on each transport.
func TestReloadAddsWebhooks(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			backend := newHookBackend(t, "app-key", "app-secret")
			s := startServer(t, tr, func(c *config.Config) { c.Webhooks.Delay = 100 * time.Millisecond })
			next := *s.cfg
			next.Apps = slices.Clone(next.Apps)
			next.Apps[0].Webhooks = []config.Webhook{{URL: backend.URL}}
			if err := s.Reload(next); err != nil {
				t.Fatal(err)
			}
			s.connect(t).Subscribe("cache-reloaded")
			testutil.Eventually(t, waitLimit, "channel_occupied and cache_miss at the URL the reload added", func() bool {
				return backend.has(`{"name":"channel_occupied","channel":"cache-reloaded"}`) && backend.has(`{"name":"cache_miss","channel":"cache-reloaded"}`)
			})
		})
	}
}
