package rest_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	// The runtime the generated Go client imports, pinned in go.mod.
	_ "github.com/oapi-codegen/runtime"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// clientConfig is what the generated clients' programs are told about the
// live instance (the same JSON for the Go and the TypeScript program).
type clientConfig struct {
	Base          string
	Token         string
	InvoiceNumber string
	InvoiceID     string
	Statement     int32
	From, To      string
	LoadNumber    string
	WebhookID     string
}

// roundTripAmount has more significant digits than a float32 holds
// (131072.01 already comes back as 131072.02 through one).
const roundTripAmount = "123456789.01"

// Clients generated from the served document without edits (oapi-codegen
// for Go, openapi-typescript with openapi-fetch under tsc --strict) call
// every read route of a live instance and decode each answer with the
// generated types; an amount of 123456789.01 survives exactly.
func TestOpenAPIGeneratedClients(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	manage := f.srv.Token(t, f.tenant, domain.ScopeWebhookManage)
	rc := newReceiver(t)
	hook, secret := activeWebhook(t, f.srv, manage, rc.URL+"/hook", f.tenant.SubsidiaryID, []string{"load.changed"}, true)

	// The amount goes in through GraphQL and comes back through REST.
	write := f.srv.Token(t, f.tenant, domain.ScopeLoadCreate, domain.ScopeLoadUpdate)
	stops := []map[string]any{{"type": "Pickup", "name": "A"}, {"type": "Delivery", "name": "B"}}
	gqlData(t, f.srv, write, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
		map[string]any{"in": map[string]any{"loadNumber": "RT-1", "subsidiaryId": f.tenant.SubsidiaryID, "stops": stops,
			"rate": map[string]any{"amount": roundTripAmount}, "weight": "131072.01", "trips": []map[string]any{{"tripNumber": "RT-T1"}}}})
	gqlData(t, f.srv, write, `mutation { updateLoad(loadNumber: "RT-1", input: {weight: "42000.5"}) { loadNumber } }`, nil)
	rc.collect(t, 2, map[string]string{"/hook": secret}) // deliveries exist before they are listed

	cfg := clientConfig{
		Base:          f.srv.URL,
		Token:         f.srv.Token(t, f.tenant, append(readScopes, domain.ScopeWebhookManage)...),
		InvoiceNumber: f.seed.Invoice.Number,
		InvoiceID:     f.seed.Invoice.ID.String(),
		Statement:     f.seed.Statements[reads.StatementProcessed],
		From:          f.seed.StatementFrom.String(),
		To:            f.seed.StatementTo.String(),
		LoadNumber:    "RT-1",
		WebhookID:     hook,
	}
	arg, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	doc := servedDocument(t)

	t.Run("go", func(t *testing.T) {
		t.Parallel()
		out := runGoClient(t, doc, string(arg))
		checkClientReport(t, out)
	})
	t.Run("typescript", func(t *testing.T) {
		t.Parallel()
		out := runTypeScriptClient(t, doc, string(arg))
		checkClientReport(t, out)
	})
}

