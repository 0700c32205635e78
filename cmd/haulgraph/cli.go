package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
)

// command is one command of the binary. Its flags are defined apart from
// run so that help and bad command lines are answered before anything opens
// the database or needs the encryption key.
type command struct {
	name    string
	summary string
	usage   string                 // synopsis and notes, printed first by help
	actions []string               // subcommands; none when the flags follow the command
	flags   func(fs *flag.FlagSet) // nil: no flags
	db      bool                   // needs DATABASE_URL (and, outside the demo, the key)
	env     string                 // the environment it reads, when not the database's
	run     func(ctx context.Context, args []string) error
}

const envHelp = `environment:
  DATABASE_URL              PostgreSQL to use (make run's: ./scripts/with-pg.sh sets it)
  HAULGRAPH_ENCRYPTION_KEY  base64 32-byte master key (the demo generates its own)
`

func commands() []command {
	webhookActions := []string{"create", "list", "get", "update", "enable", "disable", "regenerate-secret", "delete", "redeliver", "deliveries", "recover"}
	tenants := func(kind string) command {
		return command{name: kind, usage: tenantsUsage, actions: []string{"create", "list"}, db: true,
			flags: func(fs *flag.FlagSet) { tenantFlags(fs) },
			run:   func(ctx context.Context, args []string) error { return tenantsCmd(ctx, kind, args) }}
	}
	t, s := tenants("tenants"), tenants("subsidiaries")
	t.summary = "create and list tenants (tenants create --slug SLUG --name NAME)"
	s.summary = "create and list a tenant's subsidiaries (--tenant SLUG)"
	return []command{
		{name: "serve", summary: "run the API (migrates first; --seed-demo seeds an empty database)",
			usage: "usage: haulgraph serve [--seed-demo]\n\nServes HAULGRAPH_ADDR (default 127.0.0.1:8080) after applying the migrations.\n",
			flags: func(fs *flag.FlagSet) { serveFlags(fs) }, db: true, run: serve},
		{name: "migrate", summary: "apply database migrations",
			usage: "usage: haulgraph migrate\n\nApplies the pending migrations to DATABASE_URL and exits.\n",
			db:    true, run: func(ctx context.Context, _ []string) error { return migrate(ctx) }},
		t, s,
		{name: "clients", summary: "manage API client credentials (create, list, revoke, edit)",
			usage: fmt.Sprintf(clientsUsage, domain.JoinScopes(domain.ScopeCatalogue)), actions: []string{"create", "list", "revoke", "edit"},
			flags: func(fs *flag.FlagSet) { clientFlags(fs) }, db: true, run: clientsCmd},
		{name: "keys", summary: "rotate the token signing key (keys rotate)",
			usage:   "usage: haulgraph keys rotate\n\nA new key signs tokens from now on; the previous one verifies until its tokens expire.\n",
			actions: []string{"rotate"}, db: true, run: keysCmd},
		{name: "seed", summary: "create a tenant filled with deterministic demo data (--tenant SLUG [--scale N])",
			usage: "usage: haulgraph seed --tenant SLUG [--scale N] [--name NAME]\n",
			flags: func(fs *flag.FlagSet) { seedFlags(fs) }, db: true, run: seedCommand},
		{name: "webhooks", summary: "manage webhooks (haulgraph help webhooks)", usage: webhooksUsage, actions: webhookActions,
			flags: func(fs *flag.FlagSet) { webhookFlags(fs) }, db: true,
			run: func(ctx context.Context, args []string) error { return webhooksCmd(ctx, args, os.Stdout) }},
		{name: "listen", summary: "forward the tenant's events, signed as webhooks, to a local URL (--forward-to URL)",
			usage: listenUsage, env: apiEnvHelp, flags: func(fs *flag.FlagSet) { listenFlags(fs) },
			run: func(ctx context.Context, args []string) error { return listenCmd(ctx, args, os.Stdout, os.Stderr) }},
		{name: "trigger", summary: "make a real change to a demo load so an event fires (trigger load.changed)",
			usage: triggerUsage, env: apiEnvHelp, actions: triggerTypes, flags: func(fs *flag.FlagSet) { triggerFlags(fs) },
			run: func(ctx context.Context, args []string) error { return triggerCmd(ctx, args, os.Stdout) }},
		{name: "version", summary: "print the version and exit", usage: "usage: haulgraph version\n",
			run: func(context.Context, []string) error { fmt.Println(versionText()); return nil }},
	}
}

