package main

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/server"
)

// TestVersionPrintsStamps checks that `roost version` reports what the
// release build stamps with -ldflags -X: version, commit, date, and the Go
// toolchain and platform.
func TestVersionPrintsStamps(t *testing.T) {
	defer func(v, c, d string) { server.Version, commit, buildDate = v, c, d }(server.Version, commit, buildDate)
	server.Version, commit, buildDate = "1.2.3", "0123456789abcdef0123456789abcdef01234567", "2025-01-02T03:04:05Z"
	var out bytes.Buffer
	if code := run([]string{"version"}, &out, &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	want := "roost 1.2.3\ncommit: 0123456789abcdef0123456789abcdef01234567\nbuilt: 2025-01-02T03:04:05Z\n" +
		"go: " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if out.String() != want {
		t.Fatalf("roost version printed\n%s\nwant\n%s", out.String(), want)
	}
}

// TestVersionFallsBackToVCS checks the commit of a plain `go build`: taken
// from the toolchain's vcs.* settings unless the linker set one.
func TestVersionFallsBackToVCS(t *testing.T) {
	settings := []debug.BuildSetting{
		{Key: "-trimpath", Value: "true"},
		{Key: "vcs.revision", Value: "feedface"},
		{Key: "vcs.modified", Value: "true"},
	}
	tests := []struct {
		name, stamped, wantLine string
	}{
		{"from vcs", "", "commit: feedface (modified)\n"},
		{"ldflags win", "cafe", "commit: cafe\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := buildInfo{Version: "x", Commit: tt.stamped}
			b.fill(settings)
			var out bytes.Buffer
			b.print(&out)
			if !strings.Contains(out.String(), tt.wantLine) {
				t.Fatalf("got\n%s\nwant a line %q", out.String(), tt.wantLine)
			}
		})
	}
}

func TestVersionUnknownStamps(t *testing.T) {
	var out bytes.Buffer
	buildInfo{Version: "x"}.print(&out)
	for _, line := range []string{"commit: unknown\n", "built: unknown\n"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("missing %q in\n%s", line, out.String())
		}
	}
}
