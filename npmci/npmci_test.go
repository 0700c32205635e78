package npmci_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/haulgraph/haulgraph/npmci"
)

// A project without dependencies: npm ci needs no registry for it.
const manifest = `{"name": "npmci-probe", "version": "1.0.0", "private": true}`

func lock(extra string) string {
	return `{"name": "npmci-probe", "version": "1.0.0", "lockfileVersion": 3, "requires": true, ` + extra +
		`"packages": {"": {"name": "npmci-probe", "version": "1.0.0"}}}`
}

// Install runs npm ci once per lock: a file left in node_modules survives a
// second Install (npm ci would have removed node_modules), and a changed
// lock installs again. Callers at once take turns and all succeed.
func TestInstallOncePerLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", manifest)
	write("package-lock.json", lock(""))

	t.Run("together", func(t *testing.T) {
		for i := range 3 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				npmci.Install(t, dir)
			})
		}
	})
	marker := filepath.Join(dir, "node_modules", "marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatalf("node_modules after Install: %v", err)
	}

	if got := npmci.Install(t, dir); got != dir {
		t.Errorf("Install answered %s, want %s", got, dir)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("a second Install of the same lock ran npm ci: %v", err)
	}

	write("package-lock.json", lock(`"packages_note": "changed", `))
	npmci.Install(t, dir)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("Install of a changed lock did not run npm ci")
	}
}
