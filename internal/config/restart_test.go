package config

import (
	"slices"
	"testing"
)

// TestRestartNeededNamesChangedSettings checks that every setting that
// changed is named by its path, apps and the limits a reload applies are
// not, and an unchanged configuration names nothing.
func TestRestartNeededNamesChangedSettings(t *testing.T) {
	running := mustParse(t, "addr: 127.0.0.1:7000\nlimits: {max_message_size: 10, max_connections: 10}\napps: [{id: a, key: k, secret: s}]\n")
	loaded := mustParse(t, "addr: 127.0.0.1:7001\nlimits: {max_message_size: 20, max_connections: 20}\ntransport: portable\napps: [{id: b, key: k2, secret: s2}]\n")
	got := RestartNeeded(&running, &loaded)
	want := []string{"addr", "transport", "limits.max_message_size"}
	if !slices.Equal(got, want) {
		t.Errorf("RestartNeeded = %v, want %v", got, want)
	}
	if got := RestartNeeded(&running, &running); len(got) != 0 {
		t.Errorf("an unchanged configuration needs a restart for %v", got)
	}
}

// TestWithLiveTakesOnlyLiveSettings checks that WithLive takes a live
// limit from the loaded configuration and keeps the running value of a
// setting that needs a restart.
func TestWithLiveTakesOnlyLiveSettings(t *testing.T) {
	running := mustParse(t, "limits: {max_message_size: 10, max_connections_per_ip: 1}\n")
	loaded := mustParse(t, "limits: {max_message_size: 20, max_connections_per_ip: 2}\nloops: 3\n")
	got := WithLive(&running, &loaded)
	if got.Limits.MaxConnectionsPerIP != 2 || got.Limits.MaxMessageSize != 10 || got.Loops != running.Loops {
		t.Errorf("WithLive: per-IP %d (want 2), message size %d (want 10), loops %d (want %d)",
			got.Limits.MaxConnectionsPerIP, got.Limits.MaxMessageSize, got.Loops, running.Loops)
	}
}
