package config

import (
	"fmt"
	"strings"
	"testing"
)

func TestAppLookup(t *testing.T) {
	c := mustParse(t, fullYAML)
	tests := []struct {
		key, id string
		want    *App
	}{
		{"k1", "1", &c.Apps[0]},
		{"k2", "app-2", &c.Apps[1]},
		{"nope", "nope", nil},
		{"", "", nil},
	}
	for _, tt := range tests {
		if got := c.AppByKey(tt.key); got != tt.want {
			t.Errorf("AppByKey(%q) = %p, want %p", tt.key, got, tt.want)
		}
		if got := c.AppByID(tt.id); got != tt.want {
			t.Errorf("AppByID(%q) = %p, want %p", tt.id, got, tt.want)
		}
	}
	if c.AppByKey("1") != nil || c.AppByID("k1") != nil {
		t.Error("a key must not find an app by id, nor an id by key")
	}
}

func TestAppLookupSurvivesCopyAndReplace(t *testing.T) {
	c := Default()
	copied := c
	if copied.AppByKey("app-key") != &c.Apps[0] {
		t.Error("a copied Config must find the same app")
	}
	c.Apps = []App{{ID: "x", Key: "kx", Secret: "s"}}
	if a := c.AppByKey("kx"); a != &c.Apps[0] {
		t.Errorf("after replacing Apps, AppByKey(kx) = %v", a)
	}
	if c.AppByKey("app-key") != nil || c.AppByID("app-id") != nil {
		t.Error("after replacing Apps, the old app must be gone")
	}
	var hand Config
	hand.Apps = []App{{ID: "h", Key: "kh"}}
	if hand.AppByID("h") != &hand.Apps[0] || hand.AppByKey("missing") != nil {
		t.Error("a Config built by hand must be scanned")
	}
}

func TestIsEnabled(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		enabled *bool
		want    bool
	}{{nil, true}, {&yes, true}, {&no, false}} {
		a := App{Enabled: tt.enabled}
		if a.IsEnabled() != tt.want {
			t.Errorf("IsEnabled with %v = %v", tt.enabled, !tt.want)
		}
	}
}

func TestIsDevelopment(t *testing.T) {
	tests := []struct {
		yaml string
		want bool
	}{
		{"", true},
		{"apps: [{id: app-id, key: app-key, secret: app-secret}]\n", true},
		{"apps: [{id: app-id, key: app-key, secret: real}]\n", false},
		{"apps: [{id: app-id, key: app-key, secret: app-secret}, {id: b, key: k, secret: s}]\n", false},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.yaml)
		if c.IsDevelopment() != tt.want {
			t.Errorf("%q: IsDevelopment() = %v", tt.yaml, !tt.want)
		}
	}
}

func TestAppByKeyDoesNotAllocate(t *testing.T) {
	c := manyApps(t, 100)
	allocs := testing.AllocsPerRun(100, func() {
		_ = c.AppByKey("key-50")
		_ = c.AppByID("id-99")
		_ = c.AppByKey("missing")
	})
	if allocs != 0 {
		t.Errorf("lookups allocate %v times per run", allocs)
	}
}

// manyApps loads a config with n apps named id-i / key-i.
func manyApps(tb testing.TB, n int) Config {
	tb.Helper()
	yaml := "apps:\n"
	for i := range n {
		yaml += fmt.Sprintf("  - {id: id-%d, key: key-%d, secret: s}\n", i, i)
	}
	c, err := Parse([]byte(yaml), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkAppByKey measures the lookup done on every WebSocket handshake.
func BenchmarkAppByKey(b *testing.B) {
	c := manyApps(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if c.AppByKey("key-500") == nil {
			b.Fatal("not found")
		}
	}
}

// BenchmarkAppByID measures the lookup done on every HTTP API request.
func BenchmarkAppByID(b *testing.B) {
	c := manyApps(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if c.AppByID("id-500") == nil {
			b.Fatal("not found")
		}
	}
}

// BenchmarkLoadExample measures a full load (startup cost only).
func BenchmarkLoadExample(b *testing.B) {
	example := []byte(Example())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(example, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCheckAppAppliesDefaultsAndTheFileRules(t *testing.T) {
	a := App{ID: "db-app", Key: "db-key", Secret: "s"}
	if err := CheckApp(&a); err != nil {
		t.Fatalf("CheckApp(valid app) = %v", err)
	}
	if !a.IsEnabled() || a.MaxPresenceMembers != 100 || a.MaxPresenceUserInfo != 1024 {
		t.Errorf("defaults not applied: %+v", a)
	}
	bad := App{ID: "bad id", Key: "k", MaxConnections: -2}
	err := CheckApp(&bad)
	for _, want := range []string{`config: id: "bad id" may only hold`, "config: secret: must not be empty", "config: max_connections: must be >= 0, got -2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckApp(bad) = %v, want it to contain %q", err, want)
		}
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{"app-key": true, "a.b_c-1": true, "": false, "a b": false, "ключ": false, "a/b": false} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}
