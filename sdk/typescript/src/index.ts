export { HaulGraph, type ClientOptions, type Rest, type WithMeta } from './client.js';
export { HaulGraphError, type GraphQLErrorItem, type ResponseMeta } from './errors.js';
export type { RetryOptions } from './retry.js';
export type { CallOptions, PathsWith, RequestInit, ResponseData } from './rest-types.js';
export { Currency, type CurrencyCode, type Money } from './money.js';
export { quoteNumbers, type Shape } from './json.js';
export type { paths, components, operations } from './generated/openapi.js';
export * from './generated/graphql.js';
/** Every type of the GraphQL schema (the operations' own types are exported above). */
export type * as Schema from './generated/graphql-schema.js';
