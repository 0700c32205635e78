package typescript_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/npmci"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

func run(t *testing.T, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.String())
	}
	return out
}

// The committed src/generated/ is what generate.mjs writes from today's
// rest/openapi.json, schema/ and operations/ (`make sdk-typescript`
// rewrites it).
func TestGeneratedTypesAreCurrent(t *testing.T) {
	t.Parallel()
	npmci.Install(t, ".")
	dir := t.TempDir()
	run(t, nil, "node", "generate.mjs", "--out", dir)
	want, _ := filepath.Glob(filepath.Join("src", "generated", "*"))
	got, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(got) != len(want) || len(got) < 4 {
		t.Fatalf("generate.mjs writes %d files, src/generated holds %d", len(got), len(want))
	}
	for _, f := range got {
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join("src", "generated", filepath.Base(f)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("src/generated/%s differs from what generate.mjs writes: run `make sdk-typescript`", filepath.Base(f))
		}
	}
}

// gql runs a GraphQL operation with a token and decodes data, keeping
// numbers as their text.
func gql(t *testing.T, srv *apptest.Server, token, query string, vars map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out struct {
		Data   map[string]any
		Errors []any
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil || len(out.Errors) > 0 || res.StatusCode != http.StatusOK {
		t.Fatalf("graphql: %d %s", res.StatusCode, b)
	}
	return out.Data
}

// restJSON GETs a REST route and decodes it keeping numbers as their text.
func restJSON(t *testing.T, srv *apptest.Server, token, path string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	dec := json.NewDecoder(res.Body)
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
	}
	return out
}

