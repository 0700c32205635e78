package deploy

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

// manifests decodes every object of deploy/kubernetes strictly into its
// Kubernetes type: a misspelt or misplaced field fails.
type manifests struct {
	deployment *appsv1.Deployment
	service    *corev1.Service
	pdb        *policyv1.PodDisruptionBudget
	job        *batchv1.Job
}

func readManifests(t *testing.T) manifests {
	t.Helper()
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	var m manifests
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(b, []byte("\n---\n")) {
			var meta struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("%s #%d: %v", f, i, err)
			}
			var obj any
			switch meta.APIVersion + " " + meta.Kind {
			case "apps/v1 Deployment":
				m.deployment = &appsv1.Deployment{}
				obj = m.deployment
			case "v1 Service":
				m.service = &corev1.Service{}
				obj = m.service
			case "policy/v1 PodDisruptionBudget":
				m.pdb = &policyv1.PodDisruptionBudget{}
				obj = m.pdb
			case "batch/v1 Job":
				m.job = &batchv1.Job{}
				obj = m.job
			default:
				t.Fatalf("%s #%d: unexpected %s %s", f, i, meta.APIVersion, meta.Kind)
			}
			if err := yaml.UnmarshalStrict(doc, obj); err != nil {
				t.Fatalf("%s #%d (%s): %v", f, i, meta.Kind, err)
			}
		}
	}
	if m.deployment == nil || m.service == nil || m.pdb == nil || m.job == nil {
		t.Fatalf("want a Deployment, a Service, a PodDisruptionBudget and a Job; got %+v", m)
	}
	return m
}

// TestKubernetesManifests: the manifests decode strictly, and what they
// promise holds: probes on the admin listener's paths, a grace period
// above drain + shutdown, secrets from a Secret, variables the server
// reads, a locked-down container, selectors that select the pods.
func TestKubernetesManifests(t *testing.T) {
	t.Parallel()
	m := readManifests(t)
	pod := m.deployment.Spec.Template
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	checkEnvNames(t, "Deployment", c.Env)
	checkEnvNames(t, "Job", m.job.Spec.Template.Spec.Containers[0].Env)

	port := func(addrVar string) int32 {
		t.Helper()
		_, p, err := net.SplitHostPort(env[addrVar].Value)
		if err != nil {
			t.Fatalf("%s=%q: %v", addrVar, env[addrVar].Value, err)
		}
		var n int32
		fmt.Sscan(p, &n)
		return n
	}
	named := map[string]int32{}
	for _, p := range c.Ports {
		named[p.Name] = p.ContainerPort
	}
	if named["http"] != port("HAULGRAPH_ADDR") || named["admin"] != port("HAULGRAPH_ADMIN_ADDR") {
		t.Errorf("container ports %v, listeners %q %q", named, env["HAULGRAPH_ADDR"].Value, env["HAULGRAPH_ADMIN_ADDR"].Value)
	}
	for probe, want := range map[*corev1.Probe]string{c.LivenessProbe: "/healthz", c.ReadinessProbe: "/readyz"} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != want || named[probe.HTTPGet.Port.String()] != named["admin"] {
			t.Errorf("probe %+v: want GET %s on the admin port", probe, want)
		}
	}

	var stop time.Duration
	for _, v := range []string{"HAULGRAPH_SHUTDOWN_DRAIN", "HAULGRAPH_SHUTDOWN_TIMEOUT"} {
		d, err := time.ParseDuration(env[v].Value)
		if err != nil {
			t.Fatalf("%s=%q: %v", v, env[v].Value, err)
		}
		stop += d
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= stop {
		t.Errorf("terminationGracePeriodSeconds is not above drain + shutdown timeout (%s)", stop)
	}

	for _, spec := range []corev1.PodSpec{pod.Spec, m.job.Spec.Template.Spec} {
		checkLockedDown(t, spec)
	}
	for _, ct := range []corev1.Container{c, m.job.Spec.Template.Spec.Containers[0]} {
		e := map[string]corev1.EnvVar{}
		for _, v := range ct.Env {
			e[v.Name] = v
		}
		for name, key := range map[string]string{"DATABASE_URL": "database-url", "HAULGRAPH_ENCRYPTION_KEY": "encryption-key"} {
			ref := e[name].ValueFrom
			if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Key != key || e[name].Value != "" {
				t.Errorf("%s %s: want it from the Secret's %s, got %+v", ct.Name, name, key, e[name])
			}
		}
		if ct.Resources.Requests.Cpu().IsZero() || ct.Resources.Requests.Memory().IsZero() || ct.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s: requests (cpu, memory) and a memory limit, got %+v", ct.Name, ct.Resources)
		}
	}

	// The migration Job runs the same image's migrate.
	job := m.job.Spec.Template.Spec.Containers[0]
	if job.Image != c.Image || !slices.Equal(job.Args, []string{"migrate"}) || !slices.Equal(c.Args, []string{"serve"}) {
		t.Errorf("Job %s %v, Deployment %s %v: want migrate and serve of one image", job.Image, job.Args, c.Image, c.Args)
	}

	labels := pod.Labels
	for what, sel := range map[string]map[string]string{"Deployment": m.deployment.Spec.Selector.MatchLabels,
		"PodDisruptionBudget": m.pdb.Spec.Selector.MatchLabels, "Service": m.service.Spec.Selector} {
		if len(sel) == 0 {
			t.Errorf("%s selects nothing", what)
		}
		for k, v := range sel {
			if labels[k] != v {
				t.Errorf("%s selects %s=%s, which the pods lack (%v)", what, k, v, labels)
			}
		}
	}
	if m.pdb.Spec.MaxUnavailable == nil && m.pdb.Spec.MinAvailable == nil {
		t.Error("the PodDisruptionBudget bounds nothing")
	}
	for _, p := range m.service.Spec.Ports {
		if named[p.TargetPort.String()] != named["http"] {
			t.Errorf("the Service's port %s targets %s, not the public listener", p.Name, p.TargetPort.String())
		}
	}
}

func checkLockedDown(t *testing.T, spec corev1.PodSpec) {
	t.Helper()
	psc := spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod security context %+v: want runAsNonRoot and a non-zero runAsUser", psc)
	}
	for _, c := range spec.Containers {
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
			t.Errorf("container %s security context %+v: want a read-only root, no privilege escalation, every capability dropped", c.Name, sc)
		}
	}
}

// pending are the variables of changes not yet merged into app/config.go:
// the drain before a stop (branch drain). Once app/config.go reads one, its
// entry here is dead and can go.
var pending = map[string]bool{"HAULGRAPH_SHUTDOWN_DRAIN": true}

// checkEnvNames: every variable a manifest sets is one the server reads.
func checkEnvNames(t *testing.T, what string, env []corev1.EnvVar) {
	t.Helper()
	var names []string
	for _, e := range env {
		names = append(names, e.Name)
	}
	checkNames(t, what, names)
}

// checkNames: every name is one the server reads (in app/config.go), so
// that a typo is not silently ignored.
func checkNames(t *testing.T, what string, names []string) {
	t.Helper()
	config := appConfig(t)
	for _, name := range names {
		if !strings.Contains(config, `"`+name+`"`) && !pending[name] {
			t.Errorf("%s sets %s, which app/config.go does not read", what, name)
		}
	}
}

func appConfig(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "app", "config.go"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
