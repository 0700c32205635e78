package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const unitFile = "systemd/haulgraph.service"

// unit reads a systemd unit: each key's values, in order, of every section.
func unit(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			keys[k] = append(keys[k], v)
		}
	}
	return keys
}

// TestSystemdUnit: the unit is hardened (a user of its own, no new
// privileges, a read-only system but for its state directory, a private
// /tmp), takes its secrets from a file, reads only variables the server
// knows, and gives a stop more than drain + shutdown timeout.
func TestSystemdUnit(t *testing.T) {
	t.Parallel()
	u := unit(t)
	one := func(k string) string {
		t.Helper()
		if len(u[k]) != 1 {
			t.Errorf("%s: want one value, got %q", k, u[k])
			return ""
		}
		return u[k][0]
	}
	if one("DynamicUser") != "yes" && (one("User") == "" || one("User") == "root") {
		t.Error("the service runs as root: want DynamicUser=yes or a User= of its own")
	}
	for k, want := range map[string]string{"NoNewPrivileges": "yes", "ProtectSystem": "strict", "PrivateTmp": "yes",
		"ProtectHome": "yes", "PrivateDevices": "yes", "CapabilityBoundingSet": "", "StateDirectory": "haulgraph"} {
		if got := one(k); got != want {
			t.Errorf("%s=%q, want %q", k, got, want)
		}
	}
	if rw := u["ReadWritePaths"]; len(rw) > 1 || (len(rw) == 1 && rw[0] != "/var/lib/haulgraph") {
		t.Errorf("ReadWritePaths=%q: only the state directory is written", rw)
	}
	if one("EnvironmentFile") == "" || strings.HasPrefix(one("EnvironmentFile"), "-") {
		t.Error("want the secrets from a required EnvironmentFile")
	}
	env := map[string]string{}
	var names []string
	for _, kv := range u["Environment"] {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
		names = append(names, k)
	}
	checkNames(t, unitFile, names)
	for _, secret := range []string{"DATABASE_URL", "HAULGRAPH_ENCRYPTION_KEY"} {
		if _, ok := env[secret]; ok {
			t.Errorf("%s is in the unit: it belongs in the EnvironmentFile", secret)
		}
	}
	var stop time.Duration
	for _, v := range []string{"HAULGRAPH_SHUTDOWN_DRAIN", "HAULGRAPH_SHUTDOWN_TIMEOUT"} {
		d, err := time.ParseDuration(env[v])
		if err != nil {
			t.Fatalf("%s=%q: %v", v, env[v], err)
		}
		stop += d
	}
	if d, err := time.ParseDuration(one("TimeoutStopSec")); err != nil || d <= stop {
		t.Errorf("TimeoutStopSec=%s is not above drain + shutdown timeout (%s)", one("TimeoutStopSec"), stop)
	}
}

// TestSystemdVerify: systemd accepts the unit, without a warning (an
// unknown key is only a warning to systemd, and a setting lost). The
// binary it starts is a stand-in at a path of the test's.
func TestSystemdVerify(t *testing.T) {
	t.Parallel()
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal("no systemd-analyze: run through make test (scripts/with-tools.sh installs Debian's systemd)")
	}
	b, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "haulgraph")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "ExecStart=/usr/local/bin/haulgraph ") {
		t.Fatal("ExecStart is not /usr/local/bin/haulgraph")
	}
	path := filepath.Join(dir, "haulgraph.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(b), "/usr/local/bin/haulgraph", bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
