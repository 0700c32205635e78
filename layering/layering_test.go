package layering

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/haulgraph/haulgraph"

// rules is the import table docs/architecture.md ("Import rules") points to:
// for each package (a path ending in "/..." covers the packages under it too),
// the project packages its non-test code may import. The first matching row
// applies; a package no row matches fails the test, so a new package takes
// its place in the table before it lands.
var rules = []rule{
	// Leaves: the rules and the small libraries import nothing of ours.
	{"domain", nil},
	// The areas: each over the base alone, none over another.
	{"domain/...", []string{"domain"}},
	{"secretbox", nil},
	{"webhooksig", nil},
	{"jsonkey", nil},
	{"ratelimit", nil},
	{"board", nil},
	{"graphiql", nil},
	{"refdocs", nil},
	{"sdk/typescript", nil},
	{"admin", nil},
	{"readme", nil},
	{"layering", nil},
	{"lbtest", []string{"testkit/proc"}},
	{"brokertest", []string{"testkit/proc"}},
	// What the tests share (a webhook receiver, GraphQL and JSON helpers;
	// the real servers they start beside them): nothing of the application,
	// so a test binary stays small.
	{"testkit", nil},
	{"testkit/proc", nil},
	{"npmci", nil},
	{"scripts", nil},
	{"release", nil},
	// OpenTelemetry: the tracer, the PostgreSQL tracer, the log handler.
	{"telemetry", nil},
	// The Go SDK is what integrators import: the API only, over HTTP.
	{"sdk/...", []string{"sdk/..."}},
	// Storage: SQL behind the domain's ports.
	{"storage/dbtest", []string{"storage", "contract/emitted"}},
	{"storage/pgcluster", []string{"storage"}},
	{"storage/readstest", []string{"storage", "domain/..."}},
	{"storage/seed", []string{"storage", "domain/..."}},
	{"storage/seedtest", []string{"storage", "storage/dbtest", "storage/seed"}},
	{"storage", []string{"domain/...", "secretbox"}},
	// Background work: loops over the areas' ports, never storage (app
	// hands them its implementations).
	{"events/webhook", []string{"domain/...", "webhooksig", "telemetry", "contract/eventschema"}},
	{"events", []string{"domain/...", "telemetry"}},
	{"metrics", []string{"storage"}},
	// Identity: tokens and clients over the clients area's port (app hands
	// it storage), never storage itself.
	{"auth", []string{"domain/...", "secretbox", "jsonkey", "httpedge"}},
	// The contract: the published documents and event schemas, built from
	// domain's vocabularies (the transports serve them and check against them).
	{"contract/graphql", nil},
	{"contract/ajv", nil},
	{"contract/emitted", []string{"domain", "contract", "contract/eventschema"}},
	{"contract/eventschema/gen", []string{"contract/..."}},
	{"contract/eventschema", []string{"domain/...", "webhooksig"}},
	{"contract", []string{"domain/...", "contract/eventschema"}},
	// The HTTP edge every transport stands behind: observation, the client's
	// address, rate limits and refusals, the Bearer challenge.
	{"httpedge", []string{"domain", "ratelimit"}},
	// The response cache: answers and their versions, at the edge of REST
	// and GraphQL; storage reads the versions behind its port.
	{"respcache", []string{"domain", "httpedge"}},
	// Transports: convert and call the domain; never storage, auth or events.
	{"rest/openapigen", []string{"rest"}},
	{"rest", []string{"domain/...", "jsonkey", "contract", "httpedge", "contract/eventschema"}},
	{"resolvers", []string{"domain/...", "graph/generated", "graph/loaders", "graph/model"}},
	{"graph/gqlgenrun", nil},
	{"graph/execrt", nil},
	// GraphQL: what every operation passes (bounds, cost, errors) under the
	// shared subscription executions, under the transports; app composes
	// them. A transport never imports the composition, an execution never
	// a transport.
	{"graph/operation", []string{"domain/...", "ratelimit"}},
	{"graph/live", []string{"domain/...", "graph/operation", "contract/eventschema"}},
	{"graph/transport", []string{"domain/...", "graph/operation", "graph/live", "httpedge", "respcache", "contract/eventschema"}},
	{"graph", nil},
	{"graph/...", []string{"domain/...", "graph/...", "resolvers", "ratelimit", "jsonkey", "contract/..."}},
	// The composition root wires everything; programs and tests start it.
	{"app", []string{"..."}},
	{"apptest", []string{"..."}},
	{"cmd/...", []string{"..."}},
	{"bench/...", []string{"..."}},
}

