package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/npmci"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/testkit"
)

// npmTools installs contract/'s pinned npm tools (contract/package-lock.json)
// and answers the OpenAPI checks' directory, contract/openapi: their rulesets,
// and build/ for what they read (not committed).
func npmTools(t *testing.T) string {
	t.Helper()
	npmci.Install(t, filepath.Join("..", "contract"))
	dir, err := filepath.Abs(filepath.Join("..", "contract", "openapi"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// toolEnv keeps the tools quiet and offline.
var toolEnv = []string{"REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "SCARF_ANALYTICS=false", "NO_UPDATE_NOTIFIER=1"}

// runTool runs a tool of contract/node_modules/.bin in dir (contract/openapi);
// it returns stdout, and the exit error for the caller to judge (a linter
// exits 1 on findings).
func runTool(t *testing.T, dir, name string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "..", "node_modules", ".bin", name), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), toolEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return out, err
}

// servedDocument fetches the document the way a client does, from a real
// HTTP server running the REST handler.
func servedDocument(t *testing.T) []byte {
	t.Helper()
	srv := httptest.NewServer(rest.NewAPI(rest.Deps{}))
	defer srv.Close()
	res, body := testkit.Request(t, "GET", srv.URL+"/api/p/openapi.json", nil, "")
	if res.StatusCode != 200 {
		t.Fatalf("openapi.json: %d", res.StatusCode)
	}
	return body
}

// Spectral (spectral:oas and the OWASP ruleset) and Redocly find no error
// in the served document beyond those .spectral.yaml names with a reason.
func TestOpenAPILint(t *testing.T) {
	t.Parallel()
	dir := npmTools(t)
	if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The ruleset's exceptions point into build/openapi.json.
	doc := servedDocument(t)
	if err := os.WriteFile(filepath.Join(dir, "build", "openapi.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := append([][]byte{doc}, pinned(t, dir, ".spectral.yaml", "redocly.yaml", "../package-lock.json")...)
	t.Run("spectral", func(t *testing.T) {
		t.Parallel()
		out := lintReport(t, dir, inputs, "spectral", "lint", "--ruleset", ".spectral.yaml", "--format", "json", "--quiet", "build/openapi.json")
		var findings []struct {
			Code     string `json:"code"`
			Message  string `json:"message"`
			Path     []any  `json:"path"`
			Severity int    `json:"severity"`
		}
		if err := json.Unmarshal(out, &findings); err != nil {
			t.Fatalf("spectral output: %v\n%s", err, out)
		}
		warnings := 0
		for _, f := range findings {
			if f.Severity == 0 {
				t.Errorf("%s at %v: %s", f.Code, f.Path, f.Message)
			} else {
				warnings++
			}
		}
		t.Logf("spectral: %d warnings or hints", warnings)
	})
	t.Run("redocly", func(t *testing.T) {
		t.Parallel()
		out := lintReport(t, dir, inputs, "redocly", "lint", "--config", "redocly.yaml", "--format", "json", "build/openapi.json")
		var report struct {
			Totals   struct{ Errors, Warnings int } `json:"totals"`
			Problems []struct {
				RuleID   string `json:"ruleId"`
				Severity string `json:"severity"`
				Message  string `json:"message"`
				Location []struct {
					Pointer string `json:"pointer"`
				} `json:"location"`
			} `json:"problems"`
		}
		if err := json.Unmarshal(out, &report); err != nil {
			t.Fatalf("redocly output: %v\n%s", err, out)
		}
		for _, p := range report.Problems {
			if p.Severity == "error" {
				t.Errorf("%s at %v: %s", p.RuleID, p.Location, p.Message)
			}
		}
		if report.Totals.Errors > 0 {
			t.Errorf("redocly: %d errors", report.Totals.Errors)
		}
		t.Logf("redocly: %d warnings", report.Totals.Warnings)
	})
}

// lintReport runs a linter of the tools' directory and answers its report,
// or the report it gave for the same inputs (the document, the rules, the
// locked tools) in an earlier run, kept as the generated clients are: a
// linter's report is a function of those alone, and running the two takes
// most of this package's CPU. The findings are judged afresh either way.
func lintReport(t *testing.T, dir string, inputs [][]byte, name string, args ...string) []byte {
	t.Helper()
	kept := keptClient(t, "lint-"+name, append(inputs, []byte(strings.Join(args, "\x00"))), func(kept string) error {
		out, _ := runTool(t, dir, name, args...)
		if !json.Valid(out) { // a crash is not kept
			return fmt.Errorf("%s printed no report: %s", name, out)
		}
		return os.WriteFile(filepath.Join(kept, "report.json"), out, 0o644)
	})
	out, err := os.ReadFile(filepath.Join(kept, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
