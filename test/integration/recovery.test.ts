import { decodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { caller, newUser, type Caller } from '../support/client.js';
import { followTurn, GATED_AGENT, registerAgent, send, shape } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { tempDataDir } from '../support/server.js';
import { DecideApprovalDocument, TurnDocument, TurnTreeDocument } from '../generated/graphql.js';
import { databaseUrl } from '../support/database-url.js';

let fake: FakeOpenAI;
const running: ServerProcess[] = [];
/**
 * Kill-and-restart rounds of the crash test: each starts the server anew (seconds on PGlite).
 * CRASH_ROUNDS=20 makes a soak of it; a race on the restart path shows up in more rounds.
 */
const CRASH_ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake?.close();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop('SIGKILL')));
  expect(fake.pending, 'every scripted model reply was used').toBe(0);
  fake.reset();
});

async function database(): Promise<Record<string, string>> {
  const url = databaseUrl();
  return url ? { DATABASE_URL: url } : { DATA_DIR: await tempDataDir() };
}

async function start(env: Record<string, string>) {
  const server = await spawnServer({
    OPENAI_API_KEY: 'test',
    OPENAI_BASE_URL: fake.url,
    LLM_DEFAULT_MODEL: 'openai:fake-model',
    LLM_RETRY_BASE_MS: '1',
    SWEEP_INTERVAL_MS: '100',
    TURN_HEARTBEAT_MS: '200',
    ...env,
  });
  running.push(server);
  return server;
}

