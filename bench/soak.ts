/**
 * Soak (issue 41, target 6): BENCH_SOAK_TURNS turns (default 50,000) one after another on one
 * server, the fake OpenAI server as the model, mixed as an app's would be: of every 10 turns, 6
 * plain answers, 2 with a tool call (register_metadata), 1 whose gated tool waits for a human
 * approval (given over GraphQL while the turn is followed), 1 that asks a child agent. Every turn
 * starts a new session and is followed over graphql-ws from seq 0 to its final event.
 *
 * Windows of BENCH_SOAK_WINDOW turns (default 5,000): after the first window (the warm-up) and at
 * the end, the server's heap and RSS after two full garbage collections (through the inspector: the
 * server runs with `--inspect=127.0.0.1:0`), each worker thread's heap (the embedded database's thread
 * is in the RSS, not in the process's heap) and what it holds (`kill -USR2`, logged by the server:
 * open and ended turns of the event hub, its listeners, Node's timers and handles), and their ratio
 * end ÷ warm-up (target: within 10%); the server's CPU per turn in the last window against the window
 * after the warm-up (target ≤ 1.1), with the number of events the turns logged (the event log's size
 * at the end). The counts are printed once more after 31 s idle, when the turns kept for late
 * followers (30 s) have gone.
 *
 *   node scripts/build.mjs && npx tsx bench/soak.ts                      # 50,000 turns: ~26 min on PGlite
 *   BENCH_SOAK_TURNS=1000 BENCH_SOAK_WINDOW=100 npx tsx bench/soak.ts    # smoke size
 *   BENCH_BACKEND=postgres …                                             # on a fresh PostgreSQL database
 *   BENCH_BACKEND=postgres REDIS_URL=redis://127.0.0.1:6379 …            # events relayed through Redis
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { FakeOpenAI, Script } from '../test/support/fake-openai.js';
import { startFakeOpenAI } from '../test/support/fake-openai.js';
import { spawnServer, type ServerProcess } from '../test/support/process.js';
import { cpuMs, freshPostgres, inspectorAddress, memoryAfterGc, postgresPids } from './support.js';
import { benchServerEnv } from './turn-client.js';

const TURNS = Number(process.env.BENCH_SOAK_TURNS ?? 50_000);
const WINDOW = Number(process.env.BENCH_SOAK_WINDOW ?? 5_000);
const BACKEND = process.env.BENCH_BACKEND ?? 'pglite';
if (TURNS < 3 * WINDOW) throw new Error('BENCH_SOAK_TURNS must be at least 3 × BENCH_SOAK_WINDOW (warm-up, first and last window)');
const headers = { 'x-user-id': 'soak-user', 'x-tenant-id': 'bench' };
const print = (line: object) => console.log(JSON.stringify(line));

const AGENTS = [
  'name: helper\ndescription: You help.\ntools:\n  - name: register_metadata\n',
  'name: careful\ndescription: You act only with approval.\ntools:\n  - name: action\n    requires_approval: true\n',
  'name: boss\ndescription: You delegate.\ntools:\n  - name: ask_agent\n',
];

async function gql(url: string, query: string, variables: object = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

const text = (words: number): Script => ({ text: Array.from({ length: words }, (_, i) => `w${i} `) });

/** Turn `i`'s agent and the model's replies, in the order the server asks for them. */
function plan(i: number): { agent?: string; scripts: Script[]; approve?: boolean } {
  switch (i % 10) {
    case 6:
    case 7:
      return {
        agent: 'helper',
        scripts: [{ toolCalls: [{ id: `m${i}`, name: 'register_metadata', arguments: { confidence: 0.9, notes: 'soak' } }] }, text(20)],
      };
    case 8:
      return { agent: 'careful', scripts: [{ toolCalls: [{ id: `a${i}`, name: 'action', arguments: { type: 'soak' } }] }, text(20)], approve: true };
    case 9:
      return {
        agent: 'boss',
        scripts: [{ toolCalls: [{ id: `c${i}`, name: 'ask_agent', arguments: { agent_name: 'helper', input_text: 'help' } }] }, text(10), text(20)],
      };
    default:
      return { scripts: [text(30)] };
  }
}

const SEND = `mutation($c: String!, $a: String) { sendMessage(input: {content: $c, agent: $a}) { ... on SendMessagePayload { turn { id } } ... on Error { code message } } }`;
const EVENTS =
  'subscription($t: ID!) { turnEvents(turnId: $t, after: 0) { __typename ... on ApprovalNeededEvent { approvalId } ... on FinalEvent { status } } }';
const DECIDE = 'mutation($id: ID!) { decideApproval(id: $id, approve: true) { __typename ... on Error { message } } }';

