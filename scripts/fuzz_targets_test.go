package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFuzzTargetsExist: every package:function that the Makefile's
// FUZZ_TARGETS names is a fuzz target of that package. go test -fuzz on a
// package without the target says "no fuzz tests to fuzz" and exits 0, so
// a moved target would silently stop being fuzzed.
func TestFuzzTargetsExist(t *testing.T) {
	t.Parallel()
	targets := fuzzTargets(t)
	if len(targets) < 10 {
		t.Fatalf("FUZZ_TARGETS names %d targets; the Makefile was not read", len(targets))
	}
	for _, target := range targets {
		pkg, fn, _ := strings.Cut(target, ":")
		if !definesFuzzTarget(t, filepath.Join("..", pkg), fn) {
			t.Errorf("FUZZ_TARGETS names %s, which %s does not define", fn, pkg)
		}
	}
}

// TestMakeFuzzRefusesAMissingTarget: make fuzz-targets fails, naming it,
// when a target is not in its package, before fuzzing anything.
func TestMakeFuzzRefusesAMissingTarget(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("make", "--no-print-directory", "fuzz-targets", "FUZZ_TARGETS=./domain:FuzzOpenEventCursor")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("make fuzz-targets passed with a target that is not in its package:\n%s", out)
	}
	if want := "FAIL ./domain FuzzOpenEventCursor: no such fuzz target in ./domain"; !strings.Contains(string(out), want) {
		t.Errorf("make fuzz-targets said %q, want it to name the missing target (%q)", out, want)
	}
}

// fuzzTargets reads FUZZ_TARGETS from the Makefile.
func fuzzTargets(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^FUZZ_TARGETS = ((?:.*\\\n)*.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("the Makefile has no FUZZ_TARGETS")
	}
	return strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " "))
}

// definesFuzzTarget reports whether a _test.go file of dir declares fn as
// a fuzz target.
func definesFuzzTarget(t *testing.T, dir, fn string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(fn) + `\(\w+ \*testing\.F\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if decl.Match(b) {
			return true
		}
	}
	return false
}
