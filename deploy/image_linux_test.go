package deploy

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// TestImageDeclarations checks the runtime stage against roost's defaults:
// a static base without a shell, a non-root user, the port roost listens
// on, the health check on /up through roost probe, and SIGTERM (roost's
// drain signal).
func TestImageDeclarations(t *testing.T) {
	final, build := dockerfile(t)
	im := parseImage(t, final)
	if !strings.Contains(im.from, "distroless/static") && im.from != "scratch" {
		t.Errorf("runtime base %q: want distroless/static or scratch (a static binary needs nothing else)", im.from)
	}
	if uid, err := strconv.Atoi(strings.Split(im.user, ":")[0]); err != nil || uid == 0 {
		t.Errorf("USER %q: want a numeric non-root uid (Kubernetes' runAsNonRoot can only check numbers)", im.user)
	}
	addr := im.env["ROOST_ADDR"]
	if host, p := splitHostPort(t, addr); host != "0.0.0.0" || p != im.expose {
		t.Errorf("ROOST_ADDR=%q and EXPOSE %q: want 0.0.0.0 on the exposed port", addr, im.expose)
	}
	if p := port(t, defaults().Addr); im.expose != p {
		t.Errorf("EXPOSE %s, but roost's default port is %s", im.expose, p)
	}
	if im.stop != "SIGTERM" {
		t.Errorf("STOPSIGNAL %q: roost drains on SIGTERM", im.stop)
	}
	if len(im.entrypoint) != 1 || im.copied[im.entrypoint[0]] != "/out/roost" {
		t.Errorf("ENTRYPOINT %q is not the binary copied from the build stage (%v)", im.entrypoint, im.copied)
	}
	hc := healthURL(t, im)
	if hc.Path != "/up" || hc.Port() != im.expose || hc.Hostname() != "127.0.0.1" {
		t.Errorf("HEALTHCHECK probes %s: want http://127.0.0.1:%s/up", hc, im.expose)
	}
	if !strings.Contains(build, "OUT=/out/roost") {
		t.Errorf("build step %q does not write /out/roost", build)
	}
}

// healthURL returns the URL the HEALTHCHECK probes with `roost probe`.
func healthURL(t *testing.T, im image) *url.URL {
	t.Helper()
	h := im.health
	if len(h) != 3 || h[0] != im.entrypoint[0] || h[1] != "probe" {
		t.Fatalf("HEALTHCHECK CMD %q: want [%s probe URL]", h, im.entrypoint[0])
	}
	u, err := url.Parse(h[2])
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func splitHostPort(t *testing.T, addr string) (string, string) {
	t.Helper()
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		t.Fatalf("address %q has no port", addr)
	}
	return addr[:i], addr[i+1:]
}

// TestImageRuns does what a container of the image would, without Docker:
// it builds the binary with the Dockerfile's own build command, starts the
// entrypoint with the image's environment as the image's user (when this
// test may change user), runs the HEALTHCHECK command against it and stops
// it with the STOPSIGNAL. Only the listen port differs: 127.0.0.1:0
// instead of the image's fixed one.
func TestImageRuns(t *testing.T) {
	final, _ := dockerfile(t)
	im := parseImage(t, final)
	bin := imageBinary(t)
	dir := filepath.Dir(bin)

	env := environ("ROOST_APP_ID=image-test", "ROOST_APP_KEY=image-test-key", "ROOST_APP_SECRET=image-test-secret")
	for k, v := range im.env {
		env = append(env, k+"="+v)
	}
	env = append(env, "ROOST_ADDR=127.0.0.1:0") // after the image's: the last one wins below
	cmd := exec.Command(bin, im.cmd...)
	cmd.Env = lastWins(env)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	asImageUser(t, cmd, im.user, dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("roost stderr:\n%s", stderr.String())
		}
	}()
	base, ok := testutil.ServingOn(stdout)
	if !ok {
		t.Fatal("roost printed no \"serving on\" line")
	}

	hc := healthURL(t, im)
	hc.Host = strings.TrimPrefix(base, "http://")
	if out, err := exec.Command(bin, im.health[1], hc.String()).CombinedOutput(); err != nil {
		t.Fatalf("HEALTHCHECK %s: %v\n%s", hc, err, out)
	}

	sig := map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT}[im.stop]
	cmd.Process.Signal(sig)
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("after %s roost exited with %v, want 0", im.stop, waitErr)
		}
	case <-time.After(defaults().ShutdownTimeout + 5*time.Second):
		t.Fatalf("roost did not exit within shutdown_timeout of %s", im.stop)
	}
}

// built is the roost binary imageBinary builds once for the package's
// tests, in a directory TestMain removes.
var built struct {
	once sync.Once
	path string
	err  error
}

// imageBinary returns roost built by the Dockerfile's build command for
// this machine's platform, building it on first use.
func imageBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		_, build := dockerfile(t)
		built.path, built.err = buildAsDockerfile(build, filepath.Join(tempRoot, "roost"))
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// buildAsDockerfile runs the Dockerfile's build command in the repository
// root, writing the binary to bin.
func buildAsDockerfile(build, bin string) (string, error) {
	if build == "" {
		return "", errors.New("the Dockerfile has no RUN make static step")
	}
	args := map[string]string{"TARGETOS": runtime.GOOS, "TARGETARCH": runtime.GOARCH, "VERSION": "0.0.0-image-test", "COMMIT": "image-test"}
	line := strings.Replace(os.Expand(build, func(k string) string { return args[k] }), "OUT=/out/roost", "OUT="+bin, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "sh", "-c", line)
	sh.Dir = repoPath(".")
	if out, err := sh.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", line, err, out)
	}
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return "", err
	}
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" && s.Value != "0" {
			return "", errors.New("the image's binary is built with cgo: the static base image has no C library")
		}
	}
	return bin, nil
}

// asImageUser makes cmd run as the image's USER when this process may
// switch users (it runs as root), so the test also shows that roost needs
// no privileges; the binary's directory is made readable for that user.
func asImageUser(t *testing.T, cmd *exec.Cmd, user, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Logf("not root: running the entrypoint as uid %d instead of the image's %s", os.Geteuid(), user)
		return
	}
	ids := strings.Split(user, ":")
	uid, _ := strconv.Atoi(ids[0])
	gid := uid
	if len(ids) == 2 {
		gid, _ = strconv.Atoi(ids[1])
	}
	os.Chmod(dir, 0o755) // os.MkdirTemp makes it 0700
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
}

// lastWins keeps the last entry of each variable, as a container runtime
// applies the image's ENV and then the run's -e flags.
func lastWins(env []string) []string {
	seen := map[string]bool{}
	var out []string
	for i := len(env) - 1; i >= 0; i-- {
		k, _, _ := strings.Cut(env[i], "=")
		if !seen[k] {
			seen[k] = true
			out = append(out, env[i])
		}
	}
	return out
}
