// When a request is tried again, and how long to wait first (the same
// rules as the Go SDK's).
//
// The server answers 429 before doing any work (the rate limits refuse at
// the edge, httpedge.RateLimits, and GraphQL's cost limits before
// executing) and 503 when the limiter or the database cannot be reached,
// the request's transaction rolled back: both are safe to repeat for
// every method. 500, 502, 504 and a connection lost after sending may
// follow work done, so only idempotent requests repeat them.

export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 disables). */
  maxRetries?: number;
  /** The longest Retry-After honoured, in ms (default 60 000); a longer one is not waited for. */
  maxWait?: number;
  /** A number in [0, 1) (default Math.random): the backoff's jitter. */
  random?: () => number;
  /** Waits ms, or rejects when signal aborts (default: a timer). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The time in ms since the epoch (default Date.now): Retry-After dates and token expiry. */
  now?: () => number;
}

/** Statuses retried for every method, and for idempotent ones only. */
export const retriedAlways: ReadonlySet<number> = new Set([429, 503]);
export const retriedIfIdempotent: ReadonlySet<number> = new Set([500, 502, 504]);

/** Full-jitter exponential backoff before retry number retry (0-based), in ms. */
export function backoff(retry: number, random: () => number): number {
  return random() * Math.min(8000, 500 * 2 ** retry);
}

/** Retry-After (delay-seconds or an HTTP date) in seconds, or undefined. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

// Errors below which the request certainly never reached the server: no
// connection was made (refused, unreachable, timed out connecting) or the
// name did not resolve.
const notSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Whether a fetch failure happened before anything was sent. */
export function certainlyNotSent(err: unknown): boolean {
  const seen = new Set<unknown>();
  const walk = (e: unknown): boolean => {
    if (typeof e !== 'object' || e === null || seen.has(e)) return false;
    seen.add(e);
    const { code, cause, errors } = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && notSentCodes.has(code)) return true;
    return walk(cause) || (Array.isArray(errors) && errors.some(walk));
  };
  return walk(err);
}

export const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
