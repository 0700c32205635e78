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
)

// command is one command of the binary. Its flags are defined apart from
// run, and its values checked by check, so that help and bad command lines
// are answered before anything opens the database or needs the encryption
// key.
type command struct {
	name     string
	summary  string
	synopsis string                 // after "haulgraph NAME", for a command without actions
	notes    string                 // printed by help after the synopsis
	actions  []action               // subcommands; none when the flags follow the command
	flags    func(fs *flag.FlagSet) // nil: no flags
	// check refuses bad flag values (a usage error) before run; action is
	// "" for a command without actions.
	check func(action string, fs *flag.FlagSet) error
	db    bool   // needs DATABASE_URL (and, outside the demo, the key)
	env   string // the environment it reads, when not the database's
	run   func(ctx context.Context, args []string) error
}

// action is one subcommand: the flags of its command that it takes.
type action struct {
	name     string
	aliases  []string // earlier names that still work
	synopsis string   // after "haulgraph COMMAND NAME"
	notes    string   // printed by its help after the synopsis
	flags    []string // the command's flags it takes
	required []string // of those, the ones it must be given
}

const envHelp = `environment:
  DATABASE_URL              PostgreSQL to use (make run's: ./scripts/with-pg.sh sets it)
  HAULGRAPH_ENCRYPTION_KEY  base64 32-byte master key (the demo generates its own)
`

func commands() []command {
	tenants := func(kind string, actions []action) command {
		return command{name: kind, notes: tenantsNotes, actions: actions, db: true,
			flags: func(fs *flag.FlagSet) { tenantFlags(fs) },
			run:   func(ctx context.Context, args []string) error { return tenantsCmd(ctx, kind, args) }}
	}
	t, s := tenants("tenants", tenantsActions), tenants("subsidiaries", subsidiariesActions)
	t.summary = "create and list tenants"
	s.summary = "create and list a tenant's subsidiaries"
	return []command{
		{name: "serve", summary: "run the API (migrates first; --seed-demo seeds an empty database)",
			synopsis: "[--seed-demo]", notes: "Serves HAULGRAPH_ADDR (default 127.0.0.1:8080) after applying the migrations.\n",
			flags: func(fs *flag.FlagSet) { serveFlags(fs) }, db: true, run: serve},
		{name: "migrate", summary: "apply database migrations", notes: "Applies the pending migrations to DATABASE_URL and exits.\n",
			db: true, run: func(ctx context.Context, _ []string) error { return migrate(ctx) }},
		t, s,
		{name: "clients", summary: "manage API client credentials", actions: clientsActions,
			flags: func(fs *flag.FlagSet) { clientFlags(fs) }, check: checkClientFlags, db: true, run: clientsCmd},
		{name: "keys", summary: "rotate the token signing key",
			actions: []action{{name: "rotate", notes: "A new key signs tokens from now on; the previous one verifies until its tokens expire.\n"}},
			db:      true, run: keysCmd},
		{name: "seed", summary: "create a tenant filled with deterministic demo data",
			synopsis: "--tenant SLUG [--scale N] [--name NAME]",
			flags:    func(fs *flag.FlagSet) { seedFlags(fs) }, check: checkSeedFlags, db: true, run: seedCommand},
		{name: "webhooks", summary: "manage a tenant's webhooks", notes: webhooksNotes, actions: webhooksActions,
			flags: func(fs *flag.FlagSet) { webhookFlags(fs) }, check: checkWebhookFlags, db: true,
			run: func(ctx context.Context, args []string) error { return webhooksCmd(ctx, args, os.Stdout) }},
		{name: "destinations", summary: "manage a tenant's event destinations (webhooks, NATS JetStream, RabbitMQ)", notes: webhooksNotes,
			actions: destinationsActions(), flags: func(fs *flag.FlagSet) { webhookFlags(fs); destinationFlags(fs) }, check: checkWebhookFlags, db: true,
			run: func(ctx context.Context, args []string) error { return destinationsCmd(ctx, args, os.Stdout) }},
		{name: "listen", summary: "forward the tenant's events, signed as webhooks, to a local URL",
			synopsis: listenSynopsis, notes: listenNotes, env: apiEnvHelp, flags: func(fs *flag.FlagSet) { listenFlags(fs) },
			run: func(ctx context.Context, args []string) error { return listenCmd(ctx, args, os.Stdout, os.Stderr) }},
		{name: "trigger", summary: "make a real change to a demo load so an event fires",
			notes: triggerNotes, env: apiEnvHelp, actions: triggerActions(), flags: func(fs *flag.FlagSet) { triggerFlags(fs) },
			run: func(ctx context.Context, args []string) error { return triggerCmd(ctx, args, os.Stdout) }},
		{name: "version", summary: "print the version and exit",
			run: func(context.Context, []string) error { fmt.Println(versionText()); return nil }},
	}
}

