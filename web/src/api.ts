import { createClient, type Client } from 'graphql-ws';
import type { TypedDocumentString } from './generated/graphql.js';

/** Who the app speaks as: header identity (local development) or a JWT. Kept in localStorage. */
export type Identity = { mode: 'headers'; userId: string; tenantId: string; roles?: string } | { mode: 'jwt'; token: string };

const IDENTITY_KEY = 'remgraph.identity';
const endpoint = new URL('/graphql', location.href);

export function loadIdentity(): Identity {
  try {
    const stored = JSON.parse(localStorage.getItem(IDENTITY_KEY) ?? 'null') as Identity | null;
    if (stored?.mode === 'headers' || stored?.mode === 'jwt') return stored;
  } catch {
    // A damaged entry is replaced by the default below.
  }
  // Without a user the server treats the app as anonymous (shared rows, read-only); a named local
  // user lets it chat out of the box. The identity bar changes it.
  return { mode: 'headers', userId: 'local-user', tenantId: '' };
}

export function saveIdentity(identity: Identity): void {
  localStorage.setItem(IDENTITY_KEY, JSON.stringify(identity));
  identityChanged(identity);
}

/** The credentials as HTTP headers; the same object is the websocket connection_init payload. */
function credentials(identity: Identity): Record<string, string> {
  if (identity.mode === 'jwt') return identity.token ? { Authorization: `Bearer ${identity.token}` } : {};
  const headers: Record<string, string> = {};
  if (identity.userId) headers['X-User-Id'] = identity.userId;
  if (identity.tenantId) headers['X-Tenant-Id'] = identity.tenantId;
  if (identity.roles) headers['X-Roles'] = identity.roles;
  return headers;
}

/** A GraphQL error with its `extensions.code`, or a transport failure (code NETWORK / HTTP_<status>). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

let identity = loadIdentity();
let socket: Client | undefined;

function identityChanged(next: Identity): void {
  identity = next;
  // The identity of a websocket is fixed at connection_init: start a new one.
  void socket?.dispose();
  socket = undefined;
}

export async function request<R, V>(document: TypedDocumentString<R, V>, ...[variables]: V extends Record<string, never> ? [] : [V]): Promise<R> {
  return send<R>({ 'content-type': 'application/json' }, JSON.stringify({ query: document.toString(), variables }));
}

/** A GraphQL multipart request carrying `file` as the variable `file` (yoga wants the CSRF header on it). */
export async function upload<R, V extends { file: File }>(document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: document.toString(), variables: { ...variables, file: null } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', variables.file, variables.file.name);
  return send<R>({ 'x-graphql-yoga-csrf': '1' }, form);
}

async function send<R>(headers: Record<string, string>, payload: string | FormData): Promise<R> {
  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: 'POST',
      headers: { accept: 'application/graphql-response+json', ...headers, ...credentials(identity) },
      body: payload,
    });
  } catch (error) {
    throw new ApiError(`The server cannot be reached (${(error as Error).message})`, 'NETWORK');
  }
  const body = (await res.json().catch(() => null)) as { data?: R; errors?: { message: string; extensions?: { code?: string } }[] } | null;
  const first = body?.errors?.[0];
  if (first) throw new ApiError(first.message, first.extensions?.code ?? `HTTP_${res.status}`);
  if (!res.ok || !body?.data) throw new ApiError(`The server answered ${res.status}`, `HTTP_${res.status}`);
  return body.data;
}

export interface Sink<R> {
  next(data: R): void;
  /** The subscription ended normally (for turnEvents: after the final event). */
  complete(): void;
  /** GraphQL errors end the subscription for good; `dropped` means the connection was lost. */
  error(error: ApiError, dropped: boolean): void;
}

/** Starts a subscription over graphql-ws; returns a function that stops it. */
export function subscribe<R, V>(document: TypedDocumentString<R, V>, variables: V, sink: Sink<R>): () => void {
  socket ??= createClient({
    url: endpoint.href.replace(/^http/, 'ws'),
    connectionParams: () => credentials(identity),
    lazy: true,
    // Reconnection is the caller's: it resumes from the last event it saw, not from the start.
    retryAttempts: 0,
  });
  return socket.subscribe<R>(
    { query: document.toString(), variables: variables as Record<string, unknown> },
    {
      next: (result) => {
        if (result.errors?.length) {
          const first = result.errors[0]!;
          sink.error(new ApiError(first.message, String(first.extensions?.code ?? 'GRAPHQL')), false);
        } else if (result.data) sink.next(result.data as R);
      },
      complete: () => sink.complete(),
      error: (error) => {
        if (Array.isArray(error)) {
          sink.error(new ApiError(error.map((e) => e.message).join('; '), String(error[0]?.extensions?.code ?? 'GRAPHQL')), false);
        } else {
          const code = (error as { code?: number }).code;
          // 4403: the server refused the credentials; not worth retrying with the same ones.
          sink.error(new ApiError(`Connection lost${code ? ` (${code})` : ''}`, code === 4403 ? 'UNAUTHENTICATED' : 'NETWORK'), code !== 4403);
        }
      },
    },
  );
}
