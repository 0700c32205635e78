// The client: client-credentials tokens (fetched once, renewed before they
// expire, fetched again once on a 401), REST calls typed by the OpenAPI
// document, GraphQL operations typed by the schema. Every call returns its
// data or throws a HaulGraphError; amounts arrive as exact strings.
import type { paths } from './generated/openapi.js';
import type { TypedDocumentString } from './generated/graphql.js';
import { graphqlShapes, restShapes } from './generated/decimals.js';
import { quoteNumbers, type Shape } from './json.js';
import { errorOf, graphqlError, HaulGraphError, type GraphQLErrorItem, type ResponseMeta } from './errors.js';
import { backoff, certainlyNotSent, defaultSleep, parseRetryAfter, retriedAlways, retriedIfIdempotent, type RetryOptions } from './retry.js';
import type { CallOptions, InitArgs, Method, PathsWith, ResponseData } from './rest-types.js';

export interface ClientOptions extends RetryOptions {
  /** The server's origin, e.g. http://127.0.0.1:8080 (no path). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The audience to ask tokens for, when the server names one. */
  audience?: string;
  /**
   * Scopes (space-separated) the client must hold. Left out, the token
   * request names no scope and the token carries every scope granted to the
   * client. Given, the server checks that the client holds each one (else
   * the token request fails: 403 access_denied) and the token still carries
   * every granted scope: `scope` never narrows a token.
   */
  scope?: string;
  /** Per attempt, in ms (default 30 000); a call's signal bounds the whole call. */
  timeout?: number;
  fetch?: typeof globalThis.fetch;
}

/** A result with its response metadata. */
export interface WithMeta<T> {
  data: T;
  meta: ResponseMeta;
}

type Vars<V> = {} extends V ? [variables?: V, options?: CallOptions] : [variables: V, options?: CallOptions];

/** The REST methods: each answers the success body, or throws a HaulGraphError. */
export interface Rest<Wrap extends 'data' | 'meta'> {
  get<P extends PathsWith<'get'>>(path: P, ...init: InitArgs<P, 'get'>): Promise<Result<Wrap, ResponseData<P, 'get'>>>;
  post<P extends PathsWith<'post'>>(path: P, ...init: InitArgs<P, 'post'>): Promise<Result<Wrap, ResponseData<P, 'post'>>>;
  put<P extends PathsWith<'put'>>(path: P, ...init: InitArgs<P, 'put'>): Promise<Result<Wrap, ResponseData<P, 'put'>>>;
  patch<P extends PathsWith<'patch'>>(path: P, ...init: InitArgs<P, 'patch'>): Promise<Result<Wrap, ResponseData<P, 'patch'>>>;
  delete<P extends PathsWith<'delete'>>(path: P, ...init: InitArgs<P, 'delete'>): Promise<Result<Wrap, ResponseData<P, 'delete'>>>;
  graphql<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, ...args: Vars<TVariables>): Promise<Result<Wrap, TResult>>;
}
type Result<Wrap, T> = Wrap extends 'meta' ? WithMeta<T> : T;

interface Request {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | FormData | URLSearchParams;
  idempotent: boolean;
  auth: boolean;
  signal?: AbortSignal;
}

interface Answer {
  status: number;
  headers: Headers;
  bytes: ArrayBuffer;
  meta: ResponseMeta;
}