func topUsage(cmds []command) string {
	var b strings.Builder
	b.WriteString("usage: haulgraph <command> [flags]\n       haulgraph help <command> [action]\n       haulgraph <command> [action] --help\n\ncommands:\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-13s %s\n", c.name, c.summary)
	}
	b.WriteString("\n" + envHelp)
	return b.String()
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// cli runs the command line args (without the program name) and returns
// the exit status: 0, 1 when the command failed, 2 when the command line
// itself is wrong.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	bad := func(msg string, usage string) int {
		fmt.Fprintf(stderr, "haulgraph: %s\n\n%s", msg, usage)
		return 2
	}
	if len(args) == 0 {
		return bad("no command given", topUsage(cmds))
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	if isHelp(args[0]) {
		if len(args) == 1 || isHelp(args[1]) {
			fmt.Fprint(stdout, topUsage(cmds))
			return 0
		}
		args = append(args[1:2:2], append([]string{"--help"}, args[2:]...)...)
		if len(args) > 2 { // help CMD ACTION: the action's help
			args[1], args[2] = args[2], args[1]
		}
	}
	i := slices.IndexFunc(cmds, func(c command) bool { return c.name == args[0] })
	if i < 0 {
		return bad(fmt.Sprintf("unknown command %q", args[0]), topUsage(cmds))
	}
	c := cmds[i]
	name, rest := c.name, args[1:]
	if len(c.actions) > 0 {
		switch {
		case len(rest) == 0:
			return bad(fmt.Sprintf("%s: no action given", c.name), c.usage)
		case isHelp(rest[0]):
			return c.help(stdout, c.name)
		case !slices.Contains(c.actions, rest[0]):
			return bad(fmt.Sprintf("%s: unknown action %q", c.name, rest[0]), c.usage)
		}
		name, rest = c.name+" "+rest[0], rest[1:]
	}
	fs := c.flagSet(name)
	if err := fs.Parse(rest); errors.Is(err, flag.ErrHelp) {
		return c.help(stdout, name)
	} else if err != nil {
		return bad(fmt.Sprintf("%s: %v", name, err), c.usage)
	}
	if fs.NArg() > 0 {
		return bad(fmt.Sprintf("%s: unexpected argument %q", name, fs.Arg(0)), c.usage)
	}
	if err := c.run(ctx, args[1:]); err != nil {
		fmt.Fprintln(stderr, "haulgraph:", err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

func (c command) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if c.flags != nil {
		c.flags(fs)
	}
	return fs
}

// help prints the usage of c (name: the command or "command action") and
// its flags.
func (c command) help(w io.Writer, name string) int {
	fmt.Fprint(w, c.usage)
	fs := c.flagSet(name)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintf(w, "\nflags of haulgraph %s:\n", name)
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if c.db {
		fmt.Fprint(w, "\n"+envHelp)
	}
	if c.env != "" {
		fmt.Fprint(w, "\n"+c.env)
	}
	return 0
}

// version is the release this binary is (make build VERSION=v0.29.0 sets
// it with -ldflags -X main.version=…; CHANGELOG.md lists the releases);
// empty, the module version the toolchain recorded stands in.
var version string

// versionText is the release (or module version) and the VCS revision the
// binary was built from, as the Go toolchain recorded them.
func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "haulgraph " + version + " (no build information)"
	}
	v := "haulgraph " + bi.Main.Version
	if version != "" {
		v = "haulgraph " + version
	}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " (modified)"
			}
		}
	}
	if rev != "" {
		v += " revision " + rev + dirty
		if at != "" {
			v += " of " + at
		}
	}
	return v + " " + bi.GoVersion
}
