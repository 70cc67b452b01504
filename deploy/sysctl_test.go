package deploy

import (
	"bufio"
	"maps"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const sysctlFile = "deploy/sysctl/90-roost.conf"

// sysctlSettings parses "key = value" lines; commented settings ("# key =
// value") are returned in commented.
func sysctlSettings(text string) (active, commented map[string]string) {
	active, commented = map[string]string{}, map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		line, _, _ = strings.Cut(line, "  #") // a comment after the value
		into := active
		if rest, ok := strings.CutPrefix(line, "#"); ok {
			into, line = commented, strings.TrimSpace(rest)
		}
		k, v, ok := strings.Cut(line, " = ")
		if ok && !strings.Contains(k, " ") {
			into[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return active, commented
}

// sysctlInt returns an active integer setting of 90-roost.conf.
func sysctlInt(t *testing.T, key string) int {
	t.Helper()
	active, _ := sysctlSettings(string(readRepoFile(t, sysctlFile)))
	n, err := strconv.Atoi(active[key])
	if err != nil {
		t.Fatalf("%s: %s = %q: %v", sysctlFile, key, active[key], err)
	}
	return n
}

// TestSysctlMatchesCapacityGuide checks that 90-roost.conf carries every
// setting of the capacity guide's sysctl listing with the same value
// (active, or commented where the guide says it applies only sometimes),
// and that this kernel knows each active key.
func TestSysctlMatchesCapacityGuide(t *testing.T) {
	guide := string(readRepoFile(t, "docs/capacity.md"))
	start := strings.Index(guide, "# /etc/sysctl.d/90-roost.conf")
	end := strings.Index(guide[max(start, 0):], "# systemd unit")
	if start < 0 || end < 0 {
		t.Fatal("docs/capacity.md has no sysctl listing")
	}
	want, _ := sysctlSettings(guide[start : start+end])
	active, commented := sysctlSettings(string(readRepoFile(t, sysctlFile)))
	all := maps.Clone(commented)
	maps.Copy(all, active)
	if !maps.Equal(all, want) {
		t.Errorf("%s sets %v, the capacity guide %v", sysctlFile, all, want)
	}
	if runtime.GOOS != "linux" {
		return
	}
	for k := range active {
		if _, err := os.Stat("/proc/sys/" + strings.ReplaceAll(k, ".", "/")); err != nil {
			t.Errorf("%s: this kernel has no %s: %v", sysctlFile, k, err)
		}
	}
}