const renewBefore = 30_000; // ms before expiry a token is renewed
const isJSON = (type: string | null) => /^application\/([a-z.+-]*\+)?json\b/.test(type ?? '');
const idempotentMethods = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
// Beyond the idempotent methods, the requests a repeat cannot change the
// outcome of (the Go SDK marks the same ones): the searches only read; an
// update, a disable and a revocation leave the same state when sent twice.
const repeatableRoutes = new Set([
  'POST /api/p/v1/driver-settlement-statements/search',
  'POST /api/p/v1/locations/search',
  'POST /api/p/v1/users/search',
  'PATCH /api/p/v1/webhooks/{id}',
  'POST /api/p/v1/webhooks/{id}/disable',
  'POST /oauth/revoke',
]);
/** A GraphQL document whose operation is a query (or the shorthand `{ … }`): it only reads. */
const isQuery = (document: string) => /^\s*(?:#[^\n]*\n\s*)*(?:query\b|\{)/.test(document);

export class HaulGraph implements Rest<'data'> {
  /** The same calls, answering `{ data, meta }`: status, request id, rate limits, attempts. */
  readonly withMeta: Rest<'meta'>;
  private readonly fetchFn: typeof globalThis.fetch;
  private readonly maxRetries: number;
  private readonly maxWait: number;
  private readonly timeout: number;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;
  private current?: { token: string; expires: number };
  private pending?: Promise<string>;

  constructor(private readonly opts: ClientOptions) {
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.maxRetries = opts.maxRetries ?? 2;
    this.maxWait = opts.maxWait ?? 60_000;
    this.timeout = opts.timeout ?? 30_000;
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? defaultSleep;
    this.now = opts.now ?? Date.now;
    const rest = (method: Method) => (path: string, init?: RestInit) => this.rest(method, path, init ?? {});
    this.withMeta = {
      get: rest('get'), post: rest('post'), put: rest('put'), patch: rest('patch'), delete: rest('delete'),
      graphql: (document: TypedDocumentString<unknown, unknown>, variables?: unknown, options?: CallOptions) => this.gql(document, variables, options ?? {}),
    } as Rest<'meta'>;
  }

  get: Rest<'data'>['get'] = ((path: string, init?: RestInit) => this.rest('get', path, init ?? {}).then((r) => r.data)) as Rest<'data'>['get'];
  post: Rest<'data'>['post'] = ((path: string, init?: RestInit) => this.rest('post', path, init ?? {}).then((r) => r.data)) as Rest<'data'>['post'];
  put: Rest<'data'>['put'] = ((path: string, init?: RestInit) => this.rest('put', path, init ?? {}).then((r) => r.data)) as Rest<'data'>['put'];
  patch: Rest<'data'>['patch'] = ((path: string, init?: RestInit) => this.rest('patch', path, init ?? {}).then((r) => r.data)) as Rest<'data'>['patch'];
  delete: Rest<'data'>['delete'] = ((path: string, init?: RestInit) => this.rest('delete', path, init ?? {}).then((r) => r.data)) as Rest<'data'>['delete'];
  /** Runs one of the generated operations (src/generated/graphql.ts); errors[] in the answer throw. */
  graphql: Rest<'data'>['graphql'] = ((document: TypedDocumentString<unknown, unknown>, variables?: unknown, options?: CallOptions) =>
    this.gql(document, variables, options ?? {}).then((r) => r.data)) as Rest<'data'>['graphql'];

  /** A valid access token: the cached one, or a new one from /oauth/token. */
  async token(): Promise<string> {
    if (this.current && this.now() < this.current.expires - renewBefore) return this.current.token;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.opts.clientId, client_secret: this.opts.clientSecret });
    if (this.opts.audience) form.set('audience', this.opts.audience);
    if (this.opts.scope) form.set('scope', this.opts.scope);
    // The token request is idempotent: a repeat issues another token.
    const answer = await this.send({ method: 'POST', url: new URL('/oauth/token', this.opts.baseUrl), headers: {}, body: form, idempotent: true, auth: false });
    const body = parse(answer, undefined);
    if (answer.status !== 200) throw errorOf('token', answer.meta, body, parseRetryAfter(answer.headers.get('Retry-After'), this.now()));
    const { access_token, expires_in } = body as { access_token: string; expires_in: number };
    this.current = { token: access_token, expires: this.now() + expires_in * 1000 };
    return access_token;
  }

  private async rest(method: Method, path: string, init: RestInit): Promise<WithMeta<unknown>> {
    const url = new URL(path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(init.path?.[name] ?? fail(`path parameter ${name} is missing`)))), this.opts.baseUrl);
    for (const [k, v] of Object.entries(init.query ?? {})) {
      for (const item of [v].flat()) if (item !== undefined && item !== null) url.searchParams.append(k, String(item));
    }
    const headers: Record<string, string> = { Accept: 'application/json, application/problem+json;q=0.9, */*;q=0.8', ...init.headers };
    let body: string | FormData | undefined;
    if (init.body instanceof FormData) body = init.body;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['Content-Type'] = 'application/json';
    }
    const M = method.toUpperCase();
    const answer = await this.send({ method: M, url, headers, body, idempotent: idempotentMethods.has(M) || repeatableRoutes.has(`${M} ${path}`), auth: true, signal: init.signal });
    const what = `${M} ${path}`;
    if (answer.status < 200 || answer.status > 299) throw errorOf(what, answer.meta, parse(answer, undefined), parseRetryAfter(answer.headers.get('Retry-After'), this.now()));
    if (answer.status === 204) return { data: undefined, meta: answer.meta };
    return { data: parse(answer, restShapes[`${M} ${path}`]), meta: answer.meta };
  }

  private async gql(document: TypedDocumentString<unknown, unknown>, variables: unknown, options: CallOptions): Promise<WithMeta<unknown>> {
    const query = document.toString();
    const name = /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(query)?.[1] ?? '';
    const answer = await this.send({
      method: 'POST', url: new URL('/graphql', this.opts.baseUrl),
      headers: { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json, application/json', ...options.headers },
      body: JSON.stringify({ query, variables: variables ?? {} }), idempotent: isQuery(query), auth: true, signal: options.signal,
    });
    const retryAfter = parseRetryAfter(answer.headers.get('Retry-After'), this.now());
    const body = parse(answer, Object.hasOwn(graphqlShapes, name) ? graphqlShapes[name] : undefined) as { data?: unknown; errors?: GraphQLErrorItem[] };
    if (Array.isArray(body?.errors) && body.errors.length > 0) throw graphqlError(`graphql ${name}`, answer.meta, body.errors, body.data, retryAfter);
    if (answer.status !== 200 || typeof body !== 'object' || body === null) throw errorOf(`graphql ${name}`, answer.meta, body, retryAfter);
    return { data: body.data, meta: answer.meta };
  }

  /**
   * Sends req, repeating it by the retry rules (src/retry.ts) and once with
   * a new token after a 401; answers the last answer with its body read.
   */
  private async send(req: Request): Promise<Answer> {
    let attempts = 0;
    let retries = 0;
    let refreshed = false;
    for (;;) {
      attempts++;
      const headers = { ...req.headers };
      let token: string | undefined;
      if (req.auth) headers.Authorization = `Bearer ${(token = await this.token())}`;
      const signal = req.signal ? AbortSignal.any([req.signal, AbortSignal.timeout(this.timeout)]) : AbortSignal.timeout(this.timeout);
      let answer: Answer;
      try {
        const res = await this.fetchFn(req.url, { method: req.method, headers, body: req.body, signal, redirect: 'manual' });
        const bytes = await res.arrayBuffer();
        answer = { status: res.status, headers: res.headers, bytes, meta: metaOf(res.status, res.headers, attempts) };
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason; // the caller's cancellation is never retried
        const retriable = certainlyNotSent(err) || req.idempotent;
        if (retriable && retries < this.maxRetries) {
          await this.sleep(backoff(retries++, this.random), req.signal);
          continue;
        }
        const timedOut = err instanceof DOMException && err.name === 'TimeoutError';
        throw new HaulGraphError(`${req.method} ${req.url.pathname}: ${timedOut ? `no answer within ${this.timeout} ms` : 'no answer'} (${describe(err)})`, {
          meta: { status: 0, attempts }, code: timedOut ? 'TIMEOUT' : 'CONNECTION', cause: err,
        });
      }
      if (answer.status === 401 && req.auth && !refreshed) {
        // An expired or revoked token: a new one, and the request once more.
        refreshed = true;
        if (this.current?.token === token) this.current = undefined;
        continue;
      }
      const status = answer.status;
      if ((retriedAlways.has(status) || (req.idempotent && retriedIfIdempotent.has(status))) && retries < this.maxRetries) {
        const retryAfter = parseRetryAfter(answer.headers.get('Retry-After'), this.now());
        if (retryAfter !== undefined && retryAfter * 1000 > this.maxWait) return answer; // too long: the error carries retryAfter
        await this.sleep(retryAfter !== undefined ? retryAfter * 1000 : backoff(retries, this.random), req.signal);
        retries++;
        continue;
      }
      return answer;
    }
  }

  /** Forgets the cached token: the next call fetches a new one. */
  forgetToken(): void {
    this.current = undefined;
  }
}

