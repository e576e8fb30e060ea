import { randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type ExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { expect } from 'vitest';
import { userContext, type AgentContext } from '../../src/auth/agent-context.js';

export type Headers = Record<string, string>;

export interface GraphQLResponse<T> {
  status: number;
  body: ExecutionResult<T> & { errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

/** A caller with its own identity (header auth unless an Authorization header is given). */
export interface Caller {
  headers: Headers;
  request<T, V>(document: TypedDocumentNode<T, V>, variables?: V): Promise<GraphQLResponse<T>>;
  /** Runs an operation and fails the test on any GraphQL error. */
  data<T, V>(document: TypedDocumentNode<T, V>, variables?: V): Promise<T>;
}

export function caller(url: string, headers: Headers = {}): Caller {
  const request = async <T, V>(document: TypedDocumentNode<T, V>, variables?: V) => postGraphQL<T>(url, { query: print(document), variables }, headers);
  return {
    headers,
    request,
    async data(document, variables) {
      const res = await request(document, variables);
      expectNoGraphQLErrors(res);
      return res.body.data!;
    },
  };
}

/** A fresh user in a fresh tenant, so suites sharing one database never see each other's rows. */
export function newUser(url: string, tenant = `t-${randomUUID()}`, extra: Headers = {}): Caller {
  return caller(url, { 'x-user-id': `u-${randomUUID()}`, 'x-tenant-id': tenant, ...extra });
}

export async function postGraphQL<T>(url: string, payload: unknown, headers: Headers = {}, raw = false): Promise<GraphQLResponse<T>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: raw ? (payload as string) : JSON.stringify(payload),
  });
  const text = await res.text();
  let body: GraphQLResponse<T>['body'];
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`Non-JSON response (${res.status}): ${text.slice(0, 500)}`);
  }
  return { status: res.status, body };
}

function expectNoGraphQLErrors(res: GraphQLResponse<unknown>): void {
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.status).toBe(200);
}

/** No response a client sees may carry a stack trace, a file path, SQL or a driver's name (beyond what the caller sent: `echo`). */
export function expectNoInternals(body: unknown, echo = ''): void {
  const sent = JSON.stringify(echo).slice(1, -1);
  const text = sent ? JSON.stringify(body).split(sent).join('') : JSON.stringify(body);
  // SQL as the server writes it (qualified quoted identifiers, placeholders), not a word like SELECT in a message.
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\.[jt]s:\d+|stack|Prisma|\.\\?"[a-z_]+\\?"|\$\d\b|\/work\/|\/home\//i);
}

/** The code of the first error of a response. */
export function errorCode(res: GraphQLResponse<unknown>): unknown {
  return res.body.errors?.[0]?.extensions?.code;
}

export function wsClient(url: string, connectionParams: Record<string, unknown> = {}): Client {
  return createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
}

/** Collects a subscription's results until it completes, errors, or `until` says stop. */
export function collect<T, V extends Record<string, unknown>>(
  client: Client,
  document: TypedDocumentNode<T, V>,
  variables: V,
  until: (items: ExecutionResult<T>[]) => boolean = () => false,
): { items: ExecutionResult<T>[]; done: Promise<ExecutionResult<T>[]>; stop: () => void } {
  const items: ExecutionResult<T>[] = [];
  let stop = () => {};
  const done = new Promise<ExecutionResult<T>[]>((resolve, reject) => {
    stop = client.subscribe<T>(
      { query: print(document), variables },
      {
        next: (value) => {
          items.push(value as ExecutionResult<T>);
          if (until(items)) {
            stop();
            resolve(items);
          }
        },
        error: (error) => reject(toError(error)),
        complete: () => resolve(items),
      },
    );
  });
  return { items, done, stop: () => stop() };
}

/** graphql-ws reports a closed socket as a CloseEvent and GraphQL errors as an array. */
function toError(error: unknown): Error {
  if (error instanceof Error) return error;
  const close = error as { code?: number; reason?: string };
  if (typeof close?.code === 'number') {
    return Object.assign(new Error(`socket closed ${close.code} ${close.reason ?? ''}`), { code: close.code, reason: close.reason });
  }
  return new Error(JSON.stringify(error));
}

/** The AgentContext the server builds for a header-authenticated caller (for calling services directly). */
export function contextOf(user: Pick<Caller, 'headers'>): AgentContext {
  return userContext(user.headers['x-tenant-id'] ?? 'default', user.headers['x-user-id'] ?? null);
}
