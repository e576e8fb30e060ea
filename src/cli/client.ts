import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { CliTurnEventsSubscription, TypedDocumentString } from './generated/graphql.js';
import { CliTurnEventsDocument } from './generated/graphql.js';

/** Where the client commands send their GraphQL, and as whom. */
export interface Connection {
  url: string;
  headers: Record<string, string>;
}

/** The options every client command takes (node:util parseArgs). */
export const connectionOptions = {
  url: { type: 'string' },
  token: { type: 'string' },
  user: { type: 'string' },
  tenant: { type: 'string' },
} as const;

/** The identity GraphiQL and the chat app prefill, so the three see the same sessions. */
const DEFAULT_USER = 'local-user';

/**
 * `--token` (or REMGRAPH_TOKEN) is sent as a bearer token; otherwise `--user` / `--tenant` (or
 * REMGRAPH_USER / REMGRAPH_TENANT) as the X-User-Id / X-Tenant-Id headers of header auth.
 */
export function connectionFrom(values: { url?: string; token?: string; user?: string; tenant?: string }, env: NodeJS.ProcessEnv = process.env): Connection {
  const url = graphqlUrl(values.url ?? env.REMGRAPH_URL ?? `http://127.0.0.1:${env.PORT || 4000}`);
  const token = values.token ?? env.REMGRAPH_TOKEN;
  if (token) return { url, headers: { Authorization: `Bearer ${token}` } };
  const tenant = values.tenant ?? env.REMGRAPH_TENANT;
  return { url, headers: { 'X-User-Id': values.user ?? env.REMGRAPH_USER ?? DEFAULT_USER, ...(tenant ? { 'X-Tenant-Id': tenant } : {}) } };
}

/** The server's address as people write it (`http://localhost:4000`) means its GraphQL endpoint. */
function graphqlUrl(address: string): string {
  const url = URL.parse(address);
  if (!url || url.pathname !== '/') return address;
  url.pathname = '/graphql';
  return url.href;
}

/** A failure the command reports in one line (no stack trace) before exiting 1. */
export class CliError extends Error {
  override name = 'CliError';
}

class NoServerError extends CliError {
  constructor(url: string) {
    super(`no server answered at ${url} (start one with \`npm start\`, or set --url / REMGRAPH_URL)`);
  }
}

interface GraphQLErrorBody {
  message: string;
  extensions?: { code?: string };
}

const describeErrors = (errors: readonly GraphQLErrorBody[]) =>
  errors.map((e) => (e.extensions?.code ? `${e.extensions.code}: ${e.message}` : e.message)).join('; ');

/** Runs a query or mutation over HTTP; GraphQL errors become a CliError. */
export async function request<R, V>(connection: Connection, document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  let res: Response;
  try {
    res = await fetch(connection.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...connection.headers },
      body: JSON.stringify({ query: document.toString(), variables }),
    });
  } catch {
    throw new NoServerError(connection.url);
  }
  const text = await res.text();
  let body: { data?: R | null; errors?: GraphQLErrorBody[] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new CliError(`${connection.url} answered HTTP ${res.status} without GraphQL: is it a remgraph server's /graphql?`);
  }
  if (body.errors?.length) throw new CliError(describeErrors(body.errors));
  if (!body.data) throw new CliError(`${connection.url} answered HTTP ${res.status} without data`);
  return body.data;
}

export type TurnEvent = CliTurnEventsSubscription['turnEvents'];

export interface FollowOptions {
  /** Events with seq > after are delivered (default 0: the whole turn). */
  after?: number;
  /** Told when the connection dropped and the turn is followed again from `lastSeq`. */
  onReconnect?: (lastSeq: number) => void;
}

const MAX_RECONNECTS = 6;

/**
 * Delivers a turn's events in order, each once, until its final event; `onEvent` is awaited, so a
 * handler may ask the user something before the next event. When the websocket drops, the turn is
 * subscribed again with `after: <last seq seen>` (the server replays from its log), with backoff.
 */
export async function followTurn(
  connection: Connection,
  turnId: string,
  onEvent: (event: TurnEvent) => Promise<void> | void,
  options: FollowOptions = {},
): Promise<void> {
  let lastSeq = options.after ?? 0;
  let failures = 0;
  for (;;) {
    const client = createClient({
      url: connection.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: connection.headers,
      retryAttempts: 0,
      lazy: true,
    });
    try {
      for await (const result of client.iterate<CliTurnEventsSubscription>({
        query: CliTurnEventsDocument.toString(),
        variables: { turnId, after: lastSeq },
      })) {
        if (result.errors?.length) throw new CliError(describeErrors(result.errors));
        const event = result.data!.turnEvents;
        if (event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        failures = 0;
        await onEvent(event);
      }
      return;
    } catch (error) {
      if (error instanceof CliError) throw error;
      if (Array.isArray(error)) throw new CliError(describeErrors(error as GraphQLErrorBody[]));
      const close = error as { code?: number; reason?: string };
      // 4xxx closes are the server refusing (bad credentials, bad request): trying again cannot help.
      if (typeof close.code === 'number' && close.code >= 4000) throw new CliError(`the server closed the connection: ${close.reason || close.code}`);
      if (++failures > MAX_RECONNECTS)
        throw lastSeq === (options.after ?? 0)
          ? new NoServerError(connection.url)
          : new CliError(`lost the connection to ${connection.url} after seq ${lastSeq}`);
      options.onReconnect?.(lastSeq);
      await new Promise((resolve) => setTimeout(resolve, Math.min(4000, 100 * 2 ** failures)));
    } finally {
      await client.dispose();
    }
  }
}
