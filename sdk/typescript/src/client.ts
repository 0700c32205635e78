// A thin client: client-credentials tokens (fetched once, renewed before
// they expire), REST calls typed by the OpenAPI document (openapi-fetch),
// GraphQL operations typed by the schema; amounts arrive as exact strings.
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import type { TypedDocumentString } from './generated/graphql.js';
import { graphqlDecimalPaths, restDecimalFields } from './generated/decimals.js';
import { quoteNumbers } from './json.js';

export interface ClientOptions {
  /** The server's origin, e.g. http://127.0.0.1:8080 (no path). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The audience to ask tokens for, when the server names one. */
  audience?: string;
  /**
   * Space-separated scopes the client must hold, or the token request fails
   * with access_denied. Sent or omitted, the token carries every scope the
   * client holds: the server never narrows it.
   */
  scope?: string;
  fetch?: typeof globalThis.fetch;
}

/** An answer that is not a success: the status and the problem+json (or GraphQL) body. */
export class HaulGraphError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'HaulGraphError';
  }
}

/** GraphQL answered errors (with or without data). */
export class GraphQLErrors extends Error {
  constructor(readonly errors: ReadonlyArray<{ message: string; path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> }>) {
    super(errors.map((e) => e.message).join('; '));
    this.name = 'GraphQLErrors';
  }
}

const renewBefore = 30_000; // ms before expiry a token is renewed

const isJSON = (res: Response) => /^application\/(problem\+)?json\b/.test(res.headers.get('Content-Type') ?? '');

export class HaulGraph {
  /** The REST routes, typed by rest/openapi.json (paths include /api/p/v1). */
  readonly rest: Client<paths>;
  private readonly fetch: typeof globalThis.fetch;
  private current?: { token: string; expires: number };
  private pending?: Promise<string>;

  constructor(private readonly opts: ClientOptions) {
    this.fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.rest = createFetchClient<paths>({ baseUrl: opts.baseUrl, fetch: this.fetch });
    const auth: Middleware = {
      onRequest: async ({ request }) => {
        request.headers.set('Authorization', `Bearer ${await this.token()}`);
        return request;
      },
      onResponse: async ({ response }) => {
        if (!isJSON(response) || response.status === 204) return response;
        const text = quoteNumbers(await response.text(), (path) => restDecimalFields.has(path[path.length - 1] ?? ''));
        return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
      },
    };
    this.rest.use(auth);
  }

  /** A valid access token: the cached one, or a new one from /oauth/token. */
  async token(): Promise<string> {
    if (this.current && Date.now() < this.current.expires - renewBefore) return this.current.token;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.opts.clientId, client_secret: this.opts.clientSecret });
    if (this.opts.audience) form.set('audience', this.opts.audience);
    if (this.opts.scope) form.set('scope', this.opts.scope);
    const res = await this.fetch(new URL('/oauth/token', this.opts.baseUrl), { method: 'POST', body: form });
    const body: unknown = isJSON(res) ? await res.json() : await res.text();
    if (!res.ok) throw new HaulGraphError(`token: HTTP ${res.status}`, res.status, body);
    const { access_token, expires_in } = body as { access_token: string; expires_in: number };
    this.current = { token: access_token, expires: Date.now() + expires_in * 1000 };
    return access_token;
  }

  /** Runs one of the generated operations (src/generated/graphql.ts) over HTTP. */
  async graphql<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, ...[variables]: TVariables extends Record<string, never> ? [] : [TVariables]): Promise<TResult> {
    const res = await this.fetch(new URL('/graphql', this.opts.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${await this.token()}` },
      body: JSON.stringify({ query: document.toString(), variables: variables ?? {} }),
    });
    const decimals = new Set((graphqlDecimalPaths[operationName(document.toString())] ?? []).map((p) => `data.${p}`));
    const text = await res.text();
    const body = JSON.parse(isJSON(res) ? quoteNumbers(text, (path) => decimals.has(path.join('.'))) : JSON.stringify(text)) as {
      data?: TResult | null;
      errors?: ConstructorParameters<typeof GraphQLErrors>[0];
    };
    if (!res.ok && !body.errors) throw new HaulGraphError(`graphql: HTTP ${res.status}`, res.status, body);
    if (body.errors?.length) throw new GraphQLErrors(body.errors);
    return body.data as TResult;
  }
}

function operationName(query: string): string {
  return /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(query)?.[1] ?? '';
}
