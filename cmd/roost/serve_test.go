package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// runServe runs `roost serve args...` and returns its exit code and output.
func runServe(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"serve"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestServeHelpListsEveryVariable(t *testing.T) {
	code, out, _ := runServe(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// The table's second column holds every setting's variable.
	rows := strings.Split(strings.TrimSpace(config.Markdown()), "\n")[2:]
	for _, row := range rows {
		env := strings.Trim(strings.Split(row, "|")[2], " `")
		if !strings.Contains(out, "\n  "+env+" (default ") {
			t.Errorf("--help does not list %s", env)
		}
	}
	for _, flag := range []string{"addr", "transport", "tls-cert", "tls-key", "redis-url", "redis-prefix", "config", "print-config"} {
		if !strings.Contains(out, "\n  -"+flag) {
			t.Errorf("--help does not list --%s", flag)
		}
	}
}

func TestServePrintConfig(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--print-config"}, config.Example()},
		{[]string{"--print-config=yaml"}, config.Example()},
		{[]string{"--print-config=markdown"}, config.Markdown()},
	} {
		code, out, errOut := runServe(t, tt.args...)
		if code != 0 || out != tt.want {
			t.Errorf("%v: exit %d, stderr %q, output differs from the generated document", tt.args, code, errOut)
		}
	}
}

func TestServePrintedConfigLoads(t *testing.T) {
	_, out, _ := runServe(t, "--print-config")
	if _, err := config.Parse([]byte(out), nil); err != nil {
		t.Fatal(err)
	}
}

func TestServeBadFlagValueNamesTheFlag(t *testing.T) {
	t.Setenv("ROOST_ADDR", "127.0.0.1:0")
	code, _, errOut := runServe(t, "--addr=localhost")
	if code != 1 || !strings.Contains(errOut, `config: addr (--addr): want host:port, got "localhost"`) {
		t.Fatalf("exit %d, stderr %q: want the error to name --addr", code, errOut)
	}
	t.Setenv("ROOST_ADDR", "localhost")
	code, _, errOut = runServe(t)
	if code != 1 || !strings.Contains(errOut, "config: addr (ROOST_ADDR): ") {
		t.Fatalf("exit %d, stderr %q: want the error to name ROOST_ADDR", code, errOut)
	}
}

func TestServeUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"--adr=x"}, {"--print-config=json"}, {"stray"}} {
		code, out, errOut := runServe(t, args...)
		if code != 2 || out != "" || errOut == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and a message", args, code, out, errOut)
		}
	}
}
