package config

import (
	"slices"
	"testing"
)

// TestRestartNeededNamesChangedSettings checks that every setting that
// changed is named by its path, apps are not, and an unchanged
// configuration names nothing.
func TestRestartNeededNamesChangedSettings(t *testing.T) {
	running := mustParse(t, "addr: 127.0.0.1:7000\nlimits: {max_connections: 10}\napps: [{id: a, key: k, secret: s}]\n")
	loaded := mustParse(t, "addr: 127.0.0.1:7001\nlimits: {max_connections: 20}\ntransport: portable\napps: [{id: b, key: k2, secret: s2}]\n")
	got := RestartNeeded(&running, &loaded)
	want := []string{"addr", "transport", "limits.max_connections"}
	if !slices.Equal(got, want) {
		t.Errorf("RestartNeeded = %v, want %v", got, want)
	}
	if got := RestartNeeded(&running, &running); len(got) != 0 {
		t.Errorf("an unchanged configuration needs a restart for %v", got)
	}
}
