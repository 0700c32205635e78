// An integrator's first program, written against the installed package:
// signs in with client credentials, reads every settled statement of a
// date range page by page, reads an invoice and runs the dashboard's
// GraphQL query, printing one JSON line per step. Configuration from the
// environment:
//   HAULGRAPH_URL, HAULGRAPH_CLIENT_ID, HAULGRAPH_CLIENT_SECRET,
//   HAULGRAPH_AUDIENCE, STATEMENTS_FROM, STATEMENTS_TO (yyyy-mm-dd),
//   INVOICE_NUMBER, PAGE_SIZE (optional, default 2).
import { Currency, DashboardDocument, HaulGraph, HaulGraphError, type Money, type components } from '@haulgraph/client';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

const print = (step: string, value: object) => console.log(JSON.stringify({ step, ...value }));

const hg = new HaulGraph({
  baseUrl: env('HAULGRAPH_URL'),
  clientId: env('HAULGRAPH_CLIENT_ID'),
  clientSecret: env('HAULGRAPH_CLIENT_SECRET'),
  audience: env('HAULGRAPH_AUDIENCE'),
});

const token = await hg.token();
print('token', { ok: token.length > 0, cached: (await hg.token()) === token });

// Statements, page by page (the first page is 0), until a page comes back
// short; withMeta answers each page with its response metadata.
const pageSize = Number(process.env.PAGE_SIZE ?? '2');
const numbers: number[] = [];
let total = 0;
let pages = 0;
let net: string | undefined;
let meta: object = {};
for (let page = 0; ; page++) {
  const res = await hg.withMeta.post('/api/p/v1/driver-settlement-statements/search', {
    body: {
      Page: page,
      PageSize: pageSize,
      StatementDateRange: { Start: `${env('STATEMENTS_FROM')}T00:00:00Z`, End: `${env('STATEMENTS_TO')}T00:00:00Z` },
    },
  });
  meta = res.meta;
  pages++;
  total = res.data.Total;
  for (const s of res.data.Items) {
    numbers.push(s.Number);
    const payment: Money | undefined = s.Totals.DriverPayment;
    net ??= payment?.Amount;
  }
  if (res.data.Items.length < pageSize) break;
}
print('statements', { pages, total, numbers, firstDriverPayment: net, amountType: typeof net, meta });

// One invoice by number; its amounts are exact strings.
const invoice: components['schemas']['Invoice'] = await hg.get('/api/p/v1/invoices', { query: { invoiceNumber: env('INVOICE_NUMBER') } });
print('invoice', {
  number: invoice.Number, total: invoice.Total.Amount, paid: invoice.AmountPaid.Amount,
  amountType: typeof invoice.Total.Amount, usd: invoice.Total.Currency === Currency.USD,
});

// The dashboard's query, typed by operations/dashboard.graphql, a page of
// 50 as the board asks (100 loads with their stops cost more than one
// query may).
const board = await hg.graphql(DashboardDocument, { first: 50 });
const rates = Object.fromEntries(board.loads.items.map((l) => [l.loadNumber, l.rate.amount]));
const weights = Object.fromEntries(board.loads.items.map((l) => [l.loadNumber, l.weight]));
print('dashboard', { totalCount: board.loads.totalCount, shown: board.loads.items.length, rates, weights });

// A revoked token: the next call answers 401, and the client fetches a new
// token and repeats the call once (two attempts).
await hg.post('/oauth/revoke', { body: { token, client_id: env('HAULGRAPH_CLIENT_ID'), client_secret: env('HAULGRAPH_CLIENT_SECRET') } });
const again = await hg.withMeta.get('/api/p/v1/invoices', { query: { invoiceNumber: env('INVOICE_NUMBER') } });
print('refresh', { number: again.data.Number, attempts: again.meta.attempts, newToken: (await hg.token()) !== token });

// A refused request throws a HaulGraphError carrying the problem document.
try {
  await hg.get('/api/p/v1/invoices', { query: {} });
  print('refused', { status: 200 });
} catch (err) {
  if (!(err instanceof HaulGraphError)) throw err;
  print('refused', { status: err.status, title: err.title, detail: err.detail, requestId: err.requestId, attempts: err.meta.attempts });
}
