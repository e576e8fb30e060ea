// What a user of a chat UI sees while turns stream, with the fake OpenAI server as the model.
// The server runs in its own process (as `npm start` would); the fake model and the clients share
// this one. For each backend (PGlite, PostgreSQL):
//  1. throughput: one turn whose model streams as fast as it can, content events/s at a graphql-ws
//     client, next to a bare yoga + graphql-ws server yielding the same events (ratio = remgraph / bare);
//  2. at 1, 100 and 500 concurrent turns (tokens 20 ms apart, like a fast real model), each turn
//     with its own fresh graphql-ws client that subscribes with `after: 0` right after sendMessage
//     returns: time to first token from the sendMessage call (and the part of it that is not the
//     model's own delay), token lag (fake model writes a token → client receives it) p50/p99, failed
//     turns, and the server's peak RSS;
//  3. non-model time per turn (sendMessage → final event at the client, instant model), p50.
// Usage: npx tsx bench/turn-streaming.ts [--backends pglite,postgres] [--turns 1,100,500] [--skip-throughput]
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../test/support/fake-openai.js';
import { spawnServer, type ServerProcess } from '../test/support/process.js';
import { freshPostgres, startBareServer, summarize } from './support.js';

const { values: args } = parseArgs({
  options: {
    backends: { type: 'string', default: 'pglite,postgres' },
    turns: { type: 'string', default: '1,100,500' },
    tokens: { type: 'string', default: '50' },
    'skip-throughput': { type: 'boolean', default: false },
  },
});
const THROUGHPUT_EVENTS = 5000;
const TOKENS_PER_TURN = Number(args.tokens);
const TOKEN_GAP_MS = 20;
const TURNS_FOR_OVERHEAD = 60;
/** The overhead run sends one user's turns back to back: per-user quotas would refuse most of them. */
const UNLIMITED = { MAX_TURNS_PER_MINUTE: '1000000', MAX_CONCURRENT_TURNS_PER_USER: '1000000' };

const now = () => performance.timeOrigin + performance.now();

function ws(url: string, headers: Record<string, string>): Client {
  return createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0, lazy: true });
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
const EVENTS = 'subscription($t: ID!) { turnEvents(turnId: $t, after: 0) { __typename ... on ContentEvent { delta } ... on FinalEvent { status } } }';

interface TurnResult {
  sentAt: number;
  firstTokenAt: number;
  tokens: { delta: string; at: number }[];
  status: string | null;
}

/** Sends a message, then follows its turn with a fresh client from seq 0, as a chat UI does. */
async function runTurn(server: ServerProcess, user: string, content: string): Promise<TurnResult> {
  const headers = { 'x-user-id': user, 'x-tenant-id': 'bench' };
  const sentAt = now();
  const sent = await gql(server.url, headers, SEND, { c: content });
  if (!sent.sendMessage.turn) throw new Error(JSON.stringify(sent.sendMessage));
  const client = ws(server.url, headers);
  const result: TurnResult = { sentAt, firstTokenAt: 0, tokens: [], status: null };
  try {
    await subscribe(client, EVENTS, { t: sent.sendMessage.turn.id }, (data) => {
      const event = data.turnEvents;
      if (event.__typename === 'ContentEvent') {
        const at = now();
        result.firstTokenAt ||= at;
        result.tokens.push({ delta: event.delta, at });
      } else if (event.__typename === 'FinalEvent') result.status = event.status;
    });
  } finally {
    await client.dispose();
  }
  return result;
}

async function bareRate(url: string): Promise<number> {
  const client = ws(url, {});
  let first = 0;
  let last = 0;
  let count = 0;
  await subscribe(client, 'subscription($n: Int!) { ticks(n: $n) { seq delta } }', { n: THROUGHPUT_EVENTS }, () => {
    const at = now();
    first ||= at;
    last = at;
    count++;
  });
  await client.dispose();
  return count / ((last - first) / 1000);
}

async function throughput(server: ServerProcess, fake: FakeOpenAI, bareUrl: string, backend: string) {
  fake.enqueue({ text: Array.from({ length: THROUGHPUT_EVENTS }, (_, i) => `w${i} `) });
  const cpuBefore = await cpuMs(server.proc.pid!);
  const turn = await runTurn(server, 'bench-throughput', 'go');
  const serverCpuUsPerEvent = +((((await cpuMs(server.proc.pid!)) - cpuBefore) * 1000) / THROUGHPUT_EVENTS).toFixed(1);
  const span = (turn.tokens.at(-1)!.at - turn.tokens[0]!.at) / 1000;
  const remgraph = turn.tokens.length / span;
  const bare = await bareRate(bareUrl);
  print({ bench: 'one turn, model as fast as it can: content events/s at the client', backend, events: turn.tokens.length, remgraph: Math.round(remgraph), bareGraphqlWs: Math.round(bare), ratio: +(remgraph / bare).toFixed(3), serverCpuUsPerEvent });
}