func topUsage(cmds []command) string {
	var b strings.Builder
	b.WriteString("usage: haulgraph <command> [action] [flags]\n       haulgraph help <command> [action]\n\ncommands:\n")
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
// itself is wrong. A wrong command line is told in two lines on stderr:
// what is wrong, and which help to read.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	bad := func(msg, helpFor string) int {
		fmt.Fprintf(stderr, "haulgraph: %s\nRun 'haulgraph help%s' for usage.\n", msg, helpFor)
		return 2
	}
	if len(args) == 0 {
		return bad("no command given", "")
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	if isHelp(args[0]) {
		if len(args) == 1 || isHelp(args[1]) {
			fmt.Fprint(stdout, topUsage(cmds))
			return 0
		}
		// help CMD [ACTION] is CMD [ACTION] --help.
		args = append(slices.Clone(args[1:]), "--help")
	}
	i := slices.IndexFunc(cmds, func(c command) bool { return c.name == args[0] })
	if i < 0 {
		return bad(fmt.Sprintf("unknown command %q", args[0]), "")
	}
	c := cmds[i]
	rest, helpFor := args[1:], " "+c.name
	var a *action
	if len(c.actions) > 0 {
		switch {
		case len(rest) == 0:
			return bad(c.name+": no action given ("+c.actionNames()+")", helpFor)
		case isHelp(rest[0]):
			return c.help(stdout, nil)
		}
		if a = c.action(rest[0]); a == nil {
			return bad(fmt.Sprintf("%s: unknown action %q (%s)", c.name, rest[0], c.actionNames()), helpFor)
		}
		rest, helpFor = rest[1:], helpFor+" "+a.name
	}
	name := strings.TrimPrefix(helpFor, " ")
	if len(rest) > 0 && rest[0] == "help" { // listen help, clients create help
		return c.help(stdout, a)
	}
	fs := c.flagSet(name)
	if err := fs.Parse(rest); errors.Is(err, flag.ErrHelp) {
		return c.help(stdout, a)
	} else if err != nil {
		return bad(fmt.Sprintf("%s: %s", name, flagError(err)), helpFor)
	}
	if fs.NArg() > 0 {
		return bad(fmt.Sprintf("%s: unexpected argument %q", name, fs.Arg(0)), helpFor)
	}
	if err := c.checkFlags(a, fs); err != nil {
		return bad(name+": "+err.Error(), helpFor)
	}
	runArgs := args[1:]
	if a != nil { // an alias runs as the action's name
		runArgs = append([]string{a.name}, rest...)
	}
	if err := c.run(ctx, runArgs); err != nil {
		var ue usageErr
		if errors.As(err, &ue) {
			return bad(strings.TrimPrefix(ue.msg, name+": "), helpFor)
		}
		fmt.Fprintln(stderr, "haulgraph:", err)
		return 1
	}
	return 0
}

