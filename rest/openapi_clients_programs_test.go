package rest_test

// goClientProgram runs beside the oapi-codegen output (package main): it
// calls every read route through the generated ClientWithResponses, which
// decodes each 200 into the generated types, and prints a report.
const goClientProgram = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"
)

type config struct {
	Base, Token, InvoiceNumber, InvoiceID, From, To, LoadNumber, WebhookID string
	Statement                                                                int32
}

type answer interface{ StatusCode() int }

var routes []string

// check stops the program unless the call succeeded with a decoded body.
func check(op string, res answer, err error, decoded bool) {
	if err != nil {
		fail("%s: %v", op, err)
	}
	if res.StatusCode() != http.StatusOK || !decoded {
		fail("%s: status %d, decoded %v", op, res.StatusCode(), decoded)
	}
	routes = append(routes, op)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func main() {
	var cfg config
	if err := json.Unmarshal([]byte(os.Args[1]), &cfg); err != nil {
		fail("config: %v", err)
	}
	auth := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+cfg.Token)
		return nil
	}
	// The base is the host alone: the paths carry the version.
	c, err := NewClientWithResponses(cfg.Base, WithRequestEditorFn(auth))
	if err != nil {
		fail("client: %v", err)
	}
	ctx := context.Background()
	report := map[string]any{}

	byName, err := c.GetInvoiceWithResponse(ctx, &GetInvoiceParams{InvoiceNumber: &cfg.InvoiceNumber})
	check("getInvoice", byName, err, byName != nil && byName.JSON200 != nil)
	invoiceID := uuid.MustParse(cfg.InvoiceID)
	byID, err := c.GetInvoiceWithResponse(ctx, &GetInvoiceParams{Id: &invoiceID})
	check("getInvoice by id", byID, err, byID != nil && byID.JSON200 != nil)
	if byName.JSON200.Id != byID.JSON200.Id {
		fail("the invoice by number and by id differ")
	}
	report["InvoicesByIDAndName"] = 2

	search := StatementSearch{Page: 0, PageSize: 100}
	search.StatementDateRange.Start, _ = time.Parse(time.DateOnly, cfg.From)
	search.StatementDateRange.End, _ = time.Parse(time.DateOnly, cfg.To)
	statements, err := c.SearchDriverSettlementStatementsWithResponse(ctx, nil, search)
	check("searchDriverSettlementStatements", statements, err, statements != nil && statements.JSON200 != nil && len(statements.JSON200.Items) > 0)
	statement, err := c.GetDriverSettlementStatementWithResponse(ctx, cfg.Statement, nil)
	check("getDriverSettlementStatement", statement, err, statement != nil && statement.JSON200 != nil)

	from, _ := time.Parse(time.DateOnly, cfg.From)
	to, _ := time.Parse(time.DateOnly, cfg.To)
	ndjson := ExportFormat("ndjson")
	export, err := c.ExportDriverSettlementStatementsWithResponse(ctx, &ExportDriverSettlementStatementsParams{
		Start: openapi_types.Date{Time: from}, End: openapi_types.Date{Time: to}, Format: &ndjson})
	lines := 0
	if export != nil {
		for _, line := range strings.Split(strings.TrimSpace(string(export.Body)), "\n") {
			var s Statement
			if json.Unmarshal([]byte(line), &s) == nil && s.Number > 0 {
				lines++
			}
		}
	}
	check("exportDriverSettlementStatements", export, err, lines > 0)
	report["StatementsExported"] = lines

	limit := int32(10)
	trailers, err := c.ListTrailersWithResponse(ctx, &ListTrailersParams{Limit: &limit})
	check("listTrailers", trailers, err, trailers != nil && trailers.JSON200 != nil && len(*trailers.JSON200) > 0)
	locations, err := c.SearchLocationsWithResponse(ctx, nil, LocationSearch{PageSize: 100})
	check("searchLocations", locations, err, locations != nil && locations.JSON200 != nil && len(locations.JSON200.Items) > 0)
	users, err := c.SearchUsersWithResponse(ctx, nil, UserSearch{Page: 0, PageSize: 100})
	check("searchUsers", users, err, users != nil && users.JSON200 != nil && len(users.JSON200.Items) > 0)

	load, err := c.GetLoadWithResponse(ctx, cfg.LoadNumber, nil)
	check("getLoad", load, err, load != nil && load.JSON200 != nil)
	rate, err := json.Marshal(load.JSON200.Rate)
	if err != nil {
		fail("encode: %v", err)
	}
	report["Rate"] = load.JSON200.Rate.Amount
	report["RateJSON"] = string(rate)
	report["Weight"] = load.JSON200.Weight

	types, err := c.ListWebhookEventTypesWithResponse(ctx)
	check("listWebhookEventTypes", types, err, types != nil && types.JSON200 != nil && len(*types.JSON200) > 0)
	hooks, err := c.ListWebhooksWithResponse(ctx)
	check("listWebhooks", hooks, err, hooks != nil && hooks.JSON200 != nil && len(*hooks.JSON200) > 0)
	webhookID := uuid.MustParse(cfg.WebhookID)
	hook, err := c.GetWebhookWithResponse(ctx, webhookID)
	check("getWebhook", hook, err, hook != nil && hook.JSON200 != nil)
	deliveries, err := c.ListWebhookDeliveriesWithResponse(ctx, webhookID, nil)
	check("listWebhookDeliveries", deliveries, err, deliveries != nil && deliveries.JSON200 != nil)
	report["DeliveriesListed"] = len(*deliveries.JSON200)

	previous := true
	events, err := c.ListEventsWithResponse(ctx, &ListEventsParams{LoadNumber: &cfg.LoadNumber, IncludePreviousAttributes: &previous})
	check("listEvents", events, err, events != nil && events.JSON200 != nil)
	with := 0
	for _, e := range *events.JSON200 {
		if e.Data.Diff != nil && e.Data.Diff.PreviousAttributes != nil && len(*e.Data.Diff.PreviousAttributes) > 0 {
			with++
			report["PreviousAttributes"] = *e.Data.Diff.PreviousAttributes
		}
	}
	report["EventsWithPrevious"] = with
	report["Routes"] = routes
	if err := json.NewEncoder(os.Stdout).Encode(report); err != nil {
		fail("report: %v", err)
	}
}
`

// tsConfig type-checks main.ts strictly against the generated schema.d.ts.
const tsConfig = `{
  "compilerOptions": {
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "skipLibCheck": false,
    "types": [],
    "lib": ["ES2022", "DOM"]
  },
  "files": ["main.ts"]
}
`

// tsClientProgram calls the read routes through openapi-fetch typed by
// openapi-typescript's paths; tsc --strict fails on any use the generated
// types do not allow (previousAttributes typed Record<string, never> would
// refuse the object with a Weight below).
const tsClientProgram = `import createClient from "openapi-fetch";
import type { paths, components } from "./schema.d.ts";