interface RestInit extends CallOptions {
  path?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: unknown;
}

function fail(message: string): never {
  throw new TypeError(message);
}

function describe(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 4; e = e.cause) parts.push((e as { code?: string }).code ?? e.message);
  return parts.join(': ');
}

/** The body: JSON parsed (the shape's decimals kept as strings), text, or bytes. */
function parse(answer: Answer, shape: Shape | undefined): unknown {
  const type = answer.headers.get('Content-Type');
  if (isJSON(type)) {
    const text = new TextDecoder().decode(answer.bytes);
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(quoteNumbers(text, shape));
    } catch {
      return text;
    }
  }
  if (type === null || /^text\/|^application\/x-ndjson\b/.test(type)) return new TextDecoder().decode(answer.bytes);
  return answer.bytes;
}

function metaOf(status: number, headers: Headers, attempts: number): ResponseMeta {
  // The server names a request by the trace id of its traceparent answer header.
  const requestId = /^[0-9a-f]{2}-([0-9a-f]{32})-/.exec(headers.get('traceparent') ?? '')?.[1];
  const limit = headers.get('RateLimit-Limit');
  const remaining = headers.get('RateLimit-Remaining');
  const reset = headers.get('RateLimit-Reset');
  const rateLimit = limit !== null && remaining !== null && reset !== null ? { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) } : undefined;
  return { status, attempts, ...(requestId ? { requestId } : {}), ...(rateLimit ? { rateLimit } : {}) };
}
