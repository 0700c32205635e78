package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/rest"
)

// What the docs name, found by these patterns.
var (
	// envName is an environment variable of the server, the CLI or the scripts.
	envName = regexp.MustCompile(`\b(?:HAULGRAPH|OTEL)_[A-Z0-9_]*[A-Z0-9](?:_?\*)?|\bDATABASE_URL\b`)
	// envPrefix is the start of names the code composes ("HAULGRAPH_X_" + kind).
	envPrefix = regexp.MustCompile(`"((?:HAULGRAPH|OTEL)_[A-Z0-9_]*_)"\s*\+`)
	// routePath is a path of the server's or the admin listener's, after an
	// address, $BASE, or a space, quote, backtick or parenthesis.
	routePath = regexp.MustCompile("(?:^|[\\s`\"'(=]|\\$BASE|\\$\\{BASE\\}|://[^/\\s`\"']+)(/(?:api/|graphql|graphiql/|oauth/|\\.well-known/|healthz|readyz|metrics|debug/pprof|board|docs)[^\\s`\"')\\]>|,;]*)")
	// cliCall is a haulgraph command line: the binary, a command and what follows.
	cliCall = regexp.MustCompile("(?:^|[\\s(`$'\"]|bin/|cmd/)haulgraph((?:[ \\t]+[^\\s|;&)`]+)+)")
)

// docText is README.md and docs/*.md, by path relative to the repository.
func docText(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range append(files, "../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(f, "../")] = string(b)
	}
	return out
}

// sourceEnv is every environment variable name the code, the scripts and
// the Makefile mention outside tests: the places that read them.
func sourceEnv(t *testing.T, root string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	var walk fs.WalkDirFunc
	walk = func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && !strings.Contains(path, "go.opentelemetry.io") && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !(strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) && !strings.HasSuffix(name, ".sh") && name != "Makefile" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, v := range envName.FindAllString(string(b), -1) {
			seen[v] = true
		}
		for _, m := range envPrefix.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]+"*"] = true
		}
		return nil
	}
	if err := filepath.WalkDir(root, walk); err != nil {
		t.Fatal(err)
	}
	// The OTEL_* variables are read by the OpenTelemetry SDK and its OTLP
	// exporter, which telemetry hands the environment to.
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.opentelemetry.io/otel/sdk",
		"go.opentelemetry.io/otel/exporters/otlp/otlptrace", "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp").Output()
	if err != nil {
		t.Fatalf("go list the OpenTelemetry modules: %v", err)
	}
	for _, dir := range strings.Fields(string(out)) {
		if err := filepath.WalkDir(dir, walk); err != nil {
			t.Fatal(err)
		}
	}
	return seen
}

// envMissing: the names a doc gives that nothing reads (NAME* stands for
// every name so prefixed).
func envMissing(doc string, known map[string]bool) []string {
	var bad []string
	for _, v := range envName.FindAllString(doc, -1) {
		found := known[v]
		prefix, wild := strings.CutSuffix(v, "*")
		for k := range known {
			composed, ok := strings.CutSuffix(k, "*")
			found = found || (wild && strings.HasPrefix(k, prefix)) || (ok && strings.HasPrefix(v, composed))
		}
		if !found {
			bad = append(bad, v)
		}
	}
	return bad
}

// serverRoutes are the paths the server and the admin listener route: the
// OpenAPI document's (every REST route) and the patterns the other muxes
// register (app, admin, rest), with their constants resolved.
func serverRoutes(t *testing.T, root string) []string {
	t.Helper()
	doc, _, err := rest.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	for p := range doc.Paths.Map() {
		routes = append(routes, p)
	}
	consts := map[string]string{} // "pkg.Name" and "Name" (within pkg) → value
	type call struct {
		pkg string
		arg ast.Expr
	}
	var calls []call
	fset := token.NewFileSet()
	for _, dir := range []string{"app", "admin", "rest", "board", "refdocs", "graphiql"} {
		pkgs, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range pkgs {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ValueSpec:
					for i, id := range n.Names {
						if i < len(n.Values) {
							if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								v, _ := strconv.Unquote(lit.Value)
								consts[file.Name.Name+"."+id.Name] = v
							}
						}
					}
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Handle" || sel.Sel.Name == "HandleFunc") && len(n.Args) == 2 {
						calls = append(calls, call{file.Name.Name, n.Args[0]})
					}
				}
				return true
			})
		}
	}
	var eval func(pkg string, e ast.Expr) (string, bool)
	eval = func(pkg string, e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			v, err := strconv.Unquote(e.Value)
			return v, err == nil
		case *ast.Ident:
			v, ok := consts[pkg+"."+e.Name]
			return v, ok
		case *ast.SelectorExpr:
			if x, ok := e.X.(*ast.Ident); ok {
				v, ok := consts[x.Name+"."+e.Sel.Name]
				return v, ok
			}
		case *ast.BinaryExpr:
			l, ok1 := eval(pkg, e.X)
			r, ok2 := eval(pkg, e.Y)
			return l + r, ok1 && ok2
		}
		return "", false
	}
	for _, c := range calls {
		if p, ok := eval(c.pkg, c.arg); ok {
			if _, path, found := strings.Cut(p, " "); found {
				p = path
			}
			routes = append(routes, p)
		}
	}
	if len(routes) < 30 {
		t.Fatalf("found only %d routes: %v", len(routes), routes)
	}
	return routes
}

