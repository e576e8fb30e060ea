import { availableParallelism } from 'node:os';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { createClient, type Client } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { caller, collect, newUser, type Caller } from '../support/client.js';
import { expectGapFreeSeqs, followTurn, GATED_AGENT, registerAgent, send, shape } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { runCli, spawnServer, type ServerProcess } from '../support/process.js';
import { DecideApprovalDocument, SendMessageDocument, TurnDocument, TurnEventsDocument, TurnTreeDocument } from '../generated/graphql.js';
import { databaseUrl } from '../support/database-url.js';

// vitest.config.ts prints one line when the multi-instance suites are skipped.
const REDIS_URL = process.env.TEST_REDIS_URL;

describe('the number of workers', () => {
  it('is one per core with PostgreSQL and Redis, else one; WORKERS overrides it', () => {
    const shared = { DATABASE_URL: 'postgresql://db/remgraph', REDIS_URL: 'redis://cache' };
    expect(loadConfig(shared).workers.count).toBe(availableParallelism());
    expect(loadConfig({ ...shared, WORKERS: '3' }).workers.count).toBe(3);
    expect(loadConfig({ DATABASE_URL: shared.DATABASE_URL }).workers.count).toBe(1);
    expect(loadConfig({}).workers.count).toBe(1);
  });

  it.each([
    [{ WORKERS: '0' }, /WORKERS: must be at least 1/],
    [{ WORKERS: 'many' }, /WORKERS: must be a whole number/],
    [{ WORKERS: '2' }, /WORKERS: 2 workers need DATABASE_URL \(PostgreSQL\): the embedded PGlite database/],
    [{ WORKERS: '2', DATABASE_URL: 'postgresql://db/remgraph' }, /WORKERS: 2 workers need REDIS_URL/],
  ])('refuses %j with a message saying why', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    [['--workers', '0'], {}, /WORKERS: must be at least 1/],
    [['--workers', 'two'], {}, /WORKERS: must be a whole number/],
    [['--workers'], {}, /argument missing/],
    [['--workers', '2'], {}, /need DATABASE_URL \(PostgreSQL\).*PGlite.*one process/],
    [['--workers', '2'], { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' }, /need REDIS_URL.*through the database log only/],
  ])('`serve %j` exits non-zero with a clear message (%j)', async (args, env, message) => {
    const { code, stderr } = await runCli(['serve', ...args], {
      DATA_DIR: 'memory://',
      DATABASE_URL: undefined,
      REDIS_URL: undefined,
      WORKERS: undefined,
      ...env,
    }).exit;
    expect(code).not.toBe(0);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\bat .*\(/);
  });
});

let fake: FakeOpenAI;
let server: ServerProcess | undefined;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake?.close();
});
afterEach(async () => {
  await server?.stop('SIGKILL');
  server = undefined;
  expect(fake.pending, 'every scripted model reply was used').toBe(0);
  fake.reset();
});

/**
 * A graphql-ws client on a connection of its own, and the pid of the worker that accepted it (NaN
 * when the connection failed: one handed to a worker just killed is reset).
 */
async function socket(url: string, user: Caller): Promise<{ client: Client; worker: number }> {
  let accepted!: (pid: number) => void;
  const worker = new Promise<number>((resolve) => (accepted = resolve));
  class Tracked extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      this.once('upgrade', (res) => accepted(Number(res.headers['x-remgraph-worker'])));
      this.once('close', () => accepted(NaN));
    }
  }
  const client = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: Tracked,
    connectionParams: user.headers,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
  });
  return { client, worker: await worker };
}

