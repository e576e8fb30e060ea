/**
 * Many idle followers (issue 41, target 3): N graphql-ws connections, one per user, each following
 * its own session (`sessionEvents`) while nothing happens in it, held by remgraph and by a bare
 * yoga + graphql-ws server (bench/bare-ws-server.ts) holding as many never-yielding subscriptions.
 * Each server is warmed first (remgraph with BENCH_WARMUP turns; both by opening and closing N
 * followers once), then measured with and without the followers after two full garbage
 * collections (through the inspector: both servers run with `--inspect=127.0.0.1:0`): heap and RSS
 * per follower, and remgraph's ÷ bare (target ≤ 1.5). Then remgraph's sendMessage → final p50 over
 * BENCH_TURNS turns with the followers waiting against as many without them (half before they open,
 * half after they close), and its ratio (target ≤ 1.3), with the server's CPU per turn.
 *
 * With `BENCH_BACKENDS=postgres` and REDIS_URL set, remgraph relays events through Redis: each
 * session follower is a channel subscription there, so the line also gives Redis's memory per
 * follower and Redis's CPU per turn (a local redis-server) with and without them.
 *
 *   node scripts/build.mjs && npx tsx bench/idle-followers.ts
 *   BENCH_FOLLOWERS=200 BENCH_TURNS=20 BENCH_WARMUP=50 npx tsx bench/idle-followers.ts   # smoke size
 *   REDIS_URL=redis://127.0.0.1:6379 BENCH_BACKENDS=postgres BENCH_FOLLOWERS=10000 npx tsx bench/idle-followers.ts
 *
 * Each follower is a socket at both ends, in this process and in the server: 10,000 followers
 * need `ulimit -n` above 10,100 in the shell that runs it (and in the server it starts).
 */
import { readdir, readFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { startFakeOpenAI } from '../test/support/fake-openai.js';
import { spawnServer } from '../test/support/process.js';
import { cpuMs, freshPostgres, inspectorAddress, mean, median, memoryAfterGc, postgresPids, settle, startBareServer } from './support.js';
import { benchServerEnv, runTurn } from './turn-client.js';

const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',');
const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? 2_000);
const TURNS = Number(process.env.BENCH_TURNS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const INSPECT = '--inspect=127.0.0.1:0';
const user = (i: number) => ({ 'x-user-id': `follower-${i}`, 'x-tenant-id': 'bench' });

const print = (line: object) => console.log(JSON.stringify(line));
/** Where the run is, on stderr: a run at full size takes minutes per phase. */
const note = (phase: string) => console.error(`[idle-followers] ${new Date().toISOString().slice(11, 19)} ${phase}`);
const kb = (bytes: number) => +(bytes / 1024).toFixed(1);

async function gql(url: string, headers: Record<string, string>, query: string, variables: object = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** One session per follower, created over HTTP by its user, 16 at a time; their ids, by follower. */
async function createSessions(url: string): Promise<string[]> {
  const ids: string[] = new Array(FOLLOWERS);
  const CREATE = 'mutation { createSession(input: {name: "followed"}) { ... on CreateSessionSuccess { session { id } } ... on Error { message } } }';
  for (let at = 0; at < FOLLOWERS; at += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, FOLLOWERS - at) }, async (_, k) => {
        const data = await gql(url, user(at + k), CREATE);
        ids[at + k] =
          data.createSession.session?.id ??
          (() => {
            throw new Error(JSON.stringify(data));
          })();
      }),
    );
  }
  return ids;
}

const FOLLOW = 'subscription($s: ID!) { sessionEvents(sessionId: $s) { __typename } }';

/**
 * Opens a connection per follower (50 at a time, each waiting for its connection_ack) and
 * subscribes it; resolves once the server has gone quiet (every subscription is set up).
 */
