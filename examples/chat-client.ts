// A typed remgraph client: creates a session, sends a message, streams the turn over graphql-ws,
// and resumes after a dropped connection from the last event it saw. The documents and their types
// come from examples/operations.graphql through GraphQL Code Generator (`npm run codegen`).
//
//   npx tsx examples/chat-client.ts "What can you do?"
//
// REMGRAPH_URL      GraphQL endpoint (default http://127.0.0.1:4000/graphql)
// REMGRAPH_TOKEN    a JWT, for servers with JWT auth; otherwise REMGRAPH_USER is sent as X-User-Id
// DISCONNECT_AFTER  drop the websocket after this many events, to show resuming (default: never)
//
// The answer is written to stdout as it streams; progress goes to stderr.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import {
  ExampleCreateSessionDocument,
  ExampleSendMessageDocument,
  ExampleTurnEventsDocument,
  type ExampleTurnEventsSubscription,
  type TypedDocumentString,
} from './generated/graphql.js';

type TurnEvent = ExampleTurnEventsSubscription['turnEvents'];

const url = process.env.REMGRAPH_URL ?? 'http://127.0.0.1:4000/graphql';
const credentials: Record<string, string> = process.env.REMGRAPH_TOKEN
  ? { Authorization: `Bearer ${process.env.REMGRAPH_TOKEN}` }
  : { 'X-User-Id': process.env.REMGRAPH_USER ?? 'example-user' };
const disconnectAfter = Number(process.env.DISCONNECT_AFTER ?? Infinity);

async function request<R, V>(document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...credentials },
      body: JSON.stringify({ query: document.toString(), variables }),
    });
  } catch (error) {
    // fetch says only "fetch failed": name the address, the usual culprit (REMGRAPH_URL).
    throw new Error(`cannot reach remgraph at ${url} (set REMGRAPH_URL): ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`, {
      cause: error,
    });
  }
  const body = (await res.json().catch(() => null)) as { data?: R; errors?: { message: string }[] } | null;
  if (body?.errors?.length || !body?.data) throw new Error(`${url}: ${body?.errors?.map((e) => e.message).join('; ') ?? `HTTP ${res.status}`}`);
  return body.data;
}

/**
 * Streams the turn's events after `after` until its final event ('done'), or until the connection
 * drops ('dropped'). With `dropAfter`, it cuts the connection itself after that many events.
 */
function follow(turnId: string, after: number, onEvent: (event: TurnEvent) => void, dropAfter = Infinity): Promise<'done' | 'dropped'> {
  const client = createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: credentials, retryAttempts: 0 });
  let received = 0;
  return new Promise((resolve, reject) => {
    client.subscribe<ExampleTurnEventsSubscription>(
      { query: ExampleTurnEventsDocument.toString(), variables: { turnId, after } },
      {
        next: ({ data, errors }) => {
          if (errors?.length) return reject(new Error(errors.map((e) => e.message).join('; ')));
          onEvent(data!.turnEvents);
          if (++received === dropAfter) client.terminate();
        },
        complete: () => resolve('done'),
        // GraphQL errors arrive as an array; anything else is the socket going away.
        error: (error) => (Array.isArray(error) ? reject(new Error(error.map((e) => e.message).join('; '))) : resolve('dropped')),
      },
    );
  }).finally(() => client.dispose()) as Promise<'done' | 'dropped'>;
}

async function main(message: string): Promise<number> {
  const created = (await request(ExampleCreateSessionDocument, { name: 'typed client example' })).createSession;
  if (created.__typename !== 'CreateSessionSuccess') throw new Error(`createSession: ${created.__typename}`);
  const sent = (await request(ExampleSendMessageDocument, { sessionId: created.session.id, content: message })).sendMessage;
  if (sent.__typename !== 'SendMessagePayload') throw new Error(`sendMessage: ${sent.__typename}`);
  const turnId = sent.turn.id;
  console.error(`session ${created.session.id}, turn ${turnId}`);

  let lastSeq = 0;
  let final: Extract<TurnEvent, { __typename: 'FinalEvent' }> | undefined;
  const onEvent = (event: TurnEvent) => {
    lastSeq = event.seq;
    if (event.__typename === 'ContentEvent') process.stdout.write(event.delta);
    if (event.__typename === 'ToolCallEvent') console.error(`[tool ${event.name}]`);
    if (event.__typename === 'ErrorEvent') console.error(`[${event.code}] ${event.message}`);
    if (event.__typename === 'FinalEvent') final = event;
  };
  for (let attempt = 0; (await follow(turnId, lastSeq, onEvent, attempt ? Infinity : disconnectAfter)) === 'dropped'; attempt++) {
    if (attempt === 5) throw new Error(`the server at ${url} cannot be reached`);
    console.error(`\n[connection lost after seq ${lastSeq}; resuming]`);
    await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
  }
  process.stdout.write('\n');
  console.error(`turn ${final?.status ?? 'ended'} after ${lastSeq} events`);
  return final?.status === 'COMPLETED' ? 0 : 1;
}

main(process.argv.slice(2).join(' ') || 'Hello! What can you do?').then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.message);
    process.exit(1);
  },
);