// routeMatches: a doc's path (placeholders $X, {x}, ID, … standing for a
// segment; any vN for the version) is a route pattern's ({x} any segment,
// a trailing / any rest, {x...} the rest).
func routeMatches(path, pattern string) bool {
	path, _, _ = strings.Cut(path, "?")
	path, _, _ = strings.Cut(path, "#")
	path = strings.TrimRight(path, ".:")
	if strings.HasSuffix(pattern, "/") && path == strings.TrimSuffix(pattern, "/") {
		return true // the root of a subtree
	}
	ps, ts := strings.Split(path, "/"), strings.Split(pattern, "/")
	version := regexp.MustCompile(`^v[0-9]+$`)
	for i, seg := range ps {
		if i >= len(ts) {
			return false
		}
		want := ts[i]
		if i == len(ts)-1 && want == "" && i > 0 {
			return true // a subtree pattern
		}
		placeholder := strings.ContainsAny(seg, "${…*") || (seg != "" && strings.ToUpper(seg) == seg && seg != strings.ToLower(seg))
		switch {
		case strings.HasSuffix(want, "...}"):
			return true
		case strings.HasPrefix(want, "{") && seg != "":
		case want == "v1" && (version.MatchString(seg) || seg == "v{version}"):
		case seg == want:
		case placeholder && seg != "":
		default:
			return false
		}
	}
	return len(ps) == len(ts)
}

// routeMissing: the paths a doc names that no route serves.
func routeMissing(doc string, routes []string) []string {
	var bad []string
	for _, m := range routePath.FindAllStringSubmatch(doc, -1) {
		found := false
		for _, r := range routes {
			if routeMatches(m[1], r) {
				found = true
				break
			}
		}
		if !found {
			bad = append(bad, m[1])
		}
	}
	return bad
}

// cli is what `haulgraph help` says: each command's actions (none for a
// command without) and the flags of each command or action.
type cli struct {
	actions map[string]map[string]bool // command → actions
	flags   map[string]map[string]bool // "command" or "command action" → flags
}

