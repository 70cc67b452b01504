package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/roostproject/roost/internal/server"
)

// Build stamps that `make release` sets with -ldflags -X (the version itself
// is server.Version, which the banner and /metrics report too). A plain
// `go build` leaves them empty; version then falls back to what the Go
// toolchain recorded in the binary.
var (
	commit    string // full commit hash
	buildDate string // RFC 3339, UTC
)

// buildInfo describes the running binary for `roost version`.
type buildInfo struct {
	Version  string
	Commit   string
	Modified bool // built from a tree with uncommitted changes
	Date     string
	Go       string
	Platform string
}

// currentBuild returns the running binary's build information.
func currentBuild() buildInfo {
	b := buildInfo{
		Version: server.Version, Commit: commit, Date: buildDate,
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.fill(bi.Settings)
	}
	return b
}

// fill takes the commit from the toolchain's VCS stamps (go build inside a
// git checkout records vcs.revision and vcs.modified) when the linker flags
// did not set it.
func (b *buildInfo) fill(settings []debug.BuildSetting) {
	vcs := make(map[string]string)
	for _, s := range settings {
		vcs[s.Key] = s.Value
	}
	if b.Commit == "" {
		b.Commit = vcs["vcs.revision"]
		b.Modified = vcs["vcs.modified"] == "true"
	}
}

// print writes the version report: the first line is "roost VERSION",
// which scripts may parse; the rest is one "key: value" per line.
func (b buildInfo) print(w io.Writer) {
	commit, date := b.Commit, b.Date
	if commit == "" {
		commit = "unknown"
	}
	if b.Modified {
		commit += " (modified)"
	}
	if date == "" {
		date = "unknown"
	}
	fmt.Fprintf(w, "roost %s\ncommit: %s\nbuilt: %s\ngo: %s %s\n", b.Version, commit, date, b.Go, b.Platform)
}
