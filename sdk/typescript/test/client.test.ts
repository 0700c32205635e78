// The client against a real HTTP server on 127.0.0.1 that answers what each
// test scripts: retries (which, how many, how long the waits), the token
// refresh after a 401, one error class, response metadata. Sleeping is
// injected: waits are recorded, never slept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DashboardDocument, HaulGraph, HaulGraphError, type ClientOptions } from '../src/index.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const trace = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** A server: /oauth/token issues t1, t2, ...; other requests go to api. */
async function serve(t: { after: (fn: () => void) => void }, api: Handler, token?: Handler) {
  const seen: { method: string; url: string; auth?: string; body: string }[] = [];
  let tokens = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
      if (req.url === '/oauth/token') {
        if (token) return token(req, res, body);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ access_token: `t${++tokens}`, token_type: 'Bearer', expires_in: 3600 }));
      }
      api(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const waits: number[] = [];
  const client = (opts: Partial<ClientOptions> = {}) =>
    new HaulGraph({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, clientId: 'c', clientSecret: 's',
      random: () => 0.5, sleep: async (ms) => void waits.push(ms), ...opts,
    });
  return { client, seen, waits, api: () => seen.filter((s) => s.url !== '/oauth/token') };
}

const problem = (res: ServerResponse, status: number, headers: Record<string, string> = {}, extra: object = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/problem+json', traceparent: trace, ...headers });
  res.end(JSON.stringify({ type: 'about:blank', title: `HTTP ${status}`, status, detail: 'refused', instance: '/x', traceId: '0af7651916cd43dd8448eb211c80319c', ...extra }));
};
const ok = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', traceparent: trace, 'RateLimit-Limit': '100', 'RateLimit-Remaining': '97', 'RateLimit-Reset': '12' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};
const search = { body: { Page: 0, PageSize: 1 } } as const;
const create = {
  body: { Name: 'w', Url: 'https://example.com/h', EventTypes: ['load.changed' as const], IncludePreviousAttributes: false, SubsidiaryId: '00000000-0000-0000-0000-000000000001' },
};

test('503 and 429 are retried for a POST, with full-jitter backoff or Retry-After', async (t) => {
  let n = 0;
  const { client, waits, api } = await serve(t, (_req, res) => {
    n++;
    if (n === 1) return problem(res, 503);
    if (n === 2) return problem(res, 429, { 'Retry-After': '2' });
    ok(res, { Items: [], Total: 0 });
  });
  const { data, meta } = await client().withMeta.post('/api/p/v1/users/search', search);
  assert.deepEqual(data, { Items: [], Total: 0 });
  assert.equal(api().length, 3);
  assert.deepEqual(waits, [0.5 * 500, 2000]);
  assert.deepEqual(meta, { status: 200, attempts: 3, requestId: '0af7651916cd43dd8448eb211c80319c', rateLimit: { limit: 100, remaining: 97, reset: 12 } });
});

test('the backoff doubles and is capped at 8 s; retries stop after maxRetries and the error says how many attempts', async (t) => {
  const { client, waits, api } = await serve(t, (_req, res) => problem(res, 503));
  const err = await client({ maxRetries: 6, random: () => 0.999 }).get('/api/p/v1/trailers').catch((e: unknown) => e);
  assert.ok(err instanceof HaulGraphError);
  assert.equal(err.status, 503);
  assert.equal(err.meta.attempts, 7);
  assert.equal(api().length, 7);
  assert.deepEqual(waits.map((w) => Math.round(w / 0.999)), [500, 1000, 2000, 4000, 8000, 8000]);
});

test('maxRetries 0 disables retries', async (t) => {
  const { client, api } = await serve(t, (_req, res) => problem(res, 429, { 'Retry-After': '1' }));
  const err = await client({ maxRetries: 0 }).get('/api/p/v1/trailers').catch((e: unknown) => e);
  assert.ok(err instanceof HaulGraphError && err.status === 429 && err.retryAfter === 1);
  assert.equal(api().length, 1);
});

test('a Retry-After beyond maxWait is not waited for: the error carries it', async (t) => {
  const { client, waits, api } = await serve(t, (_req, res) => problem(res, 429, { 'Retry-After': '120' }));
  const err = await client().get('/api/p/v1/trailers').catch((e: unknown) => e);
  assert.ok(err instanceof HaulGraphError);
  assert.equal(err.retryAfter, 120);
  assert.equal(api().length, 1);
  assert.deepEqual(waits, []);
});

