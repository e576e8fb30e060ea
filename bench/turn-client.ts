// The client side of the turn benches (bench/turn-streaming.ts, bench/side-by-side.ts): a chat UI's
// turn, sendMessage over HTTP, then a fresh graphql-ws client following the turn from seq 0.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * The environment of a remgraph server under a turn bench: the fake OpenAI server at `modelUrl` as
 * its model, and no per-user quotas (one user's turns back to back, or hundreds at once, would hit them).
 */
export function benchServerEnv(modelUrl: string): Record<string, string> {
  return {
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: modelUrl,
    LLM_DEFAULT_MODEL: 'openai:fake-model',
    MAX_TURNS_PER_MINUTE: '1000000',
    MAX_CONCURRENT_TURNS_PER_USER: '1000000',
  };
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes (the fake model stamps tokens with it). */
export const now = () => performance.timeOrigin + performance.now();

const SEND = 'mutation($c: String!) { sendMessage(input: {content: $c}) { ... on SendMessagePayload { turn { id } } ... on Error { code message } } }';
const EVENTS = 'subscription($t: ID!) { turnEvents(turnId: $t, after: 0) { __typename ... on ContentEvent { delta } ... on FinalEvent { status } } }';

function ws(url: string, headers: Record<string, string>): Client {
  return createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0, lazy: true });
}

function subscribe(client: Client, query: string, variables: Record<string, unknown>, onNext: (data: any) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    client.subscribe(
      { query, variables },
      { next: (r) => (r.errors ? reject(new Error(JSON.stringify(r.errors))) : onNext(r.data)), error: reject, complete: resolve },
    );
  });
}

async function gql(url: string, headers: Record<string, string>, query: string, variables: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

export interface TurnResult {
  sentAt: number;
  /** When sendMessage's answer arrived (the turn is stored; the client subscribes next). */
  answeredAt: number;
  firstTokenAt: number;
  doneAt: number;
  tokens: { delta: string; at: number }[];
  status: string | null;
}

/** Sends a message to the server at `url`, then follows its turn with a fresh client from seq 0, as a chat UI does. */
export async function runTurn(url: string, user: string, content: string): Promise<TurnResult> {
  const headers = { 'x-user-id': user, 'x-tenant-id': 'bench' };
  const sentAt = now();
  const sent = await gql(url, headers, SEND, { c: content });
  if (!sent.sendMessage.turn) throw new Error(JSON.stringify(sent.sendMessage));
  const answeredAt = now();
  const client = ws(url, headers);
  const result: TurnResult = { sentAt, answeredAt, firstTokenAt: 0, doneAt: 0, tokens: [], status: null };
  try {
    await subscribe(client, EVENTS, { t: sent.sendMessage.turn.id }, (data) => {
      const event = data.turnEvents;
      if (event.__typename === 'ContentEvent') {
        const at = now();
        result.firstTokenAt ||= at;
        result.tokens.push({ delta: event.delta, at });
      } else if (event.__typename === 'FinalEvent') {
        result.status = event.status;
        result.doneAt = now();
      }
    });
  } finally {
    await client.dispose();
  }
  return result;
}
