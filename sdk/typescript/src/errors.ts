// One error class for every call: REST problem documents, the token
// endpoint's OAuth errors, GraphQL errors (also those in a 200), and a
// request that got no answer (status 0).

/** What every answer says besides its body. */
export interface ResponseMeta {
  /** The HTTP status (0 when no answer came). */
  readonly status: number;
  /** The request's id: the trace id of the answer's traceparent header (quote it when reporting a problem). */
  readonly requestId?: string;
  /** RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds), when the answer carries them. */
  readonly rateLimit?: { readonly limit: number; readonly remaining: number; readonly reset: number };
  /** Attempts made, retries and the repeat after a token refresh included. */
  readonly attempts: number;
}

/** One error of a GraphQL answer's errors[]. */
export interface GraphQLErrorItem {
  readonly message: string;
  readonly path?: ReadonlyArray<string | number>;
  readonly extensions?: { readonly code?: string; readonly [key: string]: unknown };
}

export interface HaulGraphErrorInit {
  meta: ResponseMeta;
  type?: string;
  title?: string;
  detail?: string;
  instance?: string;
  code?: string;
  fields?: Record<string, string[]>;
  retryAfter?: number;
  graphqlErrors?: GraphQLErrorItem[];
  data?: unknown;
  body?: unknown;
  cause?: unknown;
}

export class HaulGraphError extends Error {
  /** The HTTP status: 0 when no answer came (see cause), 200 for GraphQL errors in a 200. */
  readonly status: number;
  /** problem+json's type, title, detail and instance (REST). */
  readonly type?: string;
  readonly title?: string;
  readonly detail?: string;
  readonly instance?: string;
  /** GraphQL's extensions.code (of the first error), or the token endpoint's OAuth error. */
  readonly code?: string;
  /** The offending fields and their messages: problem+json's errors, GraphQL's extensions.fields. */
  readonly fields?: Readonly<Record<string, string[]>>;
  /** The request id (see ResponseMeta.requestId, or the body's traceId). */
  readonly requestId?: string;
  /** Retry-After in seconds, when the answer carried it. */
  readonly retryAfter?: number;
  /** Every error of a GraphQL answer. */
  readonly graphqlErrors?: readonly GraphQLErrorItem[];
  /** A GraphQL answer's partial data, when it had some. */
  readonly data?: unknown;
  /** The answer's body as parsed (or its text). */
  readonly body?: unknown;
  readonly meta: ResponseMeta;

  constructor(message: string, init: HaulGraphErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'HaulGraphError';
    this.status = init.meta.status;
    this.meta = init.meta;
    this.type = init.type;
    this.title = init.title;
    this.detail = init.detail;
    this.instance = init.instance;
    this.code = init.code;
    this.fields = init.fields;
    this.retryAfter = init.retryAfter;
    this.graphqlErrors = init.graphqlErrors;
    this.data = init.data;
    this.body = init.body;
    const traceId = (init.body as { traceId?: unknown } | undefined)?.traceId ?? init.graphqlErrors?.[0]?.extensions?.traceId;
    this.requestId = init.meta.requestId ?? (typeof traceId === 'string' ? traceId : undefined);
  }
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** The error for a non-2xx answer (problem+json, OAuth error or GraphQL errors). */
export function errorOf(what: string, meta: ResponseMeta, body: unknown, retryAfter: number | undefined): HaulGraphError {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (Array.isArray(b.errors)) return graphqlError(what, meta, b.errors as GraphQLErrorItem[], b.data, retryAfter);
  const code = str(b.code) ?? str(b.error);
  const detail = str(b.detail) ?? str(b.error_description);
  const fields = typeof b.errors === 'object' && b.errors !== null ? (b.errors as Record<string, string[]>) : undefined;
  return new HaulGraphError(`${what}: ${meta.status}${code ? ` ${code}` : ''} ${detail ?? str(b.title) ?? (typeof body === 'string' ? body.slice(0, 200) : '')}`.trimEnd(), {
    meta, type: str(b.type), title: str(b.title), detail, instance: str(b.instance), code, fields, retryAfter, body,
  });
}

/** The error for a GraphQL answer's errors[] (in a 200 or not). */
export function graphqlError(what: string, meta: ResponseMeta, errors: GraphQLErrorItem[], data: unknown, retryAfter: number | undefined): HaulGraphError {
  const first = errors[0];
  const fields = first?.extensions?.fields as Record<string, string[]> | undefined;
  return new HaulGraphError(`${what}: ${errors.map((e) => (e.extensions?.code ? `${e.extensions.code} ` : '') + e.message).join('; ')}`, {
    meta, code: first?.extensions?.code, detail: first?.message, fields, retryAfter, graphqlErrors: errors, data: data ?? undefined, body: { errors, data },
  });
}
