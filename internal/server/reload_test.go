package server

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
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

// TestReloadNamesWebhooksThatNeedARestart checks that webhooks added by a
// reload to a node that started without any are named as needing a
// restart, with the other changed settings, and that the apps still apply.
func TestReloadNamesWebhooksThatNeedARestart(t *testing.T) {
	srv, logs := reloadServer(t, "addr: 127.0.0.1:0\napps: [{id: a, key: a-key, secret: a-secret}]\n")
	next := parseConfig(t, "addr: 127.0.0.1:0\nloops: 3\napps:\n  - id: a\n    key: a-key\n    secret: new\n"+
		"    webhooks: [{url: 'http://127.0.0.1:1/hook'}]\n")
	if err := srv.Reload(next); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"setting=loops", "apps[].webhooks"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not name %s as needing a restart:\n%s", want, logs)
		}
	}
	if a, _ := srv.apps.ByKey(context.Background(), "a-key"); a == nil || a.Secret != "new" {
		t.Errorf("the reload did not apply the app: %+v", a)
	}
}
