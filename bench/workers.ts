// A burst of turns against `serve --workers 1` and `--workers N` on PostgreSQL + Redis: every turn
// sent at once, each by its own user, each followed by a fresh graphql-ws client subscribing with
// `after: 0` right after sendMessage returns (as bench/turn-streaming.ts does), the fake OpenAI
// server streaming each answer. Reports the burst's wall time (first sendMessage → last final event),
// failed turns, and the CPU time the server's processes, PostgreSQL's and this one (clients and
// fake model) used. Worker counts alternate over the rounds so that load from elsewhere on the machine falls on both alike. Each server first runs
// --warmup turns per worker unmeasured, so that no worker loads its lazily imported modules or
// compiles its hot code within the burst (each worker process pays that on its own).
// Also reports the share of the machine's CPU left idle during each burst: the first worker
// count's idle share bounds what more workers can gain here. If they used no more CPU in all than
// it did and kept every core busy, its burst would take (1 - idle share) of its time; the client
// and the fake model, PostgreSQL and Redis share the cores with the server.
// Usage: npx tsx bench/workers.ts [--workers 1,2] [--turns 500] [--tokens 20] [--gap-ms 20] [--rounds 2] [--warmup 3000]
// Needs PostgreSQL (BENCH_POSTGRES_URL, default postgresql://postgres@127.0.0.1:5432/postgres) and
// Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379).
import { parseArgs } from 'node:util';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startFakeOpenAI } from '../test/support/fake-openai.js';
import { spawnServer, type ServerProcess } from '../test/support/process.js';
import { cpuMs, freshPostgres, machineCpuMs, postgresPids, summarize } from './support.js';
import { benchServerEnv } from './turn-client.js';

const { values: args } = parseArgs({
  options: {
    workers: { type: 'string', default: '1,2' },
    turns: { type: 'string', default: '500' },
    tokens: { type: 'string', default: '20' },
    'gap-ms': { type: 'string', default: '20' },
    rounds: { type: 'string', default: '2' },
    /** Turns per worker before the burst: V8 optimises a turn's code over ~3000 turns (see turn-streaming.ts), in each worker on its own. */
    warmup: { type: 'string', default: '3000' },
  },
});
const TURNS = Number(args.turns);
const TOKENS = Number(args.tokens);
const GAP_MS = Number(args['gap-ms']);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

const SEND = 'mutation($c: String!) { sendMessage(input: {content: $c}) { ... on SendMessagePayload { turn { id } } ... on Error { code message } } }';
const EVENTS = 'subscription($t: ID!) { turnEvents(turnId: $t, after: 0) { __typename ... on FinalEvent { status } } }';

function ws(url: string, headers: Record<string, string>): Client {
  return createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0, lazy: true });
}

async function gql(url: string, headers: Record<string, string>, query: string, variables: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** Sends a message, follows its turn from seq 0 with a fresh client; resolves with its final status. */
async function runTurn(url: string, user: string): Promise<string | null> {
  const headers = { 'x-user-id': user, 'x-tenant-id': 'bench' };
  const sent = await gql(url, headers, SEND, { c: 'go' });
  if (!sent.sendMessage.turn) throw new Error(JSON.stringify(sent.sendMessage));
  const client = ws(url, headers);
  let status: string | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query: EVENTS, variables: { t: sent.sendMessage.turn.id } },
        {
          next: (r) => (r.errors ? reject(new Error(JSON.stringify(r.errors))) : (status = (r.data as any).turnEvents.status ?? status)),
          error: reject,
          complete: resolve,
        },
      );
    });
  } finally {
    await client.dispose();
  }
  return status;
}

/** The server's processes: the primary and its workers (as its start-up line names them), or the one process. */
function serverPids(server: ServerProcess): number[] {
  const workers = /"workers":(\[[\d,]+\])/.exec(server.output());
  return [server.proc.pid!, ...(workers ? (JSON.parse(workers[1]!) as number[]) : [])];
}