// build compiles the package with its tests (tsc, strict by
// tsconfig.json) into a directory of the package's own and answers that
// directory.
func build(t *testing.T) string {
	t.Helper()
	if err := os.MkdirAll("build", 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.MkdirTemp("build", "run")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	if err := os.WriteFile(filepath.Join(out, "package.json"), []byte(`{"type": "module", "private": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tsc(t, "tests", "--project", ".", "--outDir", out)
	return out
}

// tsc compiles with args, incrementally: the diagnostics of files that
// did not change since the last compilation under this name (the
// TypeScript and @types/node libraries, whose check is most of the time)
// come from build/<name>.tsbuildinfo, the compiler's own cache keyed by
// each file's content; every other file is checked again. The callers'
// output directories are new each time, which tsc sees as a changed
// option, so every output is emitted afresh. Each compilation works on a
// copy of the cache and renames it into place when done, so concurrent
// runs never read a half-written one.
func tsc(t *testing.T, name string, args ...string) {
	t.Helper()
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("build", 0o755); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(here, "build", name+".tsbuildinfo")
	// In the same directory: the cache names files relative to itself.
	f, err := os.CreateTemp("build", name+".tsbuildinfo.*")
	if err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(here, f.Name())
	defer os.Remove(mine)
	b, err := os.ReadFile(shared)
	if err == nil {
		_, err = f.Write(b)
	}
	if cerr := f.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if errors.Is(err, fs.ErrNotExist) {
		os.Remove(mine) // the first compilation: tsc writes the cache
	} else if err != nil {
		t.Fatal(err)
	}
	run(t, nil, filepath.Join(here, "node_modules", ".bin", "tsc"), append(args, "--incremental", "--tsBuildInfoFile", mine)...)
	if err := os.Rename(mine, shared); err != nil {
		t.Fatal(err)
	}
}

// The node tests pass: the exact-decimal JSON rewriting
// (test/json.test.ts) and the client against a scripted HTTP server on
// 127.0.0.1 (test/client.test.ts: retries, the token refresh after a 401,
// one error class, response metadata).
func TestNodeTests(t *testing.T) {
	t.Parallel()
	npmci.Install(t, ".")
	out := build(t)
	run(t, nil, "node", "--test", filepath.Join(out, "test"))
}

var packed struct {
	once  sync.Once
	dir   string
	files []string
	err   error
}

// pack runs `npm pack` once (its prepack script compiles src/ into dist/)
// and answers the tarball and the files it holds.
func pack(t *testing.T) (tarball string, files []string) {
	t.Helper()
	npmci.Install(t, ".")
	packed.once.Do(func() {
		if packed.dir, packed.err = os.MkdirTemp("", "haulgraph-pack"); packed.err != nil {
			return
		}
		cmd := exec.Command("npm", "pack", "--json", "--pack-destination", packed.dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			packed.err = fmt.Errorf("npm pack: %v\n%s", err, stderr.String())
			return
		}
		var res []struct {
			Filename string
			Files    []struct{ Path string }
		}
		if err := json.Unmarshal(out, &res); err != nil || len(res) != 1 {
			packed.err = fmt.Errorf("npm pack --json printed %s: %v", out, err)
			return
		}
		packed.dir = filepath.Join(packed.dir, res[0].Filename)
		for _, f := range res[0].Files {
			packed.files = append(packed.files, f.Path)
		}
	})
	if packed.err != nil {
		t.Fatal(packed.err)
	}
	return packed.dir, packed.files
}

func TestMain(m *testing.M) {
	code := m.Run()
	if packed.dir != "" {
		os.RemoveAll(filepath.Dir(packed.dir))
	}
	os.Exit(code)
}

// The package npm packs is installable: compiled ESM with its .d.ts (no
// source, tests or generator), an exports map, the repository's
// Apache-2.0 LICENSE, a version, engines, and no runtime dependency.
func TestPackageContents(t *testing.T) {
	t.Parallel()
	_, files := pack(t)
	for _, want := range []string{"package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts", "dist/client.js", "dist/generated/decimals.js"} {
		if !slices.Contains(files, want) {
			t.Errorf("the tarball lacks %s: %v", want, files)
		}
	}
	for _, f := range files {
		if !strings.HasPrefix(f, "dist/") && !slices.Contains([]string{"package.json", "README.md", "LICENSE"}, f) || strings.HasSuffix(f, ".ts") && !strings.HasSuffix(f, ".d.ts") {
			t.Errorf("the tarball ships %s", f)
		}
	}
	var pkg struct {
		Name, Version, License string
		Private                *bool
		Type                   string
		Exports                map[string]map[string]string
		Engines                map[string]string
		Dependencies           map[string]string
	}
	b, _ := os.ReadFile("package.json")
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Private != nil || pkg.License != "Apache-2.0" || pkg.Version == "" || pkg.Type != "module" || pkg.Engines["node"] == "" || len(pkg.Dependencies) != 0 {
		t.Errorf("package.json: %+v", pkg)
	}
	if e := pkg.Exports["."]; e["types"] != "./dist/index.d.ts" || e["import"] != "./dist/index.js" {
		t.Errorf(`exports["."] is %v`, e)
	}
	root, err := os.ReadFile(filepath.Join("..", "..", "LICENSE"))
	own, _ := os.ReadFile("LICENSE")
	if err != nil || !bytes.Equal(root, own) || !bytes.Contains(own, []byte("Apache License\n                           Version 2.0")) {
		t.Errorf("sdk/typescript/LICENSE is not the repository's Apache-2.0 LICENSE")
	}
	readme, _ := os.ReadFile("README.md")
	if !bytes.Contains(readme, []byte("npm install ./haulgraph-client-"+pkg.Version+".tgz")) {
		t.Errorf("README.md does not say how to install haulgraph-client-%s.tgz", pkg.Version)
	}
}

// scratch installs the packed tarball into a new project (offline: the
// package has no dependency) and compiles examples/integrator.ts there
// under tsc --strict, importing @haulgraph/client as an integrator does;
// it answers the compiled program.
func scratch(t *testing.T) string {
	t.Helper()
	tarball, _ := pack(t)
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	example, err := os.ReadFile(filepath.Join("examples", "integrator.ts"))
	if err != nil {
		t.Fatal(err)
	}
	tsconfig, _ := json.Marshal(map[string]any{"compilerOptions": map[string]any{
		"target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "skipLibCheck": false,
		"outDir": "out", "typeRoots": []string{filepath.Join(here, "node_modules", "@types")}, "types": []string{"node"},
	}, "files": []string{"integrator.ts"}})
	for name, body := range map[string][]byte{
		"package.json":  []byte(`{"name": "scratch", "private": true, "type": "module"}`),
		"tsconfig.json": tsconfig,
		"integrator.ts": example,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	install := exec.Command("npm", "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball)
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", tarball, err, out)
	}
	tsc(t, "scratch", "--strict", "--project", dir)
	return filepath.Join(dir, "out", "integrator.js")
}

// The packed package, installed into a scratch project, compiles the
// example program under tsc --strict; run with node against a live server
// with a client's id and secret in its environment, the program gets a
// token (once), reads every statement of the seeded window page by page
// (with each page's response metadata), reads an invoice and runs the
// dashboard query; every amount it prints is a string holding the
// server's exact digits. After it revokes its token, its next call is
// answered 401 and repeated once with a new token; a refused request
// throws a HaulGraphError.
func TestExampleProgramAgainstServer(t *testing.T) {
	t.Parallel()
	program := scratch(t)

	url, res := seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	srv := apptest.Start(t, apptest.Options{DatabaseURL: url})
	tenant := apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}
	// A load whose amounts the program must print exactly.
	writer := srv.Token(t, tenant, domain.ScopeLoadCreate)
	const rate, weight = "123456789012.34", "42000.5"
	gql(t, srv, writer, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`, map[string]any{"in": map[string]any{
		"loadNumber": "TS-1", "subsidiaryId": res.SubsidiaryID, "rate": map[string]any{"amount": rate}, "weight": weight,
		"stops": []map[string]any{{"type": "Pickup", "name": "A"}, {"type": "Delivery", "name": "B"}}}})
	scopes := []domain.Scope{domain.ScopeInvoiceRead, domain.ScopeDriverRead, domain.ScopeLoadRead}
	clientID, secret := srv.Client(t, tenant, scopes...)
	reader := srv.Token(t, tenant, scopes...)

	pageSize := min(100, max(2, res.VisibleStatements/3)) // at least three pages
	printed := run(t, []string{
		"HAULGRAPH_URL=" + srv.URL, "HAULGRAPH_CLIENT_ID=" + clientID, "HAULGRAPH_CLIENT_SECRET=" + secret,
		"HAULGRAPH_AUDIENCE=" + app.DefaultAudience,
		"STATEMENTS_FROM=" + res.StatementFrom.String(), "STATEMENTS_TO=" + res.StatementTo.String(),
		"INVOICE_NUMBER=" + res.Invoice.Number, fmt.Sprintf("PAGE_SIZE=%d", pageSize),
	}, "node", program)

	steps := map[string]map[string]any{}
	for sc := bufio.NewScanner(bytes.NewReader(printed)); sc.Scan(); {
		var line map[string]any
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("the program printed %q: %v", sc.Text(), err)
		}
		steps[line["step"].(string)] = line
	}

	if tok := steps["token"]; tok["ok"] != true || tok["cached"] != true {
		t.Errorf("token: %v (want a token, and the same one again from the cache)", tok)
	}

	st := steps["statements"]
	var numbers []string
	for _, n := range st["numbers"].([]any) {
		numbers = append(numbers, n.(json.Number).String())
	}
	if len(numbers) != res.VisibleStatements || st["total"].(json.Number).String() != fmt.Sprint(res.VisibleStatements) {
		t.Errorf("statements: %d read, total %v; the window holds %d", len(numbers), st["total"], res.VisibleStatements)
	}
	if pages := st["pages"].(json.Number).String(); pages != fmt.Sprint(res.VisibleStatements/pageSize+1) {
		t.Errorf("statements read in %s pages of %d; want %d", pages, pageSize, res.VisibleStatements/pageSize+1)
	}
	sorted := slices.Clone(numbers)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(numbers) {
		t.Errorf("statements: a number came twice across pages: %v", numbers)
	}
	if !slices.Contains(numbers, fmt.Sprint(res.Statements[reads.StatementProcessed])) {
		t.Errorf("statements: the processed statement %d is missing from %v", res.Statements[reads.StatementProcessed], numbers)
	}
	if st["amountType"] != "string" {
		t.Errorf("statements: a driver payment arrived as %v, want string", st["amountType"])
	}
	meta, _ := st["meta"].(map[string]any)
	if id, _ := meta["requestId"].(string); meta["status"] != json.Number("200") || meta["attempts"] != json.Number("1") || len(id) != 32 {
		t.Errorf("statements: the last page's metadata is %v, want status 200, one attempt and the trace id", meta)
	}

	inv := steps["invoice"]
	served := restJSON(t, srv, reader, "/api/p/v1/invoices?invoiceNumber="+res.Invoice.Number)
	wantTotal := served["Total"].(map[string]any)["Amount"].(json.Number).String()
	wantPaid := served["AmountPaid"].(map[string]any)["Amount"].(json.Number).String()
	if inv["number"] != res.Invoice.Number || inv["total"] != wantTotal || inv["paid"] != wantPaid || inv["amountType"] != "string" || inv["usd"] != true {
		t.Errorf("invoice: %v; want number %s, total %q and paid %q as strings", inv, res.Invoice.Number, wantTotal, wantPaid)
	}

	db := steps["dashboard"]
	count := gql(t, srv, reader, `{ loads(first: 1) { totalCount } }`, nil)["loads"].(map[string]any)["totalCount"].(json.Number).String()
	if db["totalCount"].(json.Number).String() != count {
		t.Errorf("dashboard: totalCount %v, the API says %s", db["totalCount"], count)
	}
	if r := db["rates"].(map[string]any)["TS-1"]; r != rate {
		t.Errorf("dashboard: TS-1's rate is %#v, want the string %q", r, rate)
	}
	if w := db["weights"].(map[string]any)["TS-1"]; w != weight {
		t.Errorf("dashboard: TS-1's weight is %#v, want the string %q", w, weight)
	}

	if r := steps["refresh"]; r["number"] != res.Invoice.Number || r["attempts"] != json.Number("2") || r["newToken"] != true {
		t.Errorf("refresh: %v; want the invoice read in two attempts with a new token after the old one was revoked", r)
	}

	ref := steps["refused"]
	if id, _ := ref["requestId"].(string); ref["status"] != json.Number("400") || ref["title"] == nil || ref["detail"] == nil || len(id) != 32 || ref["attempts"] != json.Number("1") {
		t.Errorf("refused: %v, want a HaulGraphError: 400, the problem's title and detail, the request id, one attempt", ref)
	}
}
