package deploy

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/roostproject/roost/internal/config"
)

const k8sDir = "deploy/kubernetes"

// manifests is every object in deploy/kubernetes, by kind.
type manifests struct {
	kustomization  kustomization
	deployment     deployment
	service        service
	pdb            podDisruptionBudget
	serviceMonitor serviceMonitor
	ingress        ingress
	files          []string // the object files, not the kustomization
}

// loadManifests decodes every document of every YAML file strictly into
// the type of its kind; an unknown kind or field fails the test.
func loadManifests(t *testing.T) *manifests {
	t.Helper()
	m := &manifests{}
	targets := map[string]any{
		"Kustomization": &m.kustomization, "Deployment": &m.deployment, "Service": &m.service,
		"PodDisruptionBudget": &m.pdb, "ServiceMonitor": &m.serviceMonitor, "Ingress": &m.ingress,
	}
	files, _ := filepath.Glob(repoPath(k8sDir + "/*.yaml"))
	seen := map[string]string{}
	for _, f := range files {
		rel := k8sDir + "/" + filepath.Base(f)
		for i, doc := range yamlDocs[yaml.Node](t, rel) {
			var tm typeMeta
			doc.Decode(&tm)
			target, ok := targets[tm.Kind]
			if !ok || seen[tm.Kind] != "" {
				t.Fatalf("%s document %d: kind %q is unknown here or defined twice", rel, i+1, tm.Kind)
			}
			seen[tm.Kind] = rel
			if err := strictDecode(&doc, target); err != nil {
				t.Errorf("%s (%s): %v", rel, tm.Kind, err)
			}
			if tm.Kind != "Kustomization" {
				m.files = append(m.files, filepath.Base(f))
			}
		}
	}
	for kind := range targets {
		if seen[kind] == "" {
			t.Errorf("no %s in %s", kind, k8sDir)
		}
	}
	return m
}

// strictDecode decodes node into v, refusing fields v does not have.
func strictDecode(node *yaml.Node, v any) error {
	data, err := yaml.Marshal(node)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// TestKubernetesManifestsDecode checks that every manifest is a known kind
// whose fields are all real, and that the kustomization applies them all.
func TestKubernetesManifestsDecode(t *testing.T) {
	m := loadManifests(t)
	got, want := slices.Sorted(slices.Values(m.kustomization.Resources)), slices.Sorted(slices.Values(m.files))
	if !slices.Equal(got, want) {
		t.Errorf("kustomization resources %v, want every manifest %v", got, want)
	}
	if c := m.deployment.Spec.Template.Spec.Containers; len(c) != 1 || c[0].Image != m.kustomization.Images[0].Name {
		t.Errorf("the kustomization's image %q does not name the Deployment's container image", m.kustomization.Images[0].Name)
	}
}

// deploymentEnviron returns the container's ROOST_* variables as roost
// would see them: literal values as written, Secret references filled with
// test values (the Redis URL with this machine's Redis).
func deploymentEnviron(c container, redisURL string) []string {
	var env []string
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil {
			v = "k8s-test-" + e.ValueFrom.SecretKeyRef.Key
			if e.Name == "ROOST_REDIS_URL" {
				v = redisURL
			}
		}
		env = append(env, e.Name+"="+v)
	}
	return env
}

// TestKubernetesDeploymentServesItsProbes configures a roost node from the
// Deployment's own environment and asks it the readiness, liveness and
// scrape paths that the manifests name, on the port they name.
func TestKubernetesDeploymentServesItsProbes(t *testing.T) {
	needRedis(t, "127.0.0.1:6379")
	m := loadManifests(t)
	c := m.deployment.Spec.Template.Spec.Containers[0]
	env := deploymentEnviron(c, "redis://127.0.0.1:6379/0")
	cfg := loadConfig(t, "Deployment env", env)
	if cfg.IsDevelopment() || cfg.Redis.URL == "" {
		t.Fatalf("the Deployment must define an app and join a cluster: %+v", cfg.Apps)
	}
	cfg.Redis.Prefix = fmt.Sprintf("deploytest%d", os.Getpid())

	if strconv.Itoa(c.Ports[0].ContainerPort) != port(t, cfg.Addr) {
		t.Errorf("containerPort %d, but roost listens on %s", c.Ports[0].ContainerPort, cfg.Addr)
	}
	checkProbes(t, startRoost(t, cfg), c, m.serviceMonitor, m.service)
}

