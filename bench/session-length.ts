/**
 * A turn's cost against the length of its session (issue 41, target 1): one server, three sessions
 * of one user (fresh, 10,000 and 100,000 messages, appended to the database before the server
 * starts), a plain turn in each in turn, round after round, so that all three meet the same server
 * state (and the same load from the rest of the machine). Prints per session length the server CPU
 * per turn (remgraph's process, plus its database's backends on PostgreSQL: the CPU used during all
 * of that length's turns ÷ turns, since the kernel counts CPU in 10 ms ticks, too coarse for one
 * turn) and the median sendMessage → final event, and their ratio to the fresh session's (targets:
 * within 1.2× at 10,000 messages, 1.3× at 100,000).
 *
 *   node scripts/build.mjs && npx tsx bench/session-length.ts
 *   BENCH_BACKENDS=postgres BENCH_ROUNDS=100 BENCH_WARMUP=20 BENCH_LENGTHS=10000,100000 npx tsx bench/session-length.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/database.js';
import { applyMigrations } from '../src/db/migrations.js';
import { encodeGlobalID } from '../src/http/global-ids.js';
import { appendMessages } from '../src/sessions/messages.js';
import { startFakeOpenAI } from '../test/support/fake-openai.js';
import { spawnServer } from '../test/support/process.js';
import { cpuMs, freshPostgres, median, postgresPids } from './support.js';
import { benchServerEnv, now } from './turn-client.js';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',');
const LENGTHS = (process.env.BENCH_LENGTHS ?? '10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const APPEND_BATCH = 5_000;
const headers = { 'x-user-id': 'bench-user', 'x-tenant-id': 'bench' };

const print = (line: object) => console.log(JSON.stringify(line));

/** Sessions of `lengths` messages (0: fresh) in the database at `settings`, by length. */
async function seed(settings: { url?: string; dataDir: string }, lengths: number[]): Promise<Map<number, string>> {
  const db = await openDatabase(settings);
  try {
    await applyMigrations(db);
    const ids = new Map<number, string>();
    for (const length of lengths) {
      const session = await db.prisma.session.create({ data: { name: `${length} messages`, tenantId: headers['x-tenant-id'], userId: headers['x-user-id'] } });
      for (let at = 0; at < length; at += APPEND_BATCH) {
        const rows = Array.from({ length: Math.min(APPEND_BATCH, length - at) }, (_, i) => ({
          type: (at + i) % 2 === 0 ? ('user' as const) : ('assistant' as const),
          content: `Message ${at + i}: a line of an earlier conversation, about as long as a short chat message.`,
          agentName: null,
          metadata: {},
          isEval: false,
        }));
        await appendMessages(db.prisma, session, rows);
      }
      ids.set(length, session.id);
    }
    await db.sql.query('ANALYZE');
    return ids;
  } finally {
    await db.close();
  }
}

const SEND = `mutation($c: String!, $s: ID!) { sendMessage(input: {content: $c, sessionId: $s}) { ... on SendMessagePayload { turn { id } } ... on Error { code message } } }`;
const EVENTS = 'subscription($t: ID!) { turnEvents(turnId: $t, after: 0) { __typename ... on FinalEvent { status } } }';

/** One plain turn in `sessionId` (a global id): sendMessage, then follow it to its final event; ms. */
async function turn(url: string, sessionId: string): Promise<number> {
  const started = now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: SEND, variables: { c: 'go', s: sessionId } }),
  });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  const turnId = body.data?.sendMessage?.turn?.id as string | undefined;
  if (!turnId) throw new Error(JSON.stringify(body));
  const client = createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0, lazy: true });
  try {
    await new Promise<void>((resolve, reject) =>
      client.subscribe(
        { query: EVENTS, variables: { t: turnId } },
        {
          next: (r) => {
            if (r.errors) reject(new Error(JSON.stringify(r.errors)));
            const event = (r.data as any)?.turnEvents;
            if (event?.__typename === 'FinalEvent' && event.status !== 'COMPLETED') reject(new Error(`turn ended ${event.status}`));
          },
          error: reject,
          complete: resolve,
        },
      ),
    );
  } finally {
    await client.dispose();
  }
  return now() - started;
}

async function measure(backend: string) {
  const fake = await startFakeOpenAI();
  const dir = await mkdtemp(join(tmpdir(), 'remgraph-session-length-'));
  const pgdb = backend === 'postgres' ? await freshPostgres('remgraph_bench_length') : undefined;
  const settings = pgdb ? { url: pgdb.url, dataDir: '' } : { dataDir: join(dir, 'data') };
  const lengths = [0, ...LENGTHS];
  const ids = await seed(settings, lengths);
  const server = await spawnServer(
    { ...benchServerEnv(fake.url), ...(pgdb ? { DATABASE_URL: pgdb.url } : { DATA_DIR: settings.dataDir }) },
    undefined,
    'compiled',
  );
  const database = pgdb ? new URL(pgdb.url).pathname.slice(1) : undefined;
  const used = async () => {
    const pids = database ? await postgresPids(database, { shared: false }) : [];
    return (await Promise.all([server.proc.pid!, ...pids].map(cpuMs))).reduce<number>((sum, ms) => sum + (ms ?? 0), 0);
  };
  try {
    const samples = new Map(lengths.map((length) => [length, { cpu: [] as number[], wall: [] as number[] }]));
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      for (const length of lengths) {
        fake.enqueue({ text: Array.from({ length: 20 }, () => 'x ') });
        const cpu0 = await used();
        const wall = await turn(server.url, encodeGlobalID('Session', ids.get(length)!));
        const cpu = (await used()) - cpu0;
        if (round >= WARMUP) {
          samples.get(length)!.cpu.push(cpu);
          samples.get(length)!.wall.push(wall);
        }
      }
    }
    const perTurn = (cpu: number[]) => cpu.reduce((sum, ms) => sum + ms, 0) / cpu.length;
    const fresh = samples.get(0)!;
    for (const length of lengths) {
      const { cpu, wall } = samples.get(length)!;
      print({
        bench: 'session-length',
        backend,
        messages: length,
        turns: cpu.length,
        cpuMsPerTurn: +perTurn(cpu).toFixed(2),
        sendToFinalMs: +median(wall).toFixed(2),
        cpuRatio: +(perTurn(cpu) / perTurn(fresh.cpu)).toFixed(2),
        sendToFinalRatio: +(median(wall) / median(fresh.wall)).toFixed(2),
      });
    }
  } finally {
    await server.stop();
    await fake.close();
    await pgdb?.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

for (const backend of BACKENDS) await measure(backend);
process.exit(0);
