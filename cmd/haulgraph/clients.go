package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
)

// clientsActions are the clients command's actions and the flags each takes.
var clientsActions = []action{
	{name: "create", synopsis: `--tenant SLUG --name NAME --scopes "load:read invoice:read" [--description TEXT] [--expires DATE] [--json]`,
		notes:    "Prints the client id and secret; the secret is shown only this once.\n" + expiryNote + "\n" + scopesNote(),
		flags:    []string{"tenant", "name", "scopes", "description", "expires", "json"},
		required: []string{"tenant", "name", "scopes"}},
	{name: "list", synopsis: "--tenant SLUG [--json]", flags: []string{"tenant", "json"}, required: []string{"tenant"}},
	{name: "revoke", synopsis: "--tenant SLUG --client-id ID [--json]",
		notes: "The client obtains no further tokens; tokens it holds are refused from the next revocation poll.\n",
		flags: []string{"tenant", "client-id", "json"}, required: []string{"tenant", "client-id"}},
	{name: "edit", synopsis: `--tenant SLUG --client-id ID [--name NAME] [--description TEXT] [--scopes "..."] [--expires DATE|never] [--json]`,
		notes: expiryNote + "\n" + scopesNote(),
		flags: []string{"tenant", "client-id", "name", "description", "scopes", "expires", "json"}, required: []string{"tenant", "client-id"}},
}

const expiryNote = "DATE is YYYY-MM-DD (valid through that day, UTC) or an RFC 3339 time."

// scopesNote lists the grantable scopes, a few to a line.
func scopesNote() string {
	var b strings.Builder
	b.WriteString("Scopes (space- or comma-separated):\n")
	for i, sc := range domain.ScopeCatalogue {
		if i%6 == 0 {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(" ")
		}
		b.WriteString(" " + string(sc))
	}
	return b.String() + "\n"
}

// checkClientFlags refuses unknown scopes and malformed expiry dates
// before the database is opened.
func checkClientFlags(_ string, fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case err != nil:
		case f.Name == "scopes":
			for _, sc := range parseScopeList(f.Value.String()) {
				if !domain.KnownScope(sc) {
					err = fmt.Errorf("--scopes: unknown scope %q (haulgraph help clients create lists them)", sc)
					return
				}
			}
		case f.Name == "expires" && f.Value.String() != "never":
			_, err = parseExpiry(f.Value.String())
		}
	})
	return err
}

