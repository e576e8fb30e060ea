import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { followTurn, registerAgent, send, useAgentServer } from '../support/agents.js';
import { explainAnalyzed, type StatementReads } from '../support/explain.js';
import { backend } from '../support/server.js';
import { Prisma, type PrismaClient } from '../../src/db/generated/client.js';
import { embeddedLiveness } from '../../src/db/process-liveness.js';
import { dropEphemeral } from '../../src/engine/ephemeral-turns.js';
import { staleBefore, unfinishedRoots } from '../../src/engine/recovery.js';
import { TreeLease } from '../../src/engine/tree-lease.js';
import { forgetExpiredRequests } from '../../src/turns/turn-requests.js';

/**
 * A turn's cost does not grow with its user's history (issue 41, the soak): every statement a new
 * session's turn runs, plain or with a tool call, and every statement of the maintenance sweep,
 * reads as many rows, and about as many buffers, for a user with 10,000 sessions behind them as for
 * one with 1,000 (both enough for every index to be as deep). The history is seeded as a soak leaves
 * it: each session a finished turn with a child, their messages, event logs, model calls and a
 * decided approval; each turn stored RUNNING and then ended, so that the indexes on a turn's status
 * hold the entries an ended turn leaves behind until a vacuum. Then the housekeeping runs that the
 * server's sweep runs on PGlite (which has no autovacuum); on PostgreSQL the test vacuums, standing
 * in for autovacuum.
 */
const FEW = 1_000;
const MANY = 10_000;
// A B-tree one level deeper, and the heap pages a newer run of rows sits on, cost a few buffers more.
const BUFFER_SLACK = 8;

interface Seen {
  text: string;
  reads: StatementReads;
}
let capturing: Seen[] | null = null;

const env = useAgentServer(
  { SWEEP_INTERVAL_MS: '3600000', TURN_HEARTBEAT_MS: '3600000', JOB_POLL_MS: '3600000', EVENT_FLUSH_MS: '5000', MAX_TURNS_PER_MINUTE: '100000' },
  {
    beforeStatement: async (text, params) => {
      if (capturing) capturing.push({ text, reads: await explainAnalyzed(env.server.db.prisma, text, params) });
    },
  },
);

const TOOL_AGENT = 'name: helper\ndescription: You help.\ntools:\n  - name: register_metadata\n';

/** A user (in a tenant of their own) with `sessions` sessions behind them, seeded in SQL. */
async function userWith(sessions: number): Promise<Caller> {
  const user = newUser(env.server.url);
  await registerAgent(user, TOOL_AGENT);
  const tenant = user.headers['x-tenant-id']!;
  const owner = user.headers['x-user-id']!;
  const { prisma } = env.server.db;
  await prisma.$executeRaw`
    WITH s AS (
      INSERT INTO sessions (name, tenant_id, user_id, agent, created_at, updated_at)
      SELECT 'Session ' || g, ${tenant}, ${owner}, 'general', now() - interval '2 days' + g * interval '1 second', now() - interval '2 days' + g * interval '1 second'
      FROM generate_series(1, ${sessions}::int) AS g RETURNING id, created_at
    ), t AS (
      INSERT INTO turns (root_id, session_id, agent, agent_path, status, tenant_id, user_id, started_at, tool_calls_log)
      SELECT gen_random_uuid(), id, 'general', ARRAY['general'], 'RUNNING', ${tenant}, ${owner}, created_at, '[{"name":"action"}]'
      FROM s RETURNING id, session_id, started_at
    )
    UPDATE turns SET root_id = t.id FROM t WHERE turns.id = t.id`;
  await prisma.$executeRaw`
    INSERT INTO turns (session_id, parent_id, root_id, agent, agent_path, depth, status, tenant_id, user_id, started_at)
    SELECT session_id, id, id, 'helper', ARRAY['general', 'helper'], 1, 'RUNNING', tenant_id, user_id, started_at
    FROM turns WHERE tenant_id = ${tenant} AND parent_id IS NULL`;
  await prisma.$executeRaw`
    INSERT INTO messages (session_id, seq, type, content, tool_calls, tool_call_id, tool_name, turn_id, tenant_id, user_id, created_at)
    SELECT t.session_id, m.seq, m.type::"MessageType", m.content, m.calls::jsonb, m.call_id, m.tool, t.id, t.tenant_id, t.user_id, t.started_at
    FROM turns t CROSS JOIN (VALUES
      (1, 'user', 'Please act', NULL, NULL, NULL),
      (2, 'assistant', NULL, '[{"id":"c1","type":"function","function":{"name":"action","arguments":"{}"}}]', NULL, NULL),
      (3, 'tool_response', 'done', NULL, 'c1', 'action'),
      (4, 'assistant', 'Done.', NULL, NULL, NULL)) AS m(seq, type, content, calls, call_id, tool)
    WHERE t.tenant_id = ${tenant} AND t.parent_id IS NULL`;
  await prisma.$executeRaw`
    INSERT INTO turn_events (turn_id, seq, last_seq, events)
    SELECT id, 1, 6, '[{"type":"content","delta":"Done."}]' FROM turns WHERE tenant_id = ${tenant}`;
  await prisma.$executeRaw`
    INSERT INTO llm_calls (turn_id, session_id, provider, model, tenant_id, user_id, created_at)
    SELECT id, session_id, 'openai', 'fake-model', tenant_id, user_id, started_at FROM turns WHERE tenant_id = ${tenant}`;
  await prisma.$executeRaw`
    INSERT INTO approvals (turn_id, session_id, tool_name, arguments, tool_call_id, agent_path, tenant_id, user_id, created_at)
    SELECT id, session_id, 'action', '{}', 'c1', agent_path, tenant_id, user_id, started_at FROM turns WHERE tenant_id = ${tenant} AND parent_id IS NULL`;
  await prisma.$executeRaw`
    UPDATE approvals SET status = 'APPROVED', approved = true, decided_at = created_at, announced_at = created_at WHERE tenant_id = ${tenant}`;
  await prisma.$executeRaw`
    UPDATE turns SET status = 'COMPLETED', finished_at = started_at + interval '1 second', last_seq = 6 WHERE tenant_id = ${tenant}`;
  if (backend() === 'pglite') await env.server.db.tidy!();
  else {
    await prisma.$executeRawUnsafe('VACUUM turns, approvals');
    // Thousands of turns made RUNNING at once leave the running-turn indexes many pages that VACUUM
    // empties but keeps; in the suite's shared database that bloat made the planner prefer scanning a
    // whole session's turns in other files' tests (session-length's busy-session check). A server's
    // turns end one at a time, so their pages are reused instead.
    await prisma.$executeRawUnsafe('REINDEX INDEX turns_one_active_per_session_custom');
    await prisma.$executeRawUnsafe('REINDEX INDEX turns_running_by_caller_custom');
  }
  await prisma.$executeRawUnsafe('ANALYZE sessions, turns, messages, turn_events, llm_calls, approvals');
  return user;
}

