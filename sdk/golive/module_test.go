package golive

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// An integrator's module that requires only the SDK builds a program with
// it, and its module graph holds the SDK alone, nothing of the server's
// dependencies: the SDK is a module of its own, with its own (lower) Go
// version, that needs the standard library only.
func TestSDKBuildsAlone(t *testing.T) {
	t.Parallel()
	sdk, err := filepath.Abs(sdkDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/integration\n\ngo 1.23\n\n" +
		"require github.com/haulgraph/haulgraph/sdk/haulgraph v0.0.0\n\n" +
		"replace github.com/haulgraph/haulgraph/sdk/haulgraph => " + sdk + "\n"
	program := `package main

import (
	"fmt"
	"os"

	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

func main() {
	c, err := haulgraph.New(haulgraph.WithBaseURL("http://127.0.0.1:1"), haulgraph.WithClientCredentials("id", "secret"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	m := haulgraph.NewMoney("0.1", haulgraph.USD)
	fmt.Println(c.BaseURL(), m.Amount.Add("0.2"), m.Currency)
}
`
	for name, body := range map[string]string{"go.mod": gomod, "main.go": program} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("build", "-o", filepath.Join(dir, "integration"), ".")
	run, err := exec.Command(filepath.Join(dir, "integration")).CombinedOutput()
	if err != nil || strings.TrimSpace(string(run)) != "http://127.0.0.1:1 0.3 USD" {
		t.Fatalf("the program: %q %v", run, err)
	}
	modules := strings.Fields(goCmd("list", "-m", "all"))
	want := []string{"example.com/integration", "github.com/haulgraph/haulgraph/sdk/haulgraph", "v0.0.0", "=>", sdk}
	if strings.Join(modules, " ") != strings.Join(want, " ") {
		t.Errorf("go list -m all of a module that requires only the SDK:\n%s\nwant only the SDK", strings.Join(modules, "\n"))
	}
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, server := range []string{"uptrace/bun", "jackc/pgx", "99designs/gqlgen", "oapi-codegen", "shopspring/decimal",
		"opentelemetry", "prometheus", "gocloud.dev", "golang.org/x/"} {
		if strings.Contains(string(sum), server) {
			t.Errorf("the integration's go.sum holds %s of the server's graph:\n%s", server, sum)
		}
	}

	// The SDK asks for an older Go than the server and requires no module
	// of the server's.
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`)
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sdkMod, serverMod := read(filepath.Join(sdk, "go.mod")), read("../../go.mod")
	sdkGo, serverGo := goLine.FindStringSubmatch(sdkMod), goLine.FindStringSubmatch(serverMod)
	if sdkGo == nil || serverGo == nil || sdkGo[1] != "1.23" || !strings.HasPrefix(serverGo[1], "1.2") || sdkGo[1] >= serverGo[1] {
		t.Errorf("the SDK's go line is %v (the server's %v), want 1.23", sdkGo, serverGo)
	}
	if strings.Contains(sdkMod, "require") {
		t.Errorf("the SDK requires modules; it needs the standard library only:\n%s", sdkMod)
	}
}
