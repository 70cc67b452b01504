package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

const adminToken = "cli-test-token-0123456789"

// startAdminNode runs a node with an app store on PostgreSQL and the admin
// API on, and returns its HTTP address.
func startAdminNode(t *testing.T) string {
	t.Helper()
	db := testutil.NewPostgres(t)
	db.Exec(t, testutil.SoketiSchema(true, "apps"))
	cfg, err := config.Parse([]byte("addr: 127.0.0.1:0\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AppStore.URL, cfg.Admin.Token = db.URL, adminToken
	_, addr := serveInProcess(t, cfg)
	return "http://" + addr
}

// runApps runs `roost apps args...` against the node at base.
func runApps(t *testing.T, base string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"apps", args[0], "--url", base, "--token", adminToken}, args[1:]...)
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestAppsCommands(t *testing.T) {
	base := startAdminNode(t)
	code, out, errOut := runApps(t, base, "create", "--id", "cli-app", "--client-events", "--max-connections", "9")
	if code != 0 || !strings.Contains(out, "id=cli-app key=") || !strings.Contains(out, "secret=") {
		t.Fatalf("create: exit %d, %q %q", code, out, errOut)
	}
	code, out, _ = runApps(t, base, "list")
	if code != 0 || !strings.Contains(out, "cli-app") || !strings.Contains(out, "true") || strings.Contains(out, "secret") {
		t.Errorf("list: exit %d, %q", code, out)
	}
	if code, out, errOut = runApps(t, base, "disable", "cli-app"); code != 0 {
		t.Fatalf("disable: exit %d, %q %q", code, out, errOut)
	}
	code, out, _ = runApps(t, base, "list")
	if code != 0 || !strings.Contains(out, "cli-app") || !strings.Contains(out, "false") {
		t.Errorf("list after disable: exit %d, %q", code, out)
	}
	code, _, errOut = runApps(t, base, "create", "--id", "bad id")
	if code != 1 || !strings.Contains(errOut, "400 Bad Request") || !strings.Contains(errOut, "config: id:") {
		t.Errorf("create with a bad id: exit %d, %q", code, errOut)
	}
	code, _, errOut = runApps(t, base, "disable", "nope")
	if code != 1 || !strings.Contains(errOut, "404") {
		t.Errorf("disable an unknown app: exit %d, %q", code, errOut)
	}
}

func TestAppsWithoutTokenFails(t *testing.T) {
	t.Setenv("ROOST_ADMIN_TOKEN", "")
	var out, errOut bytes.Buffer
	if code := run([]string{"apps", "list", "--url", "http://127.0.0.1:1"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "no admin token") {
		t.Errorf("exit %d, %q", code, errOut.String())
	}
}