/** The statements of one turn in a new session of the user's, with what each read. */
async function turnOf(user: Caller, withTool: boolean): Promise<Seen[]> {
  if (withTool) env.fake.enqueue({ toolCalls: [{ id: 'm1', name: 'register_metadata', arguments: { confidence: 0.9, notes: 'soak' } }] }, { text: 'Noted.' });
  else env.fake.enqueue({ text: 'An answer.' });
  // quota_starts holds every user's starts of the last minute, not this user's history: the turns
  // measured later would also read the earlier ones'.
  await env.server.db.prisma.$executeRaw`DELETE FROM quota_starts`;
  capturing = [];
  try {
    const sent = await send(user, { content: 'Hello again', agent: withTool ? 'helper' : undefined });
    const events = await followTurn(env.server.url, user, sent.turn.id, 0);
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    return capturing;
  } finally {
    capturing = null;
  }
}

/** A Prisma client that explains each raw statement (as the server's own `sql` is, above) before it runs. */
function explaining(prisma: PrismaClient, seen: Seen[]): PrismaClient {
  return prisma.$extends({
    query: {
      async $allOperations({ operation, args, query }) {
        if (operation === '$queryRaw' || operation === '$executeRaw') {
          const raw = args as unknown as Prisma.Sql | [readonly string[], ...unknown[]];
          const statement = Array.isArray(raw) ? Prisma.sql(raw[0], ...raw.slice(1)) : Prisma.sql(raw.strings, ...raw.values);
          seen.push({ text: statement.text, reads: await explainAnalyzed(prisma, statement.text, statement.values) });
        }
        return query(args);
      },
    },
  }) as unknown as PrismaClient;
}

/** The statements of the maintenance sweep's reads over every turn (supervisor.ts, services.ts), with what each read. */
async function sweep(): Promise<Seen[]> {
  const seen: Seen[] = [];
  const prisma = explaining(env.server.db.prisma, seen);
  await new TreeLease(prisma, 'test-sweep', embeddedLiveness('test-sweep')).orphans(staleBefore(60_000));
  await unfinishedRoots(prisma);
  await dropEphemeral(prisma, { endedBefore: new Date(Date.now() - 60_000) });
  await forgetExpiredRequests({
    query: async (text, params) => {
      seen.push({ text, reads: await explainAnalyzed(env.server.db.prisma, text, params ?? []) });
      return env.server.db.sql.query(text, params);
    },
  });
  return seen;
}

const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 120);

function expectNoGrowth(few: Seen[], many: Seen[]) {
  expect(many.map((s) => squash(s.text))).toEqual(few.map((s) => squash(s.text)));
  expect(many.length).toBeGreaterThan(0);
  for (const [i, statement] of many.entries()) {
    const before = few[i]!.reads;
    const report = `${squash(statement.text)}\nwith ${FEW} sessions: ${before.rowsRead} rows (${JSON.stringify(before.rowsByTable)}), ${before.buffers} buffers\n${before.shape}\nwith ${MANY} sessions: ${statement.reads.rowsRead} rows (${JSON.stringify(statement.reads.rowsByTable)}), ${statement.reads.buffers} buffers\n${statement.reads.shape}`;
    expect(statement.reads.rowsRead, report).toBeLessThanOrEqual(before.rowsRead);
    expect(statement.reads.buffers, report).toBeLessThanOrEqual(before.buffers + BUFFER_SLACK);
  }
}

describe("a turn in a new session, as the user's history grows", () => {
  it(`runs statements that read no more for a user with ${MANY} sessions than for one with ${FEW}`, async () => {
    // The second user is seeded after the first one's turns are measured: a statement that reads
    // every user's rows grows too, as it does in a soak of one user.
    const few = await userWith(FEW);
    const measure = async (user: Caller) => {
      // Once each first, so that both measured turns find the same warm caches and statistics.
      await turnOf(user, false);
      await turnOf(user, true);
      return { plain: await turnOf(user, false), tool: await turnOf(user, true), sweep: await sweep() };
    };
    const withFew = await measure(few);
    const withMany = await measure(await userWith(MANY));
    expectNoGrowth(withFew.plain, withMany.plain);
    expectNoGrowth(withFew.tool, withMany.tool);
    expectNoGrowth(withFew.sweep, withMany.sweep);
  });
});
