// An integrator's first program: signs in with client credentials, reads
// every settled statement of a date range page by page, reads an invoice
// and runs the dashboard's GraphQL query, printing one JSON line per step.
// Configuration from the environment:
//   HAULGRAPH_URL, HAULGRAPH_CLIENT_ID, HAULGRAPH_CLIENT_SECRET,
//   HAULGRAPH_AUDIENCE, STATEMENTS_FROM, STATEMENTS_TO (yyyy-mm-dd),
//   INVOICE_NUMBER, PAGE_SIZE (optional, default 2).
import { DashboardDocument, HaulGraph, HaulGraphError, type components } from '../src/index.js';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

const print = (step: string, value: unknown) => console.log(JSON.stringify({ step, ...(value as object) }));

const hg = new HaulGraph({
  baseUrl: env('HAULGRAPH_URL'),
  clientId: env('HAULGRAPH_CLIENT_ID'),
  clientSecret: env('HAULGRAPH_CLIENT_SECRET'),
  audience: env('HAULGRAPH_AUDIENCE'),
});

const token = await hg.token();
print('token', { ok: token.length > 0, cached: (await hg.token()) === token });

// Statements, page by page (the first page is 0), until a page comes back short.
const pageSize = Number(process.env.PAGE_SIZE ?? '2');
const numbers: number[] = [];
let total = 0;
let pages = 0;
let net: string | undefined;
for (let page = 0; ; page++) {
  const { data, error, response } = await hg.rest.POST('/api/p/v1/driver-settlement-statements/search', {
    body: {
      Page: page,
      PageSize: pageSize,
      StatementDateRange: { Start: `${env('STATEMENTS_FROM')}T00:00:00Z`, End: `${env('STATEMENTS_TO')}T00:00:00Z` },
    },
  });
  if (error || !data) throw new HaulGraphError(`statements page ${page}`, response.status, error);
  pages++;
  total = data.Total;
  for (const s of data.Items) {
    numbers.push(s.Number);
    const amount: string | undefined = s.Totals.DriverPayment?.Amount;
    net ??= amount;
  }
  if (data.Items.length < pageSize) break;
}
print('statements', { pages, total, numbers, firstDriverPayment: net, amountType: typeof net });

// One invoice by number; its amounts are exact strings.
const inv = await hg.rest.GET('/api/p/v1/invoices', { params: { query: { invoiceNumber: env('INVOICE_NUMBER') } } });
if (inv.error || !inv.data) throw new HaulGraphError('invoice', inv.response.status, inv.error);
const invoice: components['schemas']['Invoice'] = inv.data;
print('invoice', { number: invoice.Number, total: invoice.Total.Amount, paid: invoice.AmountPaid.Amount, amountType: typeof invoice.Total.Amount });

// The dashboard's query, typed by operations/dashboard.graphql, a page of
// 50 as the board asks (100 loads with their stops cost more than one
// query may).
const board = await hg.graphql(DashboardDocument, { first: 50 });
const rates = Object.fromEntries(board.loads.items.map((l) => [l.loadNumber, l.rate.amount]));
const weights = Object.fromEntries(board.loads.items.map((l) => [l.loadNumber, l.weight]));
print('dashboard', { totalCount: board.loads.totalCount, shown: board.loads.items.length, rates, weights });

// A refused request is a typed error carrying the problem document.
const bad = await hg.rest.GET('/api/p/v1/invoices', { params: { query: {} } });
print('refused', { status: bad.response.status, problem: bad.error });