/** CPU time (user + system) a process has used so far, in ms: a figure the machine's other load does not inflate much. */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Peak resident memory and CPU time of a process while `work` runs. */
async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMb: number; cpuMs: number }> {
  let peak = 0;
  const cpuBefore = await cpuMs(pid);
  const sample = async () => {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    peak = Math.max(peak, kb);
  };
  const timer = setInterval(() => void sample(), 100);
  try {
    const result = await work();
    await sample();
    return { result, peakMb: Math.round(peak / 1024), cpuMs: (await cpuMs(pid)) - cpuBefore };
  } finally {
    clearInterval(timer);
  }
}

async function concurrent(server: ServerProcess, fake: FakeOpenAI, backend: string, turns: number) {
  // Each model call records when it arrived; its content says which turn it belongs to.
  const arrivals = new Map<string, number>();
  const script = (request: RecordedRequest) => {
    arrivals.set(String(request.body.messages.at(-1).content), now());
    return { text: Array.from({ length: TOKENS_PER_TURN }, () => 'x '), delayMs: TOKEN_GAP_MS, stampContent: true };
  };
  fake.enqueue(...Array.from({ length: turns }, () => script));
  const run = `${backend}-${turns}-${Date.now()}`;
  const { result, peakMb, cpuMs: serverCpuMs } = await peakRss(server.proc.pid!, () =>
    Promise.allSettled(Array.from({ length: turns }, (_, i) => runTurn(server, `bench-${run}-${i}`, `go ${run} ${i}`))),
  );
  const ok = result.flatMap((r, i) => (r.status === 'fulfilled' && r.value.status === 'COMPLETED' ? [{ turn: r.value, content: `go ${run} ${i}` }] : []));
  const failures = result.flatMap((r) => (r.status === 'rejected' ? [String(r.reason).slice(0, 200)] : r.value.status !== 'COMPLETED' ? [`status ${r.value.status}`] : []));
  const lag = ok.flatMap(({ turn }) => turn.tokens.map((t) => t.at - Number(t.delta.trim())));
  const ttft = ok.map(({ turn }) => turn.firstTokenAt - turn.sentAt);
  // The model's own share of the wait for the first token: request arrival → first token written.
  const ttftAboveModel = ok.map(({ turn, content }) => turn.firstTokenAt - turn.sentAt - (Number(turn.tokens[0]!.delta.trim()) - arrivals.get(content)!));
  const missing = ok.filter(({ turn }) => turn.tokens.length !== TOKENS_PER_TURN).length;
  print({
    bench: 'concurrent turns, fresh client per turn subscribing with after: 0',
    backend,
    turns,
    failed: failures.length,
    ...(failures.length ? { firstFailure: failures[0] } : {}),
    turnsWithMissingTokens: missing,
    tokenLagMs: pick(summarize(lag)),
    ttftMs: pick(summarize(ttft)),
    ttftAboveModelMs: pick(summarize(ttftAboveModel)),
    serverPeakRssMb: peakMb,
    serverCpuMsPerTurn: +(serverCpuMs / turns).toFixed(1),
  });
}

async function overhead(server: ServerProcess, fake: FakeOpenAI, backend: string) {
  const samples: number[] = [];
  const cpuBefore = await cpuMs(server.proc.pid!);
  for (let i = 0; i < TURNS_FOR_OVERHEAD; i++) {
    fake.enqueue({ text: 'Short answer.' });
    const started = now();
    await runTurn(server, `bench-overhead-${backend}`, 'go');
    if (i >= 10) samples.push(now() - started);
  }
  const serverCpuMsPerTurn = +(((await cpuMs(server.proc.pid!)) - cpuBefore) / TURNS_FOR_OVERHEAD).toFixed(2);
  print({ bench: 'non-model time per turn (sendMessage → final at a fresh client), instant model', backend, unitMs: pick(summarize(samples)), serverCpuMsPerTurn });
}

const pick = (s: ReturnType<typeof summarize>) => ({ p50: +s.p50.toFixed(1), p99: +s.p99.toFixed(1), n: s.n });
const print = (figures: Record<string, unknown>) => console.log(JSON.stringify(figures));

const fake = await startFakeOpenAI();
const bare = await startBareServer('bench/bare-ws-server.ts');
const modelEnv = { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: fake.url, LLM_DEFAULT_MODEL: 'openai:fake-model', LOG_LEVEL: 'info' };
try {
  for (const backend of args.backends.split(',')) {
    const db = backend === 'postgres' ? await freshPostgres('remgraph_bench_turns') : undefined;
    const server = await spawnServer({ ...modelEnv, ...UNLIMITED, ...(db ? { DATABASE_URL: db.url } : { DATA_DIR: 'memory://' }) });
    try {
      if (!args['skip-throughput']) await throughput(server, fake, bare.url, backend);
      for (const turns of args.turns.split(',').map(Number)) await concurrent(server, fake, backend, turns);
      await overhead(server, fake, backend);
    } finally {
      await server.stop();
      await db?.drop();
    }
  }
} finally {
  bare.stop();
  await fake.close();
}
process.exit(0);