// haulgraphHelp builds cmd/haulgraph and asks its help for every command
// and action.
func haulgraphHelp(t *testing.T) cli {
	t.Helper()
	bin := haulgraphBinary(t)
	help := func(args ...string) string {
		out, err := exec.Command(bin, append([]string{"help"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("haulgraph help %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	c := cli{actions: map[string]map[string]bool{}, flags: map[string]map[string]bool{}}
	flagLine := regexp.MustCompile(`(?m)^\s+--([a-z][a-z0-9-]*)`)
	flagsOf := func(text string) map[string]bool {
		f := map[string]bool{"help": true}
		for _, m := range flagLine.FindAllStringSubmatch(text, -1) {
			f[m[1]] = true
		}
		return f
	}
	command := regexp.MustCompile(`(?m)^  ([a-z][a-z-]*)  `)
	_, list, _ := strings.Cut(help(), "commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	for _, m := range command.FindAllStringSubmatch(list+"\n", -1) {
		name := m[1]
		text := help(name)
		c.actions[name] = map[string]bool{}
		usage := regexp.MustCompile(`(?m)haulgraph ` + name + ` ([a-z][a-z0-9.-]*)\b`)
		for _, a := range usage.FindAllStringSubmatch(text, -1) {
			c.actions[name][a[1]] = true
			c.flags[name+" "+a[1]] = flagsOf(help(name, a[1]))
		}
		c.flags[name] = flagsOf(text)
	}
	if len(c.actions) < 8 || len(c.actions["webhooks"]) < 5 || !c.flags["listen"]["forward-to"] {
		t.Fatalf("haulgraph help parsed into %+v: did its format change?", c)
	}
	return c
}

// cliMissing: the commands, actions and flags a doc's command lines give
// that the binary does not have.
func cliMissing(doc string, c cli) []string {
	var bad []string
	// A command line may go on over lines ending in a backslash.
	doc = strings.ReplaceAll(doc, "\\\n", " ")
	// A shell comment is prose.
	doc = regexp.MustCompile(`(?m)(^|\s)#\s.*$`).ReplaceAllString(doc, "")
	placeholder := regexp.MustCompile(`^[A-Z]+$|^\[|^<`)
	for _, m := range cliCall.FindAllStringSubmatch(doc, -1) {
		words := strings.Fields(m[1])
		if words[0] == "help" {
			words = words[1:]
		}
		if len(words) == 0 || placeholder.MatchString(words[0]) || strings.HasPrefix(words[0], "-") {
			continue
		}
		name := words[0]
		if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(name) {
			continue // a path, an argument of the shell function, a config line
		}
		actions, ok := c.actions[name]
		if !ok {
			bad = append(bad, "haulgraph "+name)
			continue
		}
		key := name
		rest := words[1:]
		if len(actions) > 0 && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && !placeholder.MatchString(rest[0]) {
			if !actions[rest[0]] {
				bad = append(bad, "haulgraph "+name+" "+rest[0])
				continue
			}
			key = name + " " + rest[0]
			rest = rest[1:]
		}
		flags := c.flags[key]
		if flags == nil {
			flags = c.flags[name]
		}
		for _, w := range rest {
			f, ok := strings.CutPrefix(w, "--")
			if !ok {
				continue
			}
			f, _, _ = strings.Cut(f, "=")
			f = strings.TrimRight(f, ".,:]")
			if f != "" && !flags[f] {
				bad = append(bad, "haulgraph "+key+" --"+f)
			}
		}
	}
	return bad
}

// TestDocsNameWhatExists fails when README.md or a guide names an
// environment variable nothing reads, a path no route serves, or a
// haulgraph command, action or flag the binary does not have.
func TestDocsNameWhatExists(t *testing.T) {
	t.Parallel()
	env := sourceEnv(t, "..")
	routes := serverRoutes(t, "..")
	c := haulgraphHelp(t)
	docs := docText(t)
	names := make([]string, 0, len(docs))
	for name := range docs {
		names = append(names, name)
	}
	sort.Strings(names)
	counts := [3]int{}
	for _, name := range names {
		doc := docs[name]
		counts[0] += len(envName.FindAllString(doc, -1))
		counts[1] += len(routePath.FindAllString(doc, -1))
		counts[2] += len(cliCall.FindAllString(doc, -1))
		for _, v := range dedupe(envMissing(doc, env)) {
			t.Errorf("%s names %s, which nothing reads", name, v)
		}
		for _, p := range dedupe(routeMissing(doc, routes)) {
			t.Errorf("%s names %s, which no route serves", name, p)
		}
		for _, l := range dedupe(cliMissing(doc, c)) {
			t.Errorf("%s names %s, which haulgraph does not have", name, l)
		}
	}
	if counts[0] < 50 || counts[1] < 50 || counts[2] < 20 {
		t.Fatalf("found %d variables, %d paths, %d command lines in the docs: did a pattern break?", counts[0], counts[1], counts[2])
	}
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// TestDocNameCheckers: each checker passes what exists and names what does
// not, on a synthetic doc.
func TestDocNameCheckers(t *testing.T) {
	t.Parallel()
	known := map[string]bool{"HAULGRAPH_ADDR": true, "HAULGRAPH_RATE_LIMIT_CLIENT": true, "DATABASE_URL": true}
	routes := []string{"/api/p/v1/webhooks/{id}/enable", "/graphql", "/oauth/token", "/docs/", "/healthz"}
	c := cli{
		actions: map[string]map[string]bool{"webhooks": {"create": true}, "listen": {}},
		flags: map[string]map[string]bool{
			"webhooks": {"help": true}, "webhooks create": {"help": true, "tenant": true, "url": true},
			"listen": {"help": true, "forward-to": true},
		},
	}
	for _, tc := range []struct {
		name, doc string
		check     func(string) []string
		want      []string
	}{
		{"env exists", "Set `HAULGRAPH_ADDR` and `DATABASE_URL`; `HAULGRAPH_RATE_LIMIT_*` too.",
			func(d string) []string { return envMissing(d, known) }, nil},
		{"env missing", "Set `HAULGRAPH_ADRES` (`HAULGRAPH_NOPE_*`).",
			func(d string) []string { return envMissing(d, known) }, []string{"HAULGRAPH_ADRES", "HAULGRAPH_NOPE_*"}},
		{"routes exist", "```sh\ncurl -X POST $BASE/api/p/v1/webhooks/$ID/enable\ncurl http://127.0.0.1:8080/graphql\n```\n`POST /oauth/token`, `/docs/events`, `/healthz`.",
			func(d string) []string { return routeMissing(d, routes) }, nil},
		{"routes missing", "`POST /oauth/tokens` and $BASE/api/p/v1/webhooks/$ID/activate and `/graphql/live`.",
			func(d string) []string { return routeMissing(d, routes) }, []string{"/oauth/tokens", "/api/p/v1/webhooks/$ID/activate", "/graphql/live"}},
		{"cli exists", "```sh\n./bin/haulgraph webhooks create --tenant demo \\\n  --url https://x\nhaulgraph listen --forward-to http://x | head\n```\n`haulgraph help listen`, `haulgraph webhooks --help`, `haulgraph CMD --help`.",
			func(d string) []string { return cliMissing(d, c) }, nil},
		{"cli missing", "```sh\nhaulgraph webhooks create --tenant demo \\\n  --secret x\nhaulgraph webhooks activate --id 1\n```\n`haulgraph listen --forward URL`, `haulgraph replay`.",
			func(d string) []string { return cliMissing(d, c) },
			[]string{"haulgraph webhooks create --secret", "haulgraph webhooks activate", "haulgraph listen --forward", "haulgraph replay"}},
	} {
		got := tc.check(tc.doc)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