/** Turn `i`: sendMessage, then follow it to its final event (approving its gated call when asked); how many events it had. */
async function turn(url: string, fake: FakeOpenAI, i: number): Promise<number> {
  const { agent, scripts, approve } = plan(i);
  fake.enqueue(...scripts);
  const sent = await gql(url, SEND, { c: `turn ${i}`, a: agent });
  const turnId = sent.sendMessage.turn?.id as string | undefined;
  if (!turnId) throw new Error(JSON.stringify(sent.sendMessage));
  const client = createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0, lazy: true });
  let events = 0;
  try {
    await new Promise<void>((resolve, reject) =>
      client.subscribe(
        { query: EVENTS, variables: { t: turnId } },
        {
          next: (r) => {
            if (r.errors) return reject(new Error(JSON.stringify(r.errors)));
            events++;
            const event = (r.data as any).turnEvents;
            if (event.__typename === 'ApprovalNeededEvent' && approve) {
              gql(url, DECIDE, { id: event.approvalId }).then(
                (d) => d.decideApproval.__typename === 'DecideApprovalSuccess' || reject(new Error(JSON.stringify(d))),
                reject,
              );
            }
            if (event.__typename === 'FinalEvent' && event.status !== 'COMPLETED') reject(new Error(`turn ${i} ended ${event.status}`));
          },
          error: reject,
          complete: resolve,
        },
      ),
    );
  } finally {
    await client.dispose();
  }
  return events;
}

/** What the server holds, as it logs it on SIGUSR2 (src/app.ts). */
async function holdings(server: ServerProcess): Promise<Record<string, number>> {
  const seen = server.output().length;
  server.proc.kill('SIGUSR2');
  for (let waited = 0; waited < 10_000; waited += 50) {
    const line = server
      .output()
      .slice(seen)
      .split('\n')
      .find((l) => l.includes('"diagnostics"'));
    if (line) return JSON.parse(line).diagnostics;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server logged no diagnostics on SIGUSR2');
}

const workersHeap = (line: { workersMb: Record<string, number> }) => Object.values(line.workersMb).reduce((sum, mb) => sum + mb, 0);

async function snapshot(server: ServerProcess, inspector: string, turns: number) {
  const memory = await memoryAfterGc(inspector);
  const held = await holdings(server);
  const mb = (bytes: number) => +(bytes / 2 ** 20).toFixed(1);
  const workersMb = Object.fromEntries(Object.entries(memory.workers).map(([title, bytes]) => [title, mb(bytes)]));
  const line = { bench: 'soak', backend: BACKEND, turns, rssMb: mb(memory.rss), heapMb: mb(memory.heapUsed), workersMb, held };
  print(line);
  return line;
}

const fake = await startFakeOpenAI();
const dir = await mkdtemp(join(tmpdir(), 'remgraph-soak-'));
const pgdb = BACKEND === 'postgres' ? await freshPostgres('remgraph_bench_soak') : undefined;
process.env.REMGRAPH_CHILD_NODE_ARGS = `${process.env.REMGRAPH_CHILD_NODE_ARGS ?? ''} --inspect=127.0.0.1:0`;
const server = await spawnServer(
  // One process, whatever the backend: with DATABASE_URL and REDIS_URL it would start one worker per core.
  { ...benchServerEnv(fake.url), ...(pgdb ? { DATABASE_URL: pgdb.url } : { DATA_DIR: join(dir, 'data') }), LOG_LEVEL: 'info', WORKERS: '1' },
  undefined,
  'compiled',
);
const database = pgdb ? new URL(pgdb.url).pathname.slice(1) : undefined;
const used = async () => {
  const pids = database ? await postgresPids(database, { shared: false }) : [];
  return (await Promise.all([server.proc.pid!, ...pids].map(cpuMs))).reduce<number>((sum, ms) => sum + (ms ?? 0), 0);
};
try {
  const inspector = inspectorAddress(server.output());
  for (const yaml of AGENTS) await gql(server.url, 'mutation($y: String!) { registerAgent(yaml: $y) { __typename } }', { y: yaml });
  const started = performance.now();
  let warm: Awaited<ReturnType<typeof snapshot>> | undefined;
  let cpuAt = 0;
  let afterWarmUp = 0;
  // Every turn is read from seq 0, so this counts every event the run logged: the event log at the end.
  let events = 0;
  for (let i = 0; i < TURNS; i++) {
    if (i === WINDOW) warm = await snapshot(server, inspector, i);
    if (i === WINDOW || i === TURNS - WINDOW) cpuAt = await used();
    events += await turn(server.url, fake, i);
    if (i === 2 * WINDOW - 1) afterWarmUp = ((await used()) - cpuAt) / WINDOW;
    if ((i + 1) % WINDOW === 0) console.error(`[soak] ${i + 1} turns, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const last = ((await used()) - cpuAt) / WINDOW;
  const end = await snapshot(server, inspector, TURNS);
  print({
    bench: 'soak-summary',
    backend: BACKEND,
    turns: TURNS,
    window: WINDOW,
    rssRatio: +(end.rssMb / warm!.rssMb).toFixed(3),
    heapRatio: +(end.heapMb / warm!.heapMb).toFixed(3),
    // Only PGlite runs in a worker thread.
    ...(workersHeap(warm!) > 0 && { workersHeapRatio: +(workersHeap(end) / workersHeap(warm!)).toFixed(3) }),
    cpuMsPerTurnAfterWarmUp: +afterWarmUp.toFixed(2),
    cpuMsPerTurnLast: +last.toFixed(2),
    cpuRatio: +(last / afterWarmUp).toFixed(3),
    eventsLogged: events,
  });
  await new Promise((resolve) => setTimeout(resolve, 31_000));
  print({ bench: 'soak-idle', backend: BACKEND, afterS: 31, held: await holdings(server) });
} finally {
  await server.stop();
  await fake.close();
  await pgdb?.drop();
  await rm(dir, { recursive: true, force: true });
}
process.exit(0);
