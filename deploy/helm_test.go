package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

const (
	chartDir       = "deploy/helm/roost"
	chartCIValues  = chartDir + "/ci/test-values.yaml"
	helmModule     = "helm.sh/helm/v3/cmd/helm"
	helmVersion    = "v3.22.0"
	chartConfigKey = "roost.yaml"
)

// helmOnce builds helm once per test binary.
var helmOnce = sync.OnceValues(buildHelm)

// buildHelm installs helm from the Go module proxy into the user's cache
// directory, once per version: later runs find it there.
func buildHelm() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "roost-test", "helm-"+helmVersion)
	bin := filepath.Join(dir, "helm")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "helm-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(goTool(), "install", helmModule+"@"+helmVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %v\n%s", helmModule, helmVersion, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		if _, statErr := os.Stat(bin); statErr != nil {
			return "", err
		}
	}
	return bin, nil
}

// goTool is the go command that runs these tests.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// helm runs helm with args in the repository root and returns its stdout,
// or its error with stderr.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin, err := helmOnce()
	if err != nil {
		testutil.Needs(t, "helm %s from the Go module proxy: %v", helmVersion, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = repoPath("")
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+tempRoot+"/helm-cache",
		"HELM_CONFIG_HOME="+tempRoot+"/helm-config", "HELM_DATA_HOME="+tempRoot+"/helm-data")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// chart is the objects `helm template` renders, by kind.
type chart struct {
	secret         secret
	deployment     deployment
	service        service
	pdb            podDisruptionBudget
	serviceMonitor serviceMonitor
	kinds          []string
}

// renderChart renders the chart with the CI values and args, and decodes
// every object strictly into the type of its kind.
func renderChart(t *testing.T, args ...string) *chart {
	t.Helper()
	out, err := helm(t, append([]string{"template", "roost", chartDir, "--values", chartCIValues}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	c := &chart{}
	targets := map[string]any{"Secret": &c.secret, "Deployment": &c.deployment, "Service": &c.service,
		"PodDisruptionBudget": &c.pdb, "ServiceMonitor": &c.serviceMonitor}
	dec := yaml.NewDecoder(strings.NewReader(out))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return c
		} else if err != nil {
			t.Fatalf("helm template: %v\n%s", err, out)
		}
		var tm typeMeta
		doc.Decode(&tm)
		target, ok := targets[tm.Kind]
		if !ok {
			t.Fatalf("helm template rendered a %q, which this test does not know", tm.Kind)
		}
		if err := strictDecode(&doc, target); err != nil {
			t.Errorf("rendered %s: %v", tm.Kind, err)
		}
		c.kinds = append(c.kinds, tm.Kind)
	}
}

// TestHelmChartLints runs helm lint on the chart with the CI values, in
// its strict mode (warnings fail).
func TestHelmChartLints(t *testing.T) {
	if out, err := helm(t, "lint", "--strict", chartDir, "--values", chartCIValues); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestHelmChartRenders renders the chart and checks what it deploys: every
// object decodes strictly, the config file it writes is one roost loads
// without a warning, and a node started from it answers the probes and
// the scrape path on the ports the objects name.
func TestHelmChartRenders(t *testing.T) {
	needRedis(t, "127.0.0.1:6379")
	c := renderChart(t)
	if want := []string{"Secret", "Service", "Deployment", "PodDisruptionBudget", "ServiceMonitor"}; !equalSets(c.kinds, want) {
		t.Errorf("rendered %v, want %v", c.kinds, want)
	}
	pod := c.deployment.Spec.Template.Spec
	cfg := chartConfig(t, c)
	if len(cfg.Apps) != 1 || cfg.Apps[0].ID != "helm-test" || cfg.Redis.URL == "" || cfg.Limits.MaxConnectionsPerIP != 1000 {
		t.Errorf("the rendered config lost the values' apps, backend or settings: %+v", cfg)
	}
	checkGracePeriod(t, pod, cfg)
	cfg.Redis.Prefix = fmt.Sprintf("helmtest%d", os.Getpid())
	checkProbes(t, startRoost(t, cfg), pod.Containers[0], c.serviceMonitor, c.service)
}

// chartConfig loads the configuration a rendered pod runs with: the
// Secret's config file at the path the container's args give, and the
// container's environment.
func chartConfig(t *testing.T, c *chart) config.Config {
	t.Helper()
	pod := c.deployment.Spec.Template.Spec
	ctr := pod.Containers[0]
	if len(pod.Volumes) != 1 || pod.Volumes[0].Secret.SecretName != c.secret.Metadata.Name {
		t.Fatalf("the pod's volumes %+v do not mount the Secret %s", pod.Volumes, c.secret.Metadata.Name)
	}
	want := []string{"serve", "--config", ctr.VolumeMounts[0].MountPath + "/" + chartConfigKey}
	if !slices.Equal(ctr.Args, want) {
		t.Fatalf("container args %v, want %v", ctr.Args, want)
	}
	file := filepath.Join(t.TempDir(), chartConfigKey)
	if err := os.WriteFile(file, []byte(c.secret.StringData[chartConfigKey]), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file, deploymentEnviron(ctr, ""), nil)
	if err != nil {
		t.Fatalf("roost refuses the chart's config: %v\n%s", err, c.secret.StringData[chartConfigKey])
	}
	for _, w := range cfg.Warnings {
		t.Errorf("chart config: %s", w)
	}
	return cfg
}

// TestHelmChartSelectorsAgree checks that the Service, the budget and the
// ServiceMonitor select the Deployment's pods.
func TestHelmChartSelectorsAgree(t *testing.T) {
	c := renderChart(t)
	pods := c.deployment.Spec.Template.Metadata.Labels
	for kind, sel := range map[string]map[string]string{
		"Deployment": c.deployment.Spec.Selector.MatchLabels, "Service": c.service.Spec.Selector,
		"PodDisruptionBudget": c.pdb.Spec.Selector.MatchLabels,
	} {
		if len(sel) == 0 || !maps.Equal(sel, pods) {
			t.Errorf("%s selects %v, the pods are labelled %v", kind, sel, pods)
		}
	}
	for k, v := range c.serviceMonitor.Spec.Selector.MatchLabels {
		if c.service.Metadata.Labels[k] != v {
			t.Errorf("ServiceMonitor selects %s=%s, which the Service lacks: %v", k, v, c.service.Metadata.Labels)
		}
	}
}

// TestHelmChartRefusesUnsafeValues checks that the chart refuses values
// that would deploy a node that does not work: no apps (roost would serve
// only its development app and refuse to start beyond loopback), and more
// than one replica without a backend (the nodes would not share channels).
func TestHelmChartRefusesUnsafeValues(t *testing.T) {
	for want, set := range map[string]string{
		"set apps":                       "redis.url=redis://r:6379",
		"replicaCount above 1 needs":     "apps[0].id=a,apps[0].key=k,apps[0].secret=s",
		"set redis.url or nats.url, not": "apps[0].id=a,apps[0].key=k,apps[0].secret=s,redis.url=redis://r,nats.url=nats://n",
	} {
		_, err := helm(t, "template", "roost", chartDir, "--set", set)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--set %s: %v, want the chart to refuse with %q", set, err, want)
		}
	}
}

// equalSets reports whether a and b hold the same strings, in any order.
func equalSets(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