async function waitForStatus(user: Caller, turnId: string, status: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const turn = (await user.data(TurnTreeDocument, { id: turnId })).turn!;
    if (turn.status === status) return turn;
    if (Date.now() > deadline) throw new Error(`turn stayed ${turn.status}, expected ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function pausedTurn(server: ServerProcess) {
  const user = newUser(server.url);
  await registerAgent(user, GATED_AGENT);
  fake.enqueue({ toolCalls: [{ id: 'g', name: 'action', arguments: { type: 'survive' } }] });
  const sent = await send(user, { content: 'do it', agent: 'careful' });
  const turn = await waitForStatus(user, sent.turn.id, 'AWAITING_APPROVAL');
  return { user, sent, approvalId: turn.approvals[0]!.id };
}

/** The id a server process names itself by in the trees it holds (`turns.runner`), from its start-up log. */
function processIdOf(server: ServerProcess): string {
  return /"processId":"([^"]+)"/.exec(server.output())![1]!;
}

/** Writes to the database of stopped servers (`env` as given to them). */
async function withDatabase(env: Record<string, string>, work: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<unknown>) {
  const db = await openDatabase({ url: env.DATABASE_URL, dataDir: env.DATA_DIR ?? '', poolSize: 1 });
  try {
    await work(db);
  } finally {
    await db.close();
  }
}

describe('durability across processes', () => {
  it('accepts a decision after a full restart; the turn completes and the tool runs once', async () => {
    const env = await database();
    const first = await start(env);
    const { user, sent, approvalId } = await pausedTurn(first);
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = await start(env);
    const again = caller(second.url, user.headers);
    fake.enqueue({ text: 'Done after the restart.' });
    const decided = await again.data(DecideApprovalDocument, { id: approvalId, approve: true });
    expect(decided.decideApproval.__typename).toBe('DecideApprovalSuccess');
    const events = await followTurn(second.url, again, sent.turn.id);
    expect(shape(events)).toEqual(['tool_call', 'approval_needed', 'approval_result', 'resume', 'action', 'tool_result', 'content*', 'final']);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Done after the restart.' });
    const turn = (await again.data(TurnDocument, { id: sent.turn.id })).turn!;
    expect(turn.toolCallsLog).toHaveLength(1);
    expect(turn.events.filter((e) => e.__typename === 'ActionEvent')).toHaveLength(1);
  });

  it.runIf(databaseUrl())('lets another process sharing the database take the decision and resume', async () => {
    const env = await database();
    const a = await start(env);
    const b = await start(env);
    const { user, sent, approvalId } = await pausedTurn(a);
    const viaB = caller(b.url, user.headers);
    fake.enqueue({ text: 'Resumed on B.' });
    await viaB.data(DecideApprovalDocument, { id: approvalId, approve: true });
    const events = await followTurn(b.url, viaB, sent.turn.id);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Resumed on B.' });
  });

  it.runIf(databaseUrl())('streams a turn running on one process to a client of another without Redis, through the log', async () => {
    const env = await database();
    const a = await start(env);
    const b = await start(env);
    const user = newUser(a.url);
    fake.enqueue({ text: ['One ', 'word ', 'at ', 'a ', 'time.'], delayMs: 150 });
    const sent = await send(user, { content: 'slowly please' });
    const events = await followTurn(b.url, caller(b.url, user.headers), sent.turn.id);
    expect(shape(events)).toEqual(['content*', 'final']);
    expect(events.map((e) => (e as { seq: number }).seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'One word at a time.' });
  });

  it('applies the default decision to an approval that expired while the server was down', async () => {
    const env = { ...(await database()), APPROVAL_TTL_MS: '400', APPROVAL_DEFAULT_DECISION: 'reject' };
    // The first server never sweeps after start-up, so the approval cannot expire before it stops.
    const first = await start({ ...env, SWEEP_INTERVAL_MS: '600000' });
    const { user, sent } = await pausedTurn(first);
    await first.stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 600));

    fake.enqueue({ text: 'The approval expired, so I did nothing.' });
    const second = await start(env);
    const again = caller(second.url, user.headers);
    const turn = await waitForStatus(again, sent.turn.id, 'COMPLETED');
    expect(turn.approvals[0]).toMatchObject({ status: 'EXPIRED', approved: false, reason: 'Expired; default decision: reject' });
    const events = await followTurn(second.url, again, sent.turn.id);
    expect(shape(events)).toEqual(['tool_call', 'approval_needed', 'approval_result', 'tool_result', 'content*', 'final']);
  });

  it(`resumes a decision taken right after a crash at once: a killed holder is known to be gone (${CRASH_ROUNDS} rounds)`, async () => {
    // Heartbeats ten minutes apart: no tree is given up on for its holder's silence within this
    // test, so each round resumes only because the killed holder is known to be gone.
    const env = { ...(await database()), TURN_HEARTBEAT_MS: '600000' };
    let server = await start(env);
    let user = newUser(server.url);
    await registerAgent(user, GATED_AGENT);
    for (let round = 1; round <= CRASH_ROUNDS; round++) {
      fake.enqueue({ toolCalls: [{ id: `g${round}`, name: 'action', arguments: { type: 'survive' } }] });
      const sent = await send(user, { content: `round ${round}`, agent: 'careful' });
      const paused = await waitForStatus(user, sent.turn.id, 'AWAITING_APPROVAL');
      const dead = processIdOf(server);
      await server.stop('SIGKILL');
      // As if it was killed a moment sooner, before letting go of the paused tree: the tree's row
      // names the killed process as its holder, with a fresh heartbeat.
      await withDatabase(env, (db) =>
        db.prisma.turn.update({ where: { id: decodeGlobalID(sent.turn.id).id }, data: { runner: dead, heartbeatAt: new Date() } }),
      );

      server = await start(env);
      user = caller(server.url, user.headers);
      fake.enqueue({ text: `Done in round ${round}.` });
      const decided = await user.data(DecideApprovalDocument, { id: paused.approvals[0]!.id, approve: true });
      expect(decided.decideApproval.__typename).toBe('DecideApprovalSuccess');
      const events = await followTurn(server.url, user, sent.turn.id);
      expect(shape(events)).toEqual(['tool_call', 'approval_needed', 'approval_result', 'resume', 'action', 'tool_result', 'content*', 'final']);
      expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: `Done in round ${round}.` });
    }
  }, 900_000);

  it('marks a turn whose server died INTERRUPTED and completes late subscribers’ streams', async () => {
    const env = await database();
    const first = await start(env);
    const user = newUser(first.url);
    fake.enqueue({ text: ['Half ', 'an ', 'answer'], stallAfterChunks: 2 });
    const sent = await send(user, { content: 'long answer please' });
    // Killed mid-answer: once the model is streaming (a turn's start may take a while on a busy machine).
    await fake.waitForRequests(1, 60_000, 'chat/completions');
    await new Promise((r) => setTimeout(r, 300));
    await first.stop('SIGKILL');

    const second = await start(env);
    const again = caller(second.url, user.headers);
    const turn = await waitForStatus(again, sent.turn.id, 'INTERRUPTED');
    expect(turn.status).toBe('INTERRUPTED');
    const events = await followTurn(second.url, again, sent.turn.id);
    expect(shape(events).slice(-2)).toEqual(['error', 'final']);
    expect(events.at(-2)).toMatchObject({ code: 'INTERRUPTED' });
    expect(events.at(-1)).toMatchObject({ status: 'INTERRUPTED' });
    expect(events.map((e) => (e as { seq: number }).seq)).toEqual(events.map((_, i) => i + 1));
  });
});