// checkProbes asks a node at base the readiness, liveness and scrape
// paths that a container and a ServiceMonitor name, on the port they name.
func checkProbes(t *testing.T, base string, c container, sm serviceMonitor, svc service) {
	t.Helper()
	portName := c.Ports[0].Name
	paths := map[string]string{"readiness": "", "liveness": "", "scrape": ""}
	for name, p := range map[string]*probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.HTTPGet.Port != portName {
			t.Fatalf("%s probe %+v: want an httpGet on port %q", name, p, portName)
		}
		paths[name] = p.HTTPGet.Path
	}
	ep := sm.Spec.Endpoints[0]
	paths["scrape"] = ep.Path
	if ep.Port != svc.Spec.Ports[0].Name {
		t.Errorf("ServiceMonitor scrapes port %q, the Service's port is %q", ep.Port, svc.Spec.Ports[0].Name)
	}
	want := map[string]string{"readiness": "/ready", "liveness": "/up", "scrape": "/metrics"}
	if !maps.Equal(paths, want) {
		t.Errorf("probe and scrape paths %v, want %v", paths, want)
	}
	for name, path := range paths {
		if code, body := get(t, base+path); code != 200 {
			t.Errorf("%s path %s: %d %s", name, path, code, body)
		}
	}
}

// TestKubernetesShutdownFitsGracePeriod checks that a pod has time for the
// preStop pause and roost's whole drain before the kubelet kills it.
func TestKubernetesShutdownFitsGracePeriod(t *testing.T) {
	m := loadManifests(t)
	pod := m.deployment.Spec.Template.Spec
	checkGracePeriod(t, pod, loadConfig(t, "Deployment env", deploymentEnviron(pod.Containers[0], "")))
	if ru := m.deployment.Spec.Strategy.RollingUpdate; ru.MaxUnavailable != 0 || ru.MaxSurge != 1 {
		t.Errorf("rolling update %+v: want one new pod at a time and none unavailable", ru)
	}
	if m.pdb.Spec.MaxUnavailable != 1 {
		t.Errorf("PodDisruptionBudget maxUnavailable %d, want 1", m.pdb.Spec.MaxUnavailable)
	}
}

// checkGracePeriod checks that a pod of roost configured as cfg has time
// for its preStop pause and roost's whole drain before the kubelet kills it.
func checkGracePeriod(t *testing.T, pod podSpec, cfg config.Config) {
	t.Helper()
	c := pod.Containers[0]
	if c.Lifecycle.PreStop.Sleep == nil {
		t.Fatal("no preStop sleep: clients sent away at SIGTERM may reconnect to this pod")
	}
	preStop := time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	grace := time.Duration(pod.TerminationGracePeriodSeconds) * time.Second
	const margin = 2 * time.Second
	if grace < preStop+cfg.ShutdownTimeout+margin {
		t.Errorf("terminationGracePeriodSeconds %s < preStop %s + shutdown_timeout %s + %s", grace, preStop, cfg.ShutdownTimeout, margin)
	}
}

