package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

const unitFile = "deploy/systemd/roost.service"

// unitValues returns every Key=value of a systemd unit file, in order, by
// key (a key may repeat).
func unitValues(t *testing.T, rel string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(string(readRepoFile(t, rel))))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: bad line %q", rel, line)
		}
		out[k] = append(out[k], v)
	}
	return out
}

// TestSystemdUnitVerifies runs `systemd-analyze verify` on the unit, with
// ExecStart pointed at a roost binary built here (verify requires the
// executable to exist; every other line is checked as shipped). verify
// exits 0 even for unknown keys, so any output fails the test. Without
// systemd-analyze (Debian's systemd package; .ci/run installs it) it is
// skipped, or fails in CI.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		testutil.Needs(t, "systemd-analyze is not installed (Debian package systemd)")
	}
	unit := strings.ReplaceAll(string(readRepoFile(t, unitFile)), "/usr/local/bin/roost", imageBinary(t))
	path := filepath.Join(t.TempDir(), "roost.service")
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestSystemdUnitMatchesRoost checks the unit against roost: the command
// and environment roost accepts, more stop time than roost's drain, and an
// open-file limit that works with or without the sysctl file.
func TestSystemdUnitMatchesRoost(t *testing.T) {
	u := unitValues(t, unitFile)
	one := func(k string) string {
		if len(u[k]) != 1 {
			t.Fatalf("%s: want one %s=, got %q", unitFile, k, u[k])
		}
		return u[k][0]
	}
	args := strings.Fields(one("ExecStart"))
	if len(args) != 4 || args[1] != "serve" || args[2] != "--config" || !strings.HasPrefix(args[3], "%d/") {
		t.Errorf("ExecStart %q: want roost serve --config %%d/FILE (the credential)", args)
	}
	cred, _, _ := strings.Cut(one("LoadCredential"), ":")
	if len(args) == 4 && args[3] != "%d/"+cred {
		t.Errorf("ExecStart reads %s, but the credential is %s", args[3], cred)
	}
	loadConfig(t, unitFile+" Environment", u["Environment"])

	d := defaults()
	stop, err := time.ParseDuration(one("TimeoutStopSec"))
	if err != nil || stop <= d.ShutdownTimeout {
		t.Errorf("TimeoutStopSec=%s: want more than shutdown_timeout %s", one("TimeoutStopSec"), d.ShutdownTimeout)
	}
	if one("KillSignal") != "SIGTERM" || one("Restart") != "on-failure" {
		t.Errorf("KillSignal=%s Restart=%s: want SIGTERM (roost's drain) and on-failure", one("KillSignal"), one("Restart"))
	}
	nofile, err := strconv.Atoi(one("LimitNOFILE"))
	const kernelNrOpen = 1 << 20 // fs.nr_open's default
	if err != nil || nofile < 65536 || nofile > kernelNrOpen || nofile > sysctlInt(t, "fs.nr_open") {
		t.Errorf("LimitNOFILE=%s: want at least 65536 and at most fs.nr_open, both the kernel's default and 90-roost.conf's", one("LimitNOFILE"))
	}
	for _, k := range []string{"DynamicUser", "NoNewPrivileges", "ProtectHome", "PrivateTmp", "PrivateDevices"} {
		if one(k) != "yes" {
			t.Errorf("%s=%s, want yes", k, one(k))
		}
	}
	if one("ProtectSystem") != "strict" {
		t.Errorf("ProtectSystem=%s, want strict", one("ProtectSystem"))
	}
}
