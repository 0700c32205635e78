// The REST routes' types, read from the generated `paths`: which paths a
// method has, what a call takes (path and query parameters, body) and
// what a success answers.
import type { paths } from './generated/openapi.js';

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The paths that have method M. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never }[keyof paths];

type Op<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer O } ? O : never;

type Params<O> = O extends { parameters: infer Pr } ? Pr : {};
type PathPart<O> = Params<O> extends { path: infer X } ? ([X] extends [never | undefined] ? {} : { path: X }) : {};
type QueryPart<O> = Params<O> extends { query: infer X }
  ? ([X] extends [never | undefined] ? {} : { query: X })
  : Params<O> extends { query?: infer X }
    ? ([X] extends [never | undefined] ? {} : { query?: X })
    : {};
type BodyOf<C> = C extends { 'application/json': infer J } ? J : C extends { 'multipart/form-data': unknown } ? FormData : never;
type BodyPart<O> = O extends { requestBody: { content: infer C } }
  ? { body: BodyOf<C> }
  : O extends { requestBody?: { content: infer C } }
    ? { body?: BodyOf<C> }
    : {};

/** Per call: a caller's AbortSignal (bounds the whole call, retries included) and extra headers. */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** What a call of method M on path P takes. */
export type RequestInit<P extends keyof paths, M extends Method> = PathPart<Op<P, M>> & QueryPart<Op<P, M>> & BodyPart<Op<P, M>> & CallOptions;

type ContentData<C> = { [T in keyof C]: T extends 'application/json' ? C[T] : T extends `text/${string}` | 'application/x-ndjson' ? string : ArrayBuffer }[keyof C];
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;

/** What a success of method M on path P answers (JSON parsed; text as string; other bytes as ArrayBuffer; 204: undefined). */
export type ResponseData<P extends keyof paths, M extends Method> = Op<P, M> extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: R[S] extends { content: infer C } ? ContentData<C> : undefined }[keyof R & SuccessStatus]
  : never;

/** The arguments after the path: optional when nothing in them is required. */
export type InitArgs<P extends keyof paths, M extends Method> = {} extends RequestInit<P, M> ? [init?: RequestInit<P, M>] : [init: RequestInit<P, M>];
