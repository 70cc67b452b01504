package config

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the settings table in README.md")

// The README's settings table sits between these lines.
const (
	readmePath     = "../../README.md"
	tableStartLine = "<!-- settings table: "
	tableEndLine   = "<!-- end of settings table -->"
)

// TestREADMESettingsTable fails when the README's table of settings is not
// what Markdown generates; -update rewrites it.
func TestREADMESettingsTable(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	before, table, after, ok := splitTable(string(readme))
	if !ok {
		t.Fatalf("README.md has no %q ... %q block", tableStartLine, tableEndLine)
	}
	// A blank line ends the table before the end marker, whatever the
	// Markdown renderer thinks of HTML comments.
	want := Markdown() + "\n"
	if table == want {
		return
	}
	if !*update {
		t.Fatalf("README.md's settings table is stale; run go test ./internal/config -run TestREADMESettingsTable -update\ngot:\n%s\nwant:\n%s", table, want)
	}
	if err := os.WriteFile(readmePath, []byte(before+want+after), 0o644); err != nil {
		t.Fatal(err)
	}
}

// splitTable cuts readme around the table: before ends with the start
// marker's comment, after starts with the end marker.
func splitTable(readme string) (before, table, after string, ok bool) {
	i := strings.Index(readme, tableStartLine)
	if i < 0 {
		return "", "", "", false
	}
	close := strings.Index(readme[i:], "-->\n")
	j := strings.Index(readme, tableEndLine)
	if close < 0 || j < i+close {
		return "", "", "", false
	}
	start := i + close + len("-->\n")
	return readme[:start], readme[start:j], readme[j:], true
}

func TestMarkdownHasEverySetting(t *testing.T) {
	md := Markdown()
	for _, f := range settings(schema()) {
		row := "| `" + f.path + "` | `" + f.env + "` |"
		if !strings.Contains(md, row) {
			t.Errorf("Markdown lacks %s", row)
		}
	}
	if rows := strings.Count(md, "\n"); rows != len(settings(schema()))+2 {
		t.Errorf("Markdown has %d lines, want a header, a rule and one row per setting", rows)
	}
}

func TestEnvUsageListsEveryVariable(t *testing.T) {
	var b bytes.Buffer
	EnvUsage(&b)
	for _, f := range settings(schema()) {
		if !strings.Contains(b.String(), "\n  "+f.env+" (default ") && !strings.HasPrefix(b.String(), "  "+f.env+" ") {
			t.Errorf("EnvUsage lacks %s", f.env)
		}
	}
}

func TestExampleIsValidYAMLWithShortLines(t *testing.T) {
	for i, line := range strings.Split(Example(), "\n") {
		if len(line) > 80 {
			t.Errorf("line %d is %d bytes: %q", i+1, len(line), line)
		}
	}
}

// TestSecurityGuideNamesEveryLimit: docs/security.md states every limit an
// operator can set, so a new limit cannot ship without its line there.
func TestSecurityGuideNamesEveryLimit(t *testing.T) {
	guide, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(Markdown(), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 2 {
			continue
		}
		key := strings.Trim(strings.TrimSpace(cells[1]), "`")
		limit := strings.HasPrefix(key, "limits.") || strings.HasPrefix(key, "apps[].max_") ||
			key == "apps[].allowed_origins" || strings.HasPrefix(key, "metrics.") || key == "admin.token"
		if limit && !strings.Contains(string(guide), "`"+key+"`") {
			t.Errorf("docs/security.md does not name the limit %s", key)
		}
	}
}