const totalCpuMs = async (pids: number[]) => (await Promise.all(pids.map(cpuMs))).reduce<number>((a, b) => a + (b ?? 0), 0);

const fake = await startFakeOpenAI();
const db = await freshPostgres('remgraph_bench_workers');
const wallMs = new Map<number, number[]>();
const idleShares = new Map<number, number[]>();
try {
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const workers of args.workers.split(',').map(Number)) {
      const server = await spawnServer({ ...benchServerEnv(fake.url), DATABASE_URL: db.url, REDIS_URL, WEB_APP: 'false' }, 180_000, 'compiled', [
        '--workers',
        String(workers),
      ]);
      try {
        // A few at a time, so that connections, and turns, spread over the workers.
        const warmup = Number(args.warmup) * workers;
        fake.enqueue(...Array.from({ length: warmup }, () => ({ text: Array.from({ length: TOKENS }, () => 'x ') })));
        for (let i = 0; i < warmup; i += 4) await Promise.all([0, 1, 2, 3].map((j) => runTurn(server.url, `bench-warm-${workers}-${round}-${i + j}`)));
        fake.enqueue(...Array.from({ length: TURNS }, () => ({ text: Array.from({ length: TOKENS }, () => 'x '), delayMs: GAP_MS })));
        const pids = serverPids(server);
        const postgres = await postgresPids(new URL(db.url).pathname.slice(1));
        const cpuBefore = await totalCpuMs(pids);
        const postgresBefore = await totalCpuMs(postgres);
        const clientBefore = process.cpuUsage();
        const machineBefore = await machineCpuMs();
        const started = performance.now();
        const results = await Promise.allSettled(Array.from({ length: TURNS }, (_, i) => runTurn(server.url, `bench-${workers}-${round}-${i}`)));
        const ms = performance.now() - started;
        const serverCpuMs = (await totalCpuMs(pids)) - cpuBefore;
        const postgresCpuMs = (await totalCpuMs(postgres)) - postgresBefore;
        const client = process.cpuUsage(clientBefore);
        const machine = await machineCpuMs();
        const idleShare = (machine.idle - machineBefore.idle) / (machine.total - machineBefore.total);
        const failed = results.filter((r) => r.status === 'rejected' || r.value !== 'COMPLETED');
        const firstFailure =
          failed[0] && (failed[0].status === 'rejected' ? String(failed[0].reason) : `status ${(failed[0] as PromiseFulfilledResult<unknown>).value}`);
        wallMs.set(workers, [...(wallMs.get(workers) ?? []), ms]);
        idleShares.set(workers, [...(idleShares.get(workers) ?? []), idleShare]);
        console.log(
          JSON.stringify({
            bench: `${TURNS}-turn burst`,
            workers,
            round,
            wallMs: Math.round(ms),
            failed: failed.length,
            ...(firstFailure ? { firstFailure: firstFailure.slice(0, 200) } : {}),
            serverCpuMs: Math.round(serverCpuMs),
            postgresCpuMs: Math.round(postgresCpuMs),
            clientCpuMs: Math.round((client.user + client.system) / 1000),
            machineIdleShare: +idleShare.toFixed(3),
          }),
        );
      } finally {
        await server.stop();
        fake.reset();
      }
    }
  }
  const [base, ...others] = [...wallMs.entries()];
  for (const [workers, samples] of others) {
    const ratio = summarize(samples).p50 / summarize(base![1]).p50;
    console.log(
      JSON.stringify({
        bench: `${TURNS}-turn burst, median wall time ratio`,
        workers: `${workers} vs ${base![0]}`,
        ratio: +ratio.toFixed(3),
        medianMs: { [base![0]]: Math.round(summarize(base![1]).p50), [workers]: Math.round(summarize(samples).p50) },
        /** The ratio no worker count can beat on this machine: see the head of this file. */
        machineBound: +(1 - summarize(idleShares.get(base![0])!).p50).toFixed(3),
      }),
    );
  }
} finally {
  await db.drop();
  await fake.close();
}
process.exit(0);
