// Streaming figures for the agent runtime, with the fake OpenAI server as the model:
//  1. content events/s delivered to a graphql-ws client for one turn, next to a bare graphql-ws
//     subscription yielding the same number of small events (ratio = remgraph / bare);
//  2. added latency from the fake server writing a token to the client receiving it, p50/p99, at 1
//     and at 100 concurrent turns (tokens every 20 ms, like a fast real model);
//  3. non-model time per turn (sendMessage → final event at the client, with an instant model), p50,
//     on PGlite and PostgreSQL.
// The server runs in its own process; the fake model and the clients share this one.
// Usage: npx tsx bench/turn-streaming.ts
import { spawn } from 'node:child_process';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startFakeOpenAI, type FakeOpenAI } from '../test/support/fake-openai.js';
import { spawnServer, type ServerProcess } from '../test/support/process.js';
import { freshPostgres, summarize } from './support.js';

const THROUGHPUT_EVENTS = 5000;
const LATENCY_TOKENS = 50;
const TURNS_FOR_OVERHEAD = 60;

const now = () => performance.timeOrigin + performance.now();

function ws(url: string, headers: Record<string, string>): Client {
  return createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0 });
}

function subscribe(client: Client, query: string, variables: Record<string, unknown>, onNext: (data: any) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    client.subscribe({ query, variables }, { next: (r) => (r.errors ? reject(new Error(JSON.stringify(r.errors))) : onNext(r.data)), error: reject, complete: resolve });
  });
}

async function gql(url: string, headers: Record<string, string>, query: string, variables: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

const SEND = 'mutation($c: String!) { sendMessage(input: {content: $c}) { ... on SendMessagePayload { turn { id } } ... on Error { code message } } }';
const EVENTS = 'subscription($t: ID!) { turnEvents(turnId: $t) { __typename ... on ContentEvent { delta } } }';

/** Runs one turn and calls `onDelta(delta, receivedAt)` for each content event; resolves at the final event. */
async function turn(server: ServerProcess, user: string, onDelta: (delta: string, at: number) => void) {
  const headers = { 'x-user-id': user, 'x-tenant-id': 'bench' };
  const sent = await gql(server.url, headers, SEND, { c: 'go' });
  const client = ws(server.url, headers);
  try {
    await subscribe(client, EVENTS, { t: sent.sendMessage.turn.id }, (data) => {
      if (data.turnEvents.__typename === 'ContentEvent') onDelta(data.turnEvents.delta, now());
    });
  } finally {
    await client.dispose();
  }
}

async function throughput(server: ServerProcess, fake: FakeOpenAI) {
  fake.enqueue({ text: Array.from({ length: THROUGHPUT_EVENTS }, (_, i) => `w${i} `) });
  let first = 0;
  let last = 0;
  let count = 0;
  await turn(server, 'bench-throughput', (_d, at) => {
    first ||= at;
    last = at;
    count++;
  });
  const remgraph = count / ((last - first) / 1000);

  const bare = await new Promise<string>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-ws-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
    proc.stdout.on('data', (chunk) => {
      const match = /listening on (\S+)/.exec(String(chunk));
      if (match) resolve(match[1]!);
    });
    proc.on('exit', (code) => reject(new Error(`bare server exited ${code}`)));
    process.on('exit', () => proc.kill());
  });
  const client = ws(bare, {});
  let bFirst = 0;
  let bLast = 0;
  let bCount = 0;
  await subscribe(client, 'subscription($n: Int!) { ticks(n: $n) { seq delta } }', { n: THROUGHPUT_EVENTS }, () => {
    const at = now();
    bFirst ||= at;
    bLast = at;
    bCount++;
  });
  await client.dispose();
  const bareRate = bCount / ((bLast - bFirst) / 1000);
  console.log(JSON.stringify({ bench: 'content events/s to a graphql-ws client', events: count, remgraph: Math.round(remgraph), bareGraphqlWs: Math.round(bareRate), ratio: +(remgraph / bareRate).toFixed(3) }));
}

