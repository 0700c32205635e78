export { HaulGraph, HaulGraphError, GraphQLErrors, type ClientOptions } from './client.js';
export { quoteNumbers, type JSONPath } from './json.js';
export type { paths, components, operations } from './generated/openapi.js';
export * from './generated/graphql.js';
/** Every type of the GraphQL schema (the operations' own types are exported above). */
export type * as Schema from './generated/graphql-schema.js';