test('a Retry-After date is read against the injected clock', async (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  let n = 0;
  const { client, waits } = await serve(t, (_req, res) => (n++ === 0 ? problem(res, 503, { 'Retry-After': 'Thu, 01 Jan 2026 00:00:05 GMT' }) : ok(res, [])));
  await client({ now: () => now }).get('/api/p/v1/trailers');
  assert.deepEqual(waits, [5000]);
});

test('500 is retried for a GET, a search and a GraphQL query, never for a create', async (t) => {
  const { client, api } = await serve(t, (_req, res) => problem(res, 500));
  const hg = client();
  const get = await hg.get('/api/p/v1/trailers').catch((e: unknown) => e);
  assert.ok(get instanceof HaulGraphError && get.status === 500 && get.meta.attempts === 3);
  const search_ = await hg.post('/api/p/v1/users/search', search).catch((e: unknown) => e);
  assert.ok(search_ instanceof HaulGraphError && search_.status === 500 && search_.meta.attempts === 3);
  const query = await hg.graphql(DashboardDocument, { first: 1 }).catch((e: unknown) => e);
  assert.ok(query instanceof HaulGraphError && query.status === 500 && query.meta.attempts === 3);
  const created = await hg.post('/api/p/v1/webhooks', create).catch((e: unknown) => e);
  assert.ok(created instanceof HaulGraphError && created.status === 500 && created.meta.attempts === 1);
  assert.equal(api().length, 10);
});

test('other 4xx are not retried and carry the problem document', async (t) => {
  const { client, api } = await serve(t, (_req, res) => problem(res, 400, {}, { title: 'One or more validation errors occurred.', errors: { PageSize: ['must be at most 100'] } }));
  const err = await client().post('/api/p/v1/users/search', search).catch((e: unknown) => e);
  assert.ok(err instanceof HaulGraphError);
  assert.deepEqual(
    { status: err.status, type: err.type, title: err.title, detail: err.detail, instance: err.instance, fields: err.fields, requestId: err.requestId, attempts: err.meta.attempts },
    { status: 400, type: 'about:blank', title: 'One or more validation errors occurred.', detail: 'refused', instance: '/x', fields: { PageSize: ['must be at most 100'] }, requestId: '0af7651916cd43dd8448eb211c80319c', attempts: 1 },
  );
  assert.equal(api().length, 1);
});

test('a 401 fetches a new token once and repeats the request once', async (t) => {
  const { client, seen } = await serve(t, (req, res) => (req.headers.authorization === 'Bearer t1' ? problem(res, 401) : ok(res, [])));
  const { meta } = await client().withMeta.get('/api/p/v1/trailers');
  assert.deepEqual(seen.map((s) => `${s.url} ${s.auth ?? ''}`.trim()), ['/oauth/token', '/api/p/v1/trailers Bearer t1', '/oauth/token', '/api/p/v1/trailers Bearer t2']);
  assert.equal(meta.attempts, 2);
});

test('a second 401 is the error: no loop', async (t) => {
  const { client, seen } = await serve(t, (_req, res) => problem(res, 401, { 'WWW-Authenticate': 'Bearer error="invalid_token"' }));
  const err = await client().get('/api/p/v1/trailers').catch((e: unknown) => e);
  assert.ok(err instanceof HaulGraphError && err.status === 401);
  assert.equal(seen.length, 4);
});

test('the token request is retried on 503 and its OAuth error is a HaulGraphError', async (t) => {
  let n = 0;
  const { client, seen } = await serve(t, () => {}, (_req, res) => {
    n++;
    res.writeHead(n === 1 ? 503 : 403, { 'Content-Type': 'application/json', 'Retry-After': '1' });
    res.end(JSON.stringify(n === 1 ? { error: 'temporarily_unavailable' } : { error: 'access_denied', error_description: 'scopes not granted to this client: load:update' }));
  });
  const err = await client({ scope: 'load:update' }).get('/api/p/v1/trailers').catch((e: unknown) => e);
  assert.ok(err instanceof HaulGraphError);
  assert.deepEqual({ status: err.status, code: err.code, detail: err.detail }, { status: 403, code: 'access_denied', detail: 'scopes not granted to this client: load:update' });
  assert.equal(seen.length, 2);
  assert.match(seen[0]!.body, /scope=load%3Aupdate/);
});