type Config = {
  Base: string; Token: string; InvoiceNumber: string; InvoiceID: string; Statement: number;
  From: string; To: string; LoadNumber: string; WebhookID: string;
};

// Node's globals, declared here so that the check needs no @types package.
declare const process: {
  argv: string[];
  stdout: { write(s: string): boolean };
  stderr: { write(s: string): boolean };
  exit(code: number): never;
};

const cfg: Config = JSON.parse(process.argv[2] ?? "{}");
const client = createClient<paths>({ baseUrl: cfg.Base, headers: { Authorization: "Bearer " + cfg.Token } });
const routes: string[] = [];

function ok<T>(op: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined || r.response.status !== 200) {
    throw new Error(op + ": " + r.response.status + " " + JSON.stringify(r.error));
  }
  routes.push(op);
  return r.data;
}

async function main(): Promise<void> {
  const byName = ok("getInvoice", await client.GET("/api/p/v1/invoices", { params: { query: { invoiceNumber: cfg.InvoiceNumber } } }));
  const byID = ok("getInvoice by id", await client.GET("/api/p/v1/invoices", { params: { query: { id: cfg.InvoiceID } } }));
  if (byName.Id !== byID.Id) throw new Error("the invoice by number and by id differ");
  const total: number = byName.Total.Amount;

  const page = ok("searchDriverSettlementStatements", await client.POST("/api/p/v1/driver-settlement-statements/search", {
    body: { Page: 0, PageSize: 100, StatementDateRange: { Start: cfg.From + "T00:00:00Z", End: cfg.To + "T00:00:00Z" } },
  }));
  if (page.Items.length === 0) throw new Error("no statements");
  const statement = ok("getDriverSettlementStatement", await client.GET("/api/p/v1/driver-settlement-statements/{number}", {
    params: { path: { number: cfg.Statement } },
  }));
  const miles: number | undefined = statement.Totals.LoadedMiles;

  const exported = await client.GET("/api/p/v1/driver-settlement-statements/export", {
    params: { query: { start: cfg.From, end: cfg.To, format: "ndjson" } }, parseAs: "text",
  });
  const lines = ok("exportDriverSettlementStatements", exported).trim().split("\n").filter((l) => l !== "");

  const trailers = ok("listTrailers", await client.GET("/api/p/v1/trailers", { params: { query: { limit: 10 } } }));
  const locations = ok("searchLocations", await client.POST("/api/p/v1/locations/search", { body: { PageSize: 100 } }));
  const users = ok("searchUsers", await client.POST("/api/p/v1/users/search", { body: { Page: 0, PageSize: 100 } }));
  if (trailers.length === 0 || locations.Items.length === 0 || users.Items.length === 0) throw new Error("empty lists");

  const load = ok("getLoad", await client.GET("/api/p/v1/loads/{loadNumber}", { params: { path: { loadNumber: cfg.LoadNumber } } }));
  const rate: components["schemas"]["Money"] = load.Rate;

  const types = ok("listWebhookEventTypes", await client.GET("/api/p/v1/webhooks/event-types"));
  const hooks = ok("listWebhooks", await client.GET("/api/p/v1/webhooks"));
  const hook = ok("getWebhook", await client.GET("/api/p/v1/webhooks/{id}", { params: { path: { id: cfg.WebhookID } } }));
  const deliveries = ok("listWebhookDeliveries", await client.GET("/api/p/v1/webhooks/{id}/deliveries", { params: { path: { id: cfg.WebhookID } } }));
  if (types.length === 0 || hooks.length === 0 || hook.Id !== cfg.WebhookID) throw new Error("webhooks");

  const events = ok("listEvents", await client.GET("/api/p/v1/events", {
    params: { query: { loadNumber: cfg.LoadNumber, includePreviousAttributes: true } },
  }));
  let previous: Record<string, unknown> | undefined;
  let withPrevious = 0;
  for (const e of events) {
    const p = e.data.diff?.previousAttributes;
    if (p !== undefined && Object.keys(p).length > 0) {
      withPrevious++;
      previous = p;
      // Fails to compile unless previousAttributes holds values.
      const shape: NonNullable<typeof p> = { Weight: 1 };
      if (p["Weight"] === undefined || shape["Weight"] !== 1) throw new Error("previousAttributes without Weight");
    }
  }

  process.stdout.write(JSON.stringify({
    Rate: rate.Amount, RateJSON: JSON.stringify(rate), Weight: load.Weight, PreviousAttributes: previous,
    Routes: routes, EventsWithPrevious: withPrevious, DeliveriesListed: deliveries.length,
    StatementsExported: lines.length, InvoicesByIDAndName: 2, Total: total, Miles: miles ?? null,
  }) + "\n");
}

main().catch((err: unknown) => {
  process.stderr.write(String(err) + "\n");
  process.exit(1);
});
`