// never are imports no package below the given one may reach, even through
// others (go list's Deps): the walls the table above keeps.
var never = []struct {
	pkg    string
	denied []string
}{
	{"domain", []string{"..."}},
	{"testkit/...", []string{"..."}},
	{"domain/...", []string{"storage/...", "auth", "events/...", "graph/...", "resolvers", "rest", "contract/...", "app",
		"secretbox", "webhooksig", "jsonkey", "ratelimit"}},
	{"storage", []string{"auth", "events/...", "graph/...", "resolvers", "rest", "app"}},
	{"rest", []string{"storage/...", "auth", "events/...", "graph/...", "app"}},
	{"httpedge", []string{"rest", "graph/...", "auth", "resolvers", "storage/...", "events/...", "app"}},
	{"respcache", []string{"rest", "graph/...", "auth", "resolvers", "storage/...", "events/...", "app"}},
	{"graph/...", []string{"storage/...", "auth", "events/...", "rest", "app"}},
	{"graph/operation", []string{"graph/live", "graph/transport", "resolvers"}},
	{"graph/live", []string{"graph/transport", "resolvers"}},
	{"resolvers", []string{"storage/...", "auth", "events/...", "app"}},
	{"events/...", []string{"storage/...", "auth", "graph/...", "resolvers", "rest", "app"}},
	{"auth", []string{"storage/...", "events/...", "graph/...", "resolvers", "rest", "app"}},
}

// match reports whether the project package p (module-relative) is named by
// pattern: "..." is every package, "x/..." is x and what is under it.
func match(pattern, p string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
}

// rule is a row of rules.
type rule = struct {
	pkg   string
	allow []string
}

type pkg struct {
	path    string
	imports []string // project packages, module-relative
	deps    []string
}

func list(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	own := func(s string) []string {
		var r []string
		for _, f := range strings.Fields(s) {
			if rel, ok := strings.CutPrefix(f, module+"/"); ok {
				r = append(r, rel)
			}
		}
		return r
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "|", 3)
		if len(parts) != 3 {
			continue
		}
		rel, _ := strings.CutPrefix(parts[0], module+"/")
		pkgs = append(pkgs, pkg{path: rel, imports: own(parts[1]), deps: own(parts[2])})
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

// TestLayering fails when a package imports against docs/architecture.md.
func TestLayering(t *testing.T) {
	t.Parallel()
	for _, p := range list(t) {
		i := slices.IndexFunc(rules, func(r rule) bool { return match(r.pkg, p.path) })
		if i < 0 {
			t.Errorf("%s: no row of the layering table (layering_test.go, docs/architecture.md) names it", p.path)
			continue
		}
		for _, imp := range p.imports {
			if !slices.ContainsFunc(rules[i].allow, func(a string) bool { return match(a, imp) }) {
				t.Errorf("%s imports %s: its row allows %v", p.path, imp, rules[i].allow)
			}
		}
		for _, n := range never {
			if !match(n.pkg, p.path) {
				continue
			}
			for _, d := range p.deps {
				if slices.ContainsFunc(n.denied, func(x string) bool { return match(x, d) }) {
					t.Errorf("%s reaches %s (through its imports): %s never may", p.path, d, n.pkg)
				}
			}
		}
	}
}

// TestGraphLayersOneWay: GraphQL's parts import one way only: a transport
// never the composition (app), an execution never a transport, what they
// share neither of them, and neither the resolvers; GraphQL's transports
// and REST meet in httpedge, which imports neither. The table refuses each
// such import.
func TestGraphLayersOneWay(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ from, to string }{
		{"graph/transport", "app"},
		{"graph/transport", "graph/generated"},
		{"graph/live", "graph/transport"},
		{"graph/operation", "graph/transport"},
		{"graph/operation", "graph/live"},
		// GraphQL's transports share the HTTP edge, not REST's package.
		{"graph/transport", "rest"},
		// The edge stands under every transport and imports none.
		{"httpedge", "rest"},
		{"httpedge", "graph/transport"},
		{"httpedge", "auth"},
		// The resolvers sit on top: what runs every operation (bounds,
		// cost, errors, dataloaders) and the shared subscription executions
		// hand them what they need through the context, never by name.
		{"graph/operation", "resolvers"},
		{"graph/live", "resolvers"},
	} {
		i := slices.IndexFunc(rules, func(r rule) bool { return match(r.pkg, c.from) })
		if i < 0 {
			t.Errorf("%s: no row", c.from)
			continue
		}
		if slices.ContainsFunc(rules[i].allow, func(a string) bool { return match(a, c.to) }) {
			t.Errorf("%s may import %s: its row allows %v", c.from, c.to, rules[i].allow)
		}
	}
}

// TestNoInit: nothing of the project changes behaviour from an init
// function; the composition in app wires every part explicitly.
func TestNoInit(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}|{{join .GoFiles \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	files := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, names, _ := strings.Cut(line, "|")
		for _, name := range strings.Fields(names) {
			path := filepath.Join(dir, name)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
					t.Errorf("%s: func init: wire it explicitly from app instead", path)
				}
			}
		}
	}
	if files < 100 {
		t.Fatalf("go list found %d files", files)
	}
}