const CREATE = 'mutation { createSession(input: {}) { ... on CreateSessionSuccess { session { id } } } }';
const SEND_IN = 'mutation($c: String!, $s: ID!) { sendMessage(input: {content: $c, sessionId: $s}) { ... on SendMessagePayload { turn { id } } ... on Error { code message } } }';
const SESSION_EVENTS = 'subscription($s: ID!) { sessionEvents(sessionId: $s) { __typename ... on ContentEvent { delta } } }';

/**
 * Latency of live delivery: each client is subscribed to its session before the turn starts, so
 * no event reaches it through replay.
 */
async function latency(server: ServerProcess, fake: FakeOpenAI, concurrent: number) {
  fake.enqueue(...Array.from({ length: concurrent }, () => ({ text: Array.from({ length: LATENCY_TOKENS }, () => 'x '), delayMs: 20, stampContent: true })));
  const samples: number[] = [];
  const users = await Promise.all(
    Array.from({ length: concurrent }, async (_, i) => {
      const headers = { 'x-user-id': `bench-latency-${concurrent}-${i}`, 'x-tenant-id': 'bench' };
      const sessionId = (await gql(server.url, headers, CREATE, {})).createSession.session.id as string;
      const client = ws(server.url, headers);
      let finished!: () => void;
      const done = new Promise<void>((resolve) => (finished = resolve));
      client.subscribe(
        { query: SESSION_EVENTS, variables: { s: sessionId } },
        {
          next: ({ data }: any) => {
            if (data.sessionEvents.__typename === 'ContentEvent') samples.push(now() - Number(data.sessionEvents.delta.trim()));
            if (data.sessionEvents.__typename === 'FinalEvent') finished();
          },
          error: (e) => console.error(e),
          complete: () => {},
        },
      );
      return { headers, sessionId, client, done };
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  await Promise.all(users.map((u) => gql(server.url, u.headers, SEND_IN, { c: 'go', s: u.sessionId })));
  await Promise.all(users.map((u) => u.done));
  await Promise.all(users.map((u) => u.client.dispose()));
  console.log(JSON.stringify({ bench: 'token write → client receive latency', concurrentTurns: concurrent, unit: 'ms', ...summarize(samples) }));
}

async function overhead(server: ServerProcess, fake: FakeOpenAI, backend: string) {
  const samples: number[] = [];
  for (let i = 0; i < TURNS_FOR_OVERHEAD; i++) {
    fake.enqueue({ text: 'Short answer.' });
    const started = now();
    await turn(server, `bench-overhead-${backend}`, () => {});
    if (i >= 10) samples.push(now() - started);
  }
  console.log(JSON.stringify({ bench: 'non-model time per turn (sendMessage → final at client)', backend, unit: 'ms', ...summarize(samples) }));
}

const only = process.argv[2];
const fake = await startFakeOpenAI();
const modelEnv = { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: fake.url, LLM_DEFAULT_MODEL: 'openai:fake-model', LOG_LEVEL: 'info' };

const pglite = await spawnServer({ ...modelEnv, DATA_DIR: 'memory://' });
try {
  if (only === 'latency100') {
    await latency(pglite, fake, 100);
    await pglite.stop();
    process.exit(0);
  }
  await throughput(pglite, fake);
  await latency(pglite, fake, 1);
  await latency(pglite, fake, 100);
  await overhead(pglite, fake, 'pglite');
} finally {
  await pglite.stop();
}
const db = await freshPostgres('remgraph_bench_turns');
const postgres = await spawnServer({ ...modelEnv, DATABASE_URL: db.url });
try {
  await latency(postgres, fake, 100);
  await overhead(postgres, fake, 'postgres');
} finally {
  await postgres.stop();
  await db.drop();
  await fake.close();
}
process.exit(0);