/** Opens connections until one lands on a worker `wanted` accepts (connections are handed to workers in turn). */
async function socketOn(url: string, user: Caller, wanted: (pid: number) => boolean, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await socket(url, user);
    if (wanted(s.worker)) return s;
    await s.client.dispose();
    if (Date.now() > deadline) throw new Error('no connection reached the wanted worker');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs a query or mutation over a socket (so on the worker that accepted it). */
async function over<T, V extends Record<string, unknown>>(client: Client, document: TypedDocumentNode<T, V>, variables: V): Promise<T> {
  const [result] = await collect(client, document, variables).done;
  expect(result?.errors).toBeUndefined();
  return result!.data!;
}

async function waitForStatus(user: Caller, turnId: string, status: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const turn = (await user.data(TurnTreeDocument, { id: turnId })).turn!;
    if (turn.status === status) return turn;
    if (Date.now() > deadline) throw new Error(`turn stayed ${turn.status}, expected ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Workers share the database and Redis, so this runs on the postgres backend with TEST_REDIS_URL only.
describe.runIf(databaseUrl() && REDIS_URL)('serve --workers 2 (PostgreSQL + Redis)', () => {
  it('serves on both workers, streams a turn of one to a subscriber of the other, and replaces a killed worker whose turn then resumes', async () => {
    server = await spawnServer(
      {
        DATABASE_URL: databaseUrl(),
        REDIS_URL: REDIS_URL!,
        OPENAI_API_KEY: 'test',
        OPENAI_BASE_URL: fake.url,
        LLM_DEFAULT_MODEL: 'openai:fake-model',
        SWEEP_INTERVAL_MS: '200',
      },
      180_000,
      'compiled',
      ['--workers', '2'],
    );
    const user = newUser(server.url);
    const a = await socketOn(server.url, user, (pid) => pid > 0);
    const b = await socketOn(server.url, user, (pid) => pid > 0 && pid !== a.worker);
    expect(server.output()).toContain(`"workers":[`);

    // Started on A (the worker that takes the mutation runs the turn), followed from B.
    fake.enqueue({ text: Array.from({ length: 30 }, (_, i) => `t${i} `), delayMs: 10 });
    const sent = await over(a.client, SendMessageDocument, { input: { content: 'stream across workers' } });
    if (sent.sendMessage.__typename !== 'SendMessagePayload') throw new Error(JSON.stringify(sent.sendMessage));
    const followed = (await collect(b.client, TurnEventsDocument, { turnId: sent.sendMessage.turn.id }).done).map((r) => r.data!.turnEvents);
    expect(followed.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    expectGapFreeSeqs(followed);

    // A turn of A pauses for approval; A is killed; a new worker replaces it; the decision resumes the turn.
    await registerAgent(user, GATED_AGENT);
    fake.enqueue({ toolCalls: [{ id: 'g', name: 'action', arguments: { type: 'survive' } }] });
    const gated = await over(a.client, SendMessageDocument, { input: { content: 'do it', agent: 'careful' } });
    if (gated.sendMessage.__typename !== 'SendMessagePayload') throw new Error(JSON.stringify(gated.sendMessage));
    const turnId = gated.sendMessage.turn.id;
    const paused = await waitForStatus(user, turnId, 'AWAITING_APPROVAL');
    await Promise.all([a.client.dispose(), b.client.dispose()]);
    process.kill(a.worker, 'SIGKILL');

    const replacement = await socketOn(server.url, user, (pid) => pid > 0 && pid !== a.worker && pid !== b.worker);
    expect(server.output()).toContain('worker died: starting a replacement');
    fake.enqueue({ text: 'Done after the worker died.' });
    const decided = await over(replacement.client, DecideApprovalDocument, { id: paused.approvals[0]!.id, approve: true });
    expect(decided.decideApproval.__typename).toBe('DecideApprovalSuccess');
    await replacement.client.dispose();

    const events = await followTurn(server.url, user, turnId);
    expect(shape(events)).toEqual(['tool_call', 'approval_needed', 'approval_result', 'resume', 'action', 'tool_result', 'content*', 'final']);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Done after the worker died.' });
    expectGapFreeSeqs(events);
    const logged = (await caller(server.url, user.headers).data(TurnDocument, { id: turnId })).turn!.events;
    expectGapFreeSeqs(logged);
    expect(logged).toHaveLength(events.length);
  }, 300_000);

  it('stops every worker on SIGTERM and exits 0', async () => {
    server = await spawnServer({ DATABASE_URL: databaseUrl(), REDIS_URL: REDIS_URL!, WORKERS: '2' }, 180_000, 'compiled');
    const pids = JSON.parse(/"workers":(\[[\d,]+\])/.exec(server.output())![1]!) as number[];
    expect(pids).toHaveLength(2);
    expect(await server.stop('SIGTERM'), server.output()).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  }, 240_000);
});

// A role that may hold 9 connections: 2 workers with the default pool (10, plus a liveness lock each)
// would need 22, and a burst of turns would fail with "too many connections for role".
describe.runIf(databaseUrl() && REDIS_URL)('serve --workers on a database that accepts few connections (PostgreSQL + Redis)', () => {
  const name = `remgraph_few_${process.pid}`;
  let admin: pg.Client;
  let url: string;
  const env = () => ({ DATABASE_URL: url, REDIS_URL: REDIS_URL!, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: fake.url, LLM_DEFAULT_MODEL: 'openai:fake-model' });

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: databaseUrl() });
    await admin.connect();
    const [{ user }] = (await admin.query<{ user: string }>('SELECT current_user AS user')).rows as [{ user: string }];
    await admin.query(`CREATE ROLE ${name} LOGIN CONNECTION LIMIT 9`);
    await admin.query(`CREATE DATABASE ${name}`);
    // The migrations need a superuser (extensions, roles); the role then uses what they created.
    await admin.query(`GRANT "${user}" TO ${name}`);
    const target = new URL(databaseUrl()!);
    target.pathname = `/${name}`;
    const migrated = await runCli(['migrate'], { DATABASE_URL: target.toString() }).exit;
    expect(migrated.code, migrated.stderr).toBe(0);
    target.username = name;
    url = target.toString();
  }, 120_000);

  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${name}`);
    await admin.end();
  });

  it('gives each worker a pool that fits, so a burst of turns completes', async () => {
    server = await spawnServer(env(), 180_000, 'compiled', ['--workers', '2']);
    expect(server.output()).toContain(
      "2 workers with the default pool of 10 hold up to 22 PostgreSQL connections (the pool and a liveness lock each), and the database accepts 9 more: each worker's pool holds 3",
    );
    const turns = 60;
    fake.enqueue(...Array.from({ length: turns }, () => ({ text: Array.from({ length: 10 }, (_, i) => `t${i} `), delayMs: 5 })));
    const statuses = await Promise.all(
      Array.from({ length: turns }, async () => {
        const user = newUser(server!.url);
        const sent = await send(user, { content: 'at once' });
        return (await followTurn(server!.url, user, sent.turn.id)).at(-1);
      }),
    );
    expect(statuses.filter((final) => final?.__typename !== 'FinalEvent' || final.status !== 'COMPLETED')).toEqual([]);
    expect(server.output()).not.toMatch(/too many connections/);
  }, 240_000);

  it('keeps a DATABASE_POOL_SIZE that was set, with a warning, and refuses workers that cannot each get two connections', async () => {
    server = await spawnServer({ ...env(), DATABASE_POOL_SIZE: '10' }, 180_000, 'compiled', ['--workers', '2']);
    expect(server.output()).toContain('under load, requests will fail with \\"too many connections\\"; set DATABASE_POOL_SIZE to 3 or less');
    await server.stop('SIGTERM');
    server = undefined;

    const { code, stderr } = await runCli(['serve', '--workers', '5'], env()).exit;
    expect(code).toBe(1);
    expect(stderr).toMatch(/WORKERS: 5 workers need at least 10 PostgreSQL connections .* the database accepts \d+ more: lower --workers/);
    expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  }, 240_000);
});