// flagError says what the flag package found, with flags written as the
// docs write them (--name).
func flagError(err error) string {
	msg := err.Error()
	for _, p := range []string{"flag provided but not defined: -", "invalid value ", "flag needs an argument: -"} {
		if strings.HasPrefix(msg, p) && !strings.HasPrefix(msg, p+"-") {
			msg = strings.Replace(msg, "-", "--", 1)
			if p == "invalid value " {
				msg = strings.Replace(msg, "for flag -", "for flag --", 1)
			}
		}
	}
	return msg
}

// action finds the action called name (or one of its aliases).
func (c command) action(name string) *action {
	for i := range c.actions {
		if c.actions[i].name == name || slices.Contains(c.actions[i].aliases, name) {
			return &c.actions[i]
		}
	}
	return nil
}

func (c command) actionNames() string {
	names := make([]string, len(c.actions))
	for i, a := range c.actions {
		names[i] = a.name
	}
	return strings.Join(names, ", ")
}

// checkFlags refuses flags the action does not take, required flags not
// given, and what the command's check refuses.
func (c command) checkFlags(a *action, fs *flag.FlagSet) error {
	var err error
	actionName := ""
	if a != nil {
		actionName = a.name
		fs.Visit(func(f *flag.Flag) {
			if err == nil && !slices.Contains(a.flags, f.Name) {
				err = fmt.Errorf("--%s does not apply to %s %s", f.Name, c.name, a.name)
			}
		})
		if err != nil {
			return err
		}
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		for _, r := range a.required {
			if !given[r] {
				return fmt.Errorf("--%s is required", r)
			}
		}
	}
	if c.check != nil {
		return c.check(actionName, fs)
	}
	return nil
}

func (c command) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if c.flags != nil {
		c.flags(fs)
	}
	return fs
}

// help prints the usage of c, or of its action a, with the flags it takes.
func (c command) help(w io.Writer, a *action) int {
	switch {
	case a != nil:
		fmt.Fprintf(w, "usage: haulgraph %s %s%s\n", c.name, a.name, prefixed(" ", a.synopsis))
		if len(a.aliases) > 0 {
			fmt.Fprintf(w, "       (also: %s)\n", strings.Join(a.aliases, ", "))
		}
		fmt.Fprint(w, prefixed("\n", a.notes))
		c.printFlags(w, c.name+" "+a.name, a.flags)
	case len(c.actions) > 0:
		fmt.Fprintln(w, "usage:")
		for _, a := range c.actions {
			fmt.Fprintf(w, "  haulgraph %s %s%s\n", c.name, a.name, prefixed(" ", a.synopsis))
		}
		fmt.Fprint(w, prefixed("\n", c.notes))
		fmt.Fprintf(w, "\nRun 'haulgraph help %s ACTION' for an action's flags.\n", c.name)
	default:
		fmt.Fprintf(w, "usage: haulgraph %s%s\n", c.name, prefixed(" ", c.synopsis))
		fmt.Fprint(w, prefixed("\n", c.notes))
		c.printFlags(w, c.name, nil)
	}
	if c.db {
		fmt.Fprint(w, "\n"+envHelp)
	}
	if c.env != "" {
		fmt.Fprint(w, "\n"+c.env)
	}
	return 0
}

// printFlags lists the flags called names (all of them when names is nil),
// written --name as the docs write them.
func (c command) printFlags(w io.Writer, name string, names []string) {
	fs := c.flagSet(name)
	var lines []string
	fs.VisitAll(func(f *flag.Flag) {
		if names != nil && !slices.Contains(names, f.Name) {
			return
		}
		arg, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name + prefixed(" ", arg)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += " (default " + f.DefValue + ")"
		}
		lines = append(lines, fmt.Sprintf("%-30s %s", line, usage))
	})
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nflags of haulgraph %s:\n%s\n", name, strings.Join(lines, "\n"))
	}
}

// prefixed is p+s, or "" when s is.
func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// usageErr is an error of the command line itself, found by a command's
// run: exit 2, told as a bad command line is.
type usageErr struct{ msg string }

func (e usageErr) Error() string { return e.msg }

func usageError(msg string) error { return usageErr{msg} }

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