// TestKubernetesPodSettings checks the pod's security and resources: the
// image's non-root user, no CPU limit (throttling stalls event loops),
// memory requested and limited, and no service links (whose ROOST_*
// variables roost would warn about).
func TestKubernetesPodSettings(t *testing.T) {
	m := loadManifests(t)
	pod := m.deployment.Spec.Template.Spec
	c := pod.Containers[0]
	final, _ := dockerfile(t)
	uid, _ := strconv.Atoi(strings.Split(parseImage(t, final).user, ":")[0])
	if !pod.SecurityContext.RunAsNonRoot || pod.SecurityContext.RunAsUser != uid {
		t.Errorf("pod runs as %d (runAsNonRoot %v), the image's user is %d", pod.SecurityContext.RunAsUser, pod.SecurityContext.RunAsNonRoot, uid)
	}
	if pod.EnableServiceLinks == nil || *pod.EnableServiceLinks {
		t.Error("enableServiceLinks must be false: the Service roost would set ROOST_PORT and the like")
	}
	sc := c.SecurityContext
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || !sc.ReadOnlyRootFilesystem || !slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
		t.Errorf("container securityContext %+v: want no privilege escalation, a read-only root and no capabilities", sc)
	}
	r := c.Resources
	if _, ok := r.Limits["cpu"]; ok {
		t.Error("a CPU limit throttles the event loops; request CPU instead")
	}
	req, lim := quantity(t, r.Requests["memory"]), quantity(t, r.Limits["memory"])
	if r.Requests["cpu"] == "" || req == 0 || lim < req {
		t.Errorf("resources %+v: want cpu and memory requests and a memory limit above the request", r)
	}
}

// quantity parses a Kubernetes memory quantity with a binary suffix.
func quantity(t *testing.T, q string) int64 {
	t.Helper()
	units := map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
	for suffix, mult := range units {
		if n, ok := strings.CutSuffix(q, suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				t.Fatalf("quantity %q: %v", q, err)
			}
			return v * mult
		}
	}
	t.Fatalf("quantity %q: want Ki, Mi or Gi", q)
	return 0
}

// TestKubernetesSelectorsAgree checks that the Service, the budget and the
// ServiceMonitor select exactly the Deployment's pods.
func TestKubernetesSelectorsAgree(t *testing.T) {
	m := loadManifests(t)
	pods := m.deployment.Spec.Template.Metadata.Labels
	selectors := map[string]map[string]string{
		"Deployment":          m.deployment.Spec.Selector.MatchLabels,
		"Service":             m.service.Spec.Selector,
		"PodDisruptionBudget": m.pdb.Spec.Selector.MatchLabels,
	}
	for kind, sel := range selectors {
		if len(sel) == 0 || !maps.Equal(sel, pods) {
			t.Errorf("%s selects %v, the pods are labelled %v", kind, sel, pods)
		}
	}
	if sm := m.serviceMonitor.Spec.Selector.MatchLabels; len(sm) == 0 || !maps.Equal(sm, m.service.Metadata.Labels) {
		t.Errorf("ServiceMonitor selects %v, the Service is labelled %v", sm, m.service.Metadata.Labels)
	}
	if tp := m.service.Spec.Ports[0].TargetPort; tp != m.deployment.Spec.Template.Spec.Containers[0].Ports[0].Name {
		t.Errorf("Service targetPort %q is not the container's port name", tp)
	}
}

// TestKubernetesIngress checks that the Ingress routes only the WebSocket
// and API paths to the Service and keeps idle connections past roost's own
// timeouts.
func TestKubernetesIngress(t *testing.T) {
	m := loadManifests(t)
	var paths []string
	for _, rule := range m.ingress.Spec.Rules {
		for _, p := range rule.HTTP.Paths {
			paths = append(paths, p.Path)
			if b := p.Backend.Service; b.Name != m.service.Metadata.Name || b.Port.Name != m.service.Spec.Ports[0].Name {
				t.Errorf("Ingress path %s goes to %s:%s, not the roost Service", p.Path, b.Name, b.Port.Name)
			}
		}
	}
	if !slices.Equal(paths, []string{"/app/", "/apps/"}) {
		t.Errorf("Ingress routes %v, want only /app/ and /apps/ (keep /metrics private)", paths)
	}
	d := defaults()
	for _, a := range []string{"nginx.ingress.kubernetes.io/proxy-read-timeout", "nginx.ingress.kubernetes.io/proxy-send-timeout"} {
		s, err := strconv.Atoi(m.ingress.Metadata.Annotations[a])
		if err != nil || time.Duration(s)*time.Second <= d.ActivityTimeout+d.PongWait {
			t.Errorf("%s %q: want more seconds than activity_timeout + pong_wait", a, m.ingress.Metadata.Annotations[a])
		}
	}
}