async function follow(url: string, sessions: string[], pid: number): Promise<Client[]> {
  const clients: Client[] = [];
  const failures: unknown[] = [];
  for (let at = 0; at < sessions.length; at += 50) {
    await Promise.all(
      sessions.slice(at, at + 50).map(
        (sessionId, k) =>
          new Promise<void>((resolve, reject) => {
            const client = createClient({
              url: url.replace(/^http/, 'ws'),
              webSocketImpl: WebSocket,
              connectionParams: user(at + k),
              retryAttempts: 0,
              lazy: false,
              keepAlive: 0,
              on: { connected: () => resolve(), closed: (event) => reject(new Error(`closed: ${(event as CloseEvent).code}`)) },
            });
            client.subscribe({ query: FOLLOW, variables: { s: sessionId } }, { next: () => {}, error: (e) => failures.push(e), complete: () => {} });
            clients.push(client);
          }),
      ),
    );
  }
  await settle(pid);
  if (failures.length) throw new Error(`${failures.length} followers failed: ${JSON.stringify(failures[0])}`);
  return clients;
}

async function unfollow(clients: Client[], pid: number) {
  await Promise.all(
    clients.map(async (c) => {
      await c.dispose();
    }),
  );
  await settle(pid);
}

/** Heap and RSS per follower of the server behind `inspector`: measured without, then with `open()`'s followers. */
async function perFollower(inspector: string, open: () => Promise<Client[]>) {
  const before = await memoryAfterGc(inspector);
  const clients = await open();
  const after = await memoryAfterGc(inspector);
  return {
    clients,
    heapKb: kb((after.heapUsed - before.heapUsed) / FOLLOWERS),
    rssKb: kb((after.rss - before.rss) / FOLLOWERS),
    externalKb: kb((after.external - before.external) / FOLLOWERS),
    heapMbBefore: +(before.heapUsed / 2 ** 20).toFixed(1),
  };
}

/** A local redis-server's pid (its CPU is the relay's), if there is one. */
async function redisPid(): Promise<number | undefined> {
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    if ((await readFile(`/proc/${name}/comm`, 'utf8').catch(() => '')).trim() === 'redis-server') return Number(name);
  }
  return undefined;
}

async function bare() {
  const server = await startBareServer('bench/bare-ws-server.ts', {});
  try {
    const inspector = inspectorAddress(server.output());
    note('bare server: followers');
    const sessions = Array.from({ length: FOLLOWERS }, (_, i) => `session-${i}`);
    await unfollow(await follow(server.url, sessions, server.pid), server.pid);
    const measured = await perFollower(inspector, () => follow(server.url, sessions, server.pid));
    await unfollow(measured.clients, server.pid);
    const { clients: _, ...memory } = measured;
    return memory;
  } finally {
    server.stop();
  }
}