// clientsCmd runs `haulgraph clients` against the configured database.
func clientsCmd(ctx context.Context, args []string) error {
	a, err := openApp(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	return runClients(ctx, a.Auth, args, os.Stdout)
}

// openApp builds the application for an operator command (no listener).
func openApp(ctx context.Context) (*app.App, error) {
	cfg, err := app.FromEnv()
	if err != nil {
		return nil, err
	}
	return app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

type clientOpts struct {
	tenant, name, desc, scopes, expires, clientID *string
	asJSON                                        *bool
}

// clientFlags defines the clients flags on fs: for running and for --help.
func clientFlags(fs *flag.FlagSet) clientOpts {
	return clientOpts{
		tenant:   fs.String("tenant", "", "tenant slug (required)"),
		name:     fs.String("name", "", "name of the application"),
		desc:     fs.String("description", "", "description"),
		scopes:   fs.String("scopes", "", "scopes, space- or comma-separated"),
		expires:  fs.String("expires", "", "expiry date (YYYY-MM-DD or RFC 3339; edit: never)"),
		clientID: fs.String("client-id", "", "client id (revoke, edit)"),
		asJSON:   fs.Bool("json", false, "print JSON"),
	}
}

// runClients is the clients command proper, separate from the process
// setup so tests run it against a real instance.
func runClients(ctx context.Context, svc *auth.Service, args []string, out io.Writer) error {
	if len(args) == 0 {
		return usageError("no action given (create, list, revoke, edit)")
	}
	fs := flag.NewFlagSet("clients "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := clientFlags(fs)
	tenant, name, desc, scopes, expires, clientID, asJSON := o.tenant, o.name, o.desc, o.scopes, o.expires, o.clientID, o.asJSON
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(err.Error())
	}
	if *tenant == "" {
		return usageError("--tenant is required")
	}
	tenantID, err := svc.TenantBySlug(ctx, *tenant)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	switch args[0] {
	case "create":
		spec := auth.ClientSpec{Name: *name, Description: *desc, Scopes: parseScopeList(*scopes)}
		if *expires != "" {
			t, err := parseExpiry(*expires)
			if err != nil {
				return err
			}
			spec.ExpiresAt = &t
		}
		c, secret, err := svc.CreateClient(ctx, tenantID, spec)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(out, map[string]any{"client_id": c.ClientID, "client_secret": secret, "scopes": c.Scopes, "expires_at": c.ExpiresAt})
		}
		fmt.Fprintf(out, "Client created for tenant %s. The secret is shown only now: store it safely.\n\n", *tenant)
		fmt.Fprintf(out, "  client_id:     %s\n  client_secret: %s\n  scopes:        %s\n  expires:       %s\n",
			c.ClientID, secret, strings.Join(c.Scopes, " "), expiryText(c))
		return nil
	case "list":
		list, err := svc.ListClients(ctx, tenantID)
		if err != nil {
			return err
		}
		if *asJSON {
			views := make([]clientView, len(list))
			for i := range list {
				views[i] = viewOf(&list[i])
			}
			return writeJSON(out, views)
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CLIENT ID\tNAME\tSTATUS\tEXPIRES\tSCOPES")
		for i := range list {
			c := &list[i]
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.ClientID, c.Name, statusOf(c), expiryText(c), strings.Join(c.Scopes, " "))
		}
		return tw.Flush()
	case "revoke":
		if *clientID == "" {
			return usageError("--client-id is required")
		}
		if err := svc.RevokeClient(ctx, tenantID, *clientID); err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(out, map[string]any{"client_id": *clientID, "status": "revoked"})
		}
		fmt.Fprintf(out, "Client %s revoked: it can obtain no further tokens.\n", *clientID)
		return nil
	case "edit":
		if *clientID == "" {
			return usageError("--client-id is required")
		}
		var e auth.ClientEdit
		if set["name"] {
			e.Name = name
		}
		if set["description"] {
			e.Description = desc
		}
		if set["scopes"] {
			e.Scopes = parseScopeList(*scopes)
			if e.Scopes == nil {
				e.Scopes = []domain.Scope{}
			}
		}
		if set["expires"] {
			if *expires == "never" {
				e.NoExpiry = true
			} else {
				t, err := parseExpiry(*expires)
				if err != nil {
					return err
				}
				e.ExpiresAt = &t
			}
		}
		c, err := svc.EditClient(ctx, tenantID, *clientID, e)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(out, viewOf(c))
		}
		fmt.Fprintf(out, "Client %s updated: %s, scopes %s, expires %s.\n", c.ClientID, c.Name, strings.Join(c.Scopes, " "), expiryText(c))
		return nil
	}
	return usageError(fmt.Sprintf("unknown clients command %q", args[0]))
}

// clientView is a credential set as `list --json` and `edit --json` print it.
type clientView struct {
	*auth.Client
	Status string `json:"status"`
}

func viewOf(c *auth.Client) clientView { return clientView{Client: c, Status: statusOf(c)} }

func statusOf(c *auth.Client) string {
	switch {
	case c.RevokedAt != nil:
		return "revoked"
	case !c.Active(time.Now()):
		return "expired"
	}
	return "active"
}

func expiryText(c *auth.Client) string {
	if c.ExpiresAt == nil {
		return "never"
	}
	return c.ExpiresAt.UTC().Format(time.RFC3339)
}

func parseScopeList(s string) []domain.Scope {
	return domain.ParseScopes(strings.ReplaceAll(s, ",", " "))
}

// parseExpiry reads YYYY-MM-DD (the client is valid through that day, UTC)
// or an exact RFC 3339 time.
func parseExpiry(s string) (time.Time, error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d.Add(24 * time.Hour), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, usageError(fmt.Sprintf("--expires %q: use YYYY-MM-DD, an RFC 3339 time or never", s))
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