test('a refused connection is retried for any method; the last failure is a HaulGraphError with status 0', async (t) => {
  const { client, seen } = await serve(t, () => {});
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  // The token comes from the server; the API calls go to the closed port.
  const waits: number[] = [];
  const hg = client({
    sleep: async (ms) => void waits.push(ms),
    fetch: (url, init) => globalThis.fetch(String(url).endsWith('/oauth/token') ? url : String(url).replace(/:\d+\//, `:${port}/`), init),
  });
  const err = await hg.post('/api/p/v1/users/search', search).catch((e: unknown) => e);
  assert.ok(err instanceof HaulGraphError, String(err));
  assert.deepEqual({ status: err.status, code: err.code, attempts: err.meta.attempts }, { status: 0, code: 'CONNECTION', attempts: 3 });
  assert.deepEqual(waits, [250, 500]);
  assert.equal(seen.length, 1); // the token request only
});

test('a connection lost after sending is retried for a GET, not for a create', async (t) => {
  const { client, api } = await serve(t, (req) => req.socket.destroy());
  const hg = client();
  const post = await hg.post('/api/p/v1/webhooks', create).catch((e: unknown) => e);
  assert.ok(post instanceof HaulGraphError && post.status === 0 && post.meta.attempts === 1);
  const get = await hg.get('/api/p/v1/trailers').catch((e: unknown) => e);
  assert.ok(get instanceof HaulGraphError && get.status === 0 && get.meta.attempts === 3);
  assert.equal(api().length, 4);
});

test('the caller\'s cancellation is not retried and rejects with its reason', async (t) => {
  const { client, api } = await serve(t, (_req, res) => problem(res, 503));
  const ac = new AbortController();
  const hg = client({ sleep: async () => ac.abort(new Error('caller gave up')) });
  const err = await hg.get('/api/p/v1/trailers', { signal: ac.signal }).catch((e: unknown) => e);
  assert.ok(err instanceof Error && err.message === 'caller gave up');
  assert.equal(api().length, 1);
});

test('GraphQL errors in a 200 are a HaulGraphError with extensions.code; decimals by the operation\'s types', async (t) => {
  let n = 0;
  const { client } = await serve(t, (_req, res) => {
    if (n++ === 0) return ok(res, { errors: [{ message: 'first must be at most 100', path: ['loads'], extensions: { code: 'BAD_USER_INPUT', fields: { first: ['at most 100'] } } }], data: null });
    ok(res, '{"data": {"loads": {"totalCount": 1, "pageInfo": {"hasNextPage": false, "endCursor": null}, "items": [{"loadNumber": "L-1", "weight": 42000.50, "rate": {"amount": 123456789012.34, "currency": 840}, "stops": [{"sequence": 1}], "trips": []}]}}}');
  });
  const hg = client();
  const err = await hg.graphql(DashboardDocument, { first: 500 }).catch((e: unknown) => e);
  assert.ok(err instanceof HaulGraphError);
  assert.deepEqual({ status: err.status, code: err.code, fields: err.fields, requestId: err.requestId }, { status: 200, code: 'BAD_USER_INPUT', fields: { first: ['at most 100'] }, requestId: '0af7651916cd43dd8448eb211c80319c' });
  const board = await hg.graphql(DashboardDocument, { first: 1 });
  const load = board.loads.items[0]!;
  assert.deepEqual([load.weight, load.rate.amount, load.rate.currency, board.loads.totalCount, load.stops[0]!.sequence], ['42000.50', '123456789012.34', 840, 1, 1]);
});

test('an attempt that times out is retried for a GET, not for a create', async (t) => {
  const { client, api } = await serve(t, () => {}); // never answers
  // The token request is spared the short timeout: a slow machine must not fail it.
  const hg = client({ timeout: 250, fetch: (url, init) => globalThis.fetch(url, String(url).endsWith('/oauth/token') ? { ...init, signal: null } : init) });
  const post = await hg.post('/api/p/v1/webhooks', create).catch((e: unknown) => e);
  assert.ok(post instanceof HaulGraphError && post.status === 0 && post.code === 'TIMEOUT' && post.meta.attempts === 1, String(post));
  const get = await hg.get('/api/p/v1/trailers').catch((e: unknown) => e);
  assert.ok(get instanceof HaulGraphError && get.code === 'TIMEOUT' && get.meta.attempts === 3, String(get));
  assert.equal(api().length, 4);
});