async function measure(backend: string, floor: Awaited<ReturnType<typeof bare>>) {
  const redisUrl = backend === 'postgres' ? process.env.REDIS_URL : undefined;
  const fake = await startFakeOpenAI();
  const dir = await mkdtemp(join(tmpdir(), 'remgraph-idle-followers-'));
  const pgdb = backend === 'postgres' ? await freshPostgres('remgraph_bench_followers') : undefined;
  const redis = redisUrl ? new Redis(redisUrl) : undefined;
  const server = await spawnServer(
    {
      ...benchServerEnv(fake.url),
      ...(pgdb ? { DATABASE_URL: pgdb.url } : { DATA_DIR: join(dir, 'data') }),
      REDIS_URL: redisUrl,
      MAX_WS_CONNECTIONS_PER_USER: '1000',
      // One process, relaying through Redis when REDIS_URL is set (its default would be one worker per core).
      WORKERS: '1',
    },
    undefined,
    'compiled',
  );
  const pid = server.proc.pid!;
  const database = pgdb ? new URL(pgdb.url).pathname.slice(1) : undefined;
  const redisServer = redis ? await redisPid() : undefined;
  const used = async () => {
    const pids = database ? await postgresPids(database, { shared: false }) : [];
    return (await Promise.all([pid, ...pids].map(cpuMs))).reduce<number>((sum, ms) => sum + (ms ?? 0), 0);
  };
  type Samples = { wall: number[]; cpu: number[]; relayCpu: number[] };
  const turns = async (count: number, into: Samples = { wall: [], cpu: [], relayCpu: [] }) => {
    for (let i = 0; i < count; i++) {
      fake.enqueue({ text: Array.from({ length: 20 }, () => 'x ') });
      const [cpu0, redis0] = [await used(), redisServer ? await cpuMs(redisServer) : 0];
      const turn = await runTurn(server.url, 'bench-turner', 'go');
      if (turn.status !== 'COMPLETED') throw new Error(`turn ended ${turn.status}`);
      into.wall.push(turn.doneAt - turn.sentAt);
      into.cpu.push((await used()) - cpu0);
      if (redisServer) into.relayCpu.push(((await cpuMs(redisServer)) ?? 0) - (redis0 ?? 0));
    }
    return into;
  };
  const summary = ({ wall, cpu, relayCpu }: Samples) => ({
    p50Ms: +median(wall).toFixed(2),
    // The mean: /proc counts CPU in 10 ms ticks, so a turn's own figure is 0, 10 or 20 and a median says little.
    cpuMsPerTurn: +mean(cpu).toFixed(2),
    ...(redisServer ? { redisCpuMsPerTurn: +mean(relayCpu).toFixed(2) } : {}),
  });
  const redisMemory = async () => Number(/used_memory:(\d+)/.exec((await redis?.info('memory')) ?? '')?.[1] ?? 0);
  try {
    const inspector = inspectorAddress(server.output());
    note(`${backend}: creating ${FOLLOWERS} sessions`);
    const sessions = await createSessions(server.url);
    note(`${backend}: ${WARMUP} warm-up turns`);
    await turns(WARMUP);
    note(`${backend}: opening and closing the followers once`);
    await unfollow(await follow(server.url, sessions, pid), pid);
    // Turns without followers before they open and after they close, around the turns with them.
    note(`${backend}: ${TURNS / 2} turns without followers`);
    const without = await turns(Math.ceil(TURNS / 2));
    const redisBefore = await redisMemory();
    note(`${backend}: measuring the followers`);
    const measured = await perFollower(inspector, () => follow(server.url, sessions, pid));
    const redisPerFollowerKb = redis ? kb(((await redisMemory()) - redisBefore) / FOLLOWERS) : undefined;
    note(`${backend}: ${TURNS} turns with followers`);
    const withFollowers = summary(await turns(TURNS));
    await unfollow(measured.clients, pid);
    note(`${backend}: ${TURNS / 2} turns without followers`);
    const withoutFollowers = summary(await turns(Math.floor(TURNS / 2), without));
    const { clients: _, ...memory } = measured;
    print({ bench: 'idle-followers', server: 'bare', followers: FOLLOWERS, ...floor });
    print({
      bench: 'idle-followers',
      server: 'remgraph',
      backend,
      relay: redis ? 'redis' : 'none',
      followers: FOLLOWERS,
      ...memory,
      heapRatio: +(memory.heapKb / floor.heapKb).toFixed(2),
      rssRatio: +(memory.rssKb / floor.rssKb).toFixed(2),
      ...(redis ? { redisPerFollowerKb } : {}),
    });
    print({
      bench: 'idle-followers-turns',
      backend,
      turns: TURNS,
      without: withoutFollowers,
      with: withFollowers,
      p50Ratio: +(withFollowers.p50Ms / withoutFollowers.p50Ms).toFixed(2),
    });
  } finally {
    await server.stop();
    await fake.close();
    redis?.disconnect();
    await pgdb?.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

process.env.REMGRAPH_CHILD_NODE_ARGS = `${process.env.REMGRAPH_CHILD_NODE_ARGS ?? ''} ${INSPECT}`;
process.env.FLOOR_NODE_ARGS = `${process.env.FLOOR_NODE_ARGS ?? ''} ${INSPECT}`;
const floor = await bare();
for (const backend of BACKENDS) await measure(backend, floor);
process.exit(0);