// checkClientReport asserts what a client program printed: the amount and
// weight as decoded and encoded again, and the previous values it read.
func checkClientReport(t *testing.T, out []byte) {
	t.Helper()
	var report struct {
		Rate, Weight        json.Number
		RateJSON            string
		PreviousAttributes  map[string]any
		Routes              []string
		EventsWithPrevious  int
		DeliveriesListed    int
		StatementsExported  int
		InvoicesByIDAndName int
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.UseNumber()
	if err := dec.Decode(&report); err != nil {
		t.Fatalf("client report: %v\n%s", err, out)
	}
	if report.Rate.String() != roundTripAmount || !strings.Contains(report.RateJSON, `"Amount":`+roundTripAmount) {
		t.Errorf("the amount came back as %s (encoded again: %s), want %s", report.Rate, report.RateJSON, roundTripAmount)
	}
	if report.Weight.String() != "42000.5" {
		t.Errorf("weight %s, want 42000.5", report.Weight)
	}
	if report.PreviousAttributes["Weight"] == nil {
		t.Errorf("previousAttributes %v lack Weight", report.PreviousAttributes)
	}
	if report.DeliveriesListed < 2 || report.EventsWithPrevious < 1 || report.StatementsExported < 1 || report.InvoicesByIDAndName != 2 {
		t.Errorf("report %+v", report)
	}
	t.Logf("routes decoded: %v", report.Routes)
}

// keptClient answers a directory of the user's cache (apptest.Kept) that
// holds what build made from inputs (the served document, the program, the
// files that pin the tools), made again only when one of them changes: the
// generators and compilers are deterministic, and running them was most of
// this test's time. The program itself always runs afresh.
func keptClient(t *testing.T, name string, inputs [][]byte, build func(dir string) error) string {
	t.Helper()
	h := sha256.New()
	for _, in := range inputs {
		fmt.Fprintf(h, "%d\n", len(in))
		h.Write(in)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	dir, err := apptest.Kept(name, apptest.RepoRoot(t), func(dir string) error {
		stamp := filepath.Join(dir, "inputs")
		if b, err := os.ReadFile(stamp); err == nil && string(b) == sum {
			return nil
		}
		if err := os.Remove(stamp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := build(dir); err != nil {
			return err
		}
		return os.WriteFile(stamp, []byte(sum), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// pinned reads the files of the repository that pin a client's tools.
func pinned(t *testing.T, root string, files ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// runGoClient generates a Go client with oapi-codegen (the tool pinned in
// go.mod) into a throwaway package of this module (a directory whose name
// starts with _ is never part of ./...), builds it with the program below
// and runs it.
func runGoClient(t *testing.T, doc []byte, arg string) []byte {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	inputs := append([][]byte{doc, []byte(goClientProgram), []byte(runtime.Version())}, pinned(t, root, "go.mod", "go.sum")...)
	kept := keptClient(t, "goclient", inputs, func(kept string) error {
		build := filepath.Join(root, "contract", "openapi", "build")
		if err := os.MkdirAll(build, 0o755); err != nil {
			return err
		}
		dir, err := os.MkdirTemp(build, "_goclient")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if err := os.WriteFile(filepath.Join(dir, "openapi.json"), doc, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(goClientProgram), 0o644); err != nil {
			return err
		}
		// skip-prune: oapi-codegen's pruning does not follow references from
		// the top-level webhooks section, so it would drop the event schemas
		// the webhook types it generates use (docs/openapi.md).
		config := "package: main\ngenerate:\n  models: true\n  client: true\noutput-options:\n  skip-prune: true\noutput: " +
			filepath.Join(dir, "client.gen.go") + "\n"
		if err := os.WriteFile(filepath.Join(dir, "oapi-codegen.yaml"), []byte(config), 0o644); err != nil {
			return err
		}
		gen := exec.Command("go", "tool", "oapi-codegen", "-config", filepath.Join(dir, "oapi-codegen.yaml"), filepath.Join(dir, "openapi.json"))
		gen.Dir = root
		if out, err := gen.CombinedOutput(); err != nil {
			return fmt.Errorf("oapi-codegen: %v\n%s", err, out)
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		compile := exec.Command("go", "build", "-o", filepath.Join(kept, "client"), "./"+filepath.ToSlash(rel))
		compile.Dir = root
		if out, err := compile.CombinedOutput(); err != nil {
			return fmt.Errorf("the generated Go client does not compile: %v\n%s", err, out)
		}
		return nil
	})
	run := exec.Command(filepath.Join(kept, "client"), arg)
	var stderr strings.Builder
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("generated Go client: %v\n%s", err, stderr.String())
	}
	return out
}

// runTypeScriptClient generates types with openapi-typescript, type-checks
// the program below against them with tsc --strict and runs it with node.
func runTypeScriptClient(t *testing.T, doc []byte, arg string) []byte {
	t.Helper()
	tools := npmTools(t)
	inputs := append([][]byte{doc, []byte(tsClientProgram), []byte(tsConfig)}, pinned(t, tools, "../package-lock.json")...)
	kept := keptClient(t, "tsclient", inputs, func(kept string) error {
		if err := os.MkdirAll(filepath.Join(tools, "build"), 0o755); err != nil {
			return err
		}
		// Inside the tools' directory, so that tsc resolves openapi-fetch.
		dir, err := os.MkdirTemp(filepath.Join(tools, "build"), "tsclient")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		for name, text := range map[string]string{"openapi.json": string(doc), "main.ts": tsClientProgram, "tsconfig.json": tsConfig,
			"package.json": `{"type": "module", "private": true}`} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				return err
			}
		}
		rel, err := filepath.Rel(tools, dir)
		if err != nil {
			return err
		}
		if out, err := runTool(t, tools, "openapi-typescript", filepath.Join(rel, "openapi.json"), "--output", filepath.Join(rel, "schema.d.ts")); err != nil {
			return fmt.Errorf("openapi-typescript: %v\n%s", err, out)
		}
		if out, err := runTool(t, tools, "tsc", "--project", filepath.Join(rel, "tsconfig.json")); err != nil {
			return fmt.Errorf("tsc --strict: %v\n%s", err, out)
		}
		js, err := os.ReadFile(filepath.Join(dir, "main.js"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(kept, "main.js"), js, 0o644); err != nil {
			return err
		}
		// node resolves openapi-fetch from the program's directory up: the
		// kept directory (one per checkout) links this checkout's tools.
		link := filepath.Join(kept, "node_modules")
		if err := os.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.Symlink(filepath.Join(tools, "..", "node_modules"), link); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(kept, "package.json"), []byte(`{"type": "module", "private": true}`), 0o644)
	})
	run := exec.Command("node", filepath.Join(kept, "main.js"), arg)
	run.Dir = tools
	var stderr strings.Builder
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("generated TypeScript client: %v\n%s", err, stderr.String())
	}
	return out
}
