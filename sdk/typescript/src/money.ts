// Money: amounts are exact decimals; read them as decimals, never as floats.
import type { components } from './generated/openapi.js';

/** An ISO 4217 numeric currency code (the API sends numbers, e.g. 840). */
export type CurrencyCode = number;

/** The codes HaulGraph's data uses (USD is the default currency). */
export const Currency = { USD: 840, CAD: 124, MXN: 484 } as const satisfies Record<string, CurrencyCode>;

/**
 * An amount as REST sends it: Amount is the exact decimal text the API wrote
 * (e.g. "123456789012.34"), Currency its numeric code or null (settlement
 * statements). GraphQL's Money has the same fields in lower case (amount,
 * currency), typed the same way.
 */
export type Money = components['schemas']['Money'];
