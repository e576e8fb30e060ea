/**
 * Dreaming: a background job that consolidates a user's recent conversations into REM memory.
 * For each session with messages it has not dreamed over yet, the built-in `dreaming` agent reads
 * that range of the conversation and answers (structured output) with moments, entities and
 * edges; they are written as the user's own rows, recording the job as their source, in the same
 * transaction that marks the range as dreamed, so each range is consolidated once.
 */
import { userContext, type AgentContext } from '../auth/agent-context.js';
import type { Config } from '../config/config.js';
import { ownedBy } from '../auth/scope.js';
import type { Job, Message, Prisma } from '../db/generated/client.js';
import { runDetached } from '../engine/detached-run.js';
import type { EngineDeps } from '../engine/engine-deps.js';
import { NotFoundError } from '../errors.js';
import { ACTIVE_STATUSES_SQL } from '../events/turn-status-sql.js';
import { JobReleased } from '../jobs/job-worker.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { normalizeKey } from '../rem/keys.js';
import { ingest } from '../rem/memory/ingest.js';
import type { MemoryItemInput } from '../rem/memory/inputs.js';
import type { MemoryDeps } from '../rem/memory/kinds.js';
import { mergeEdges } from '../rem/save-memory.js';
import { compactSession, type Compaction } from './compact.js';

export const DREAM_JOB = 'dream';

export type DreamDeps = Pick<EngineDeps, 'prisma' | 'agents' | 'models' | 'tools' | 'logger' | 'settings'> &
  Pick<Config['workflow'], 'compactKeepMessages'> & { memory: MemoryDeps; agentName: string };

/** Most sessions one job consolidates; the rest wait for the next run. */
const SESSIONS_PER_JOB = 20;
/** Most transcript characters the agent reads per session range (a longer range is split over runs). */
const TRANSCRIPT_CHARS = 16_000;
const MESSAGE_CHARS = 2_000;

/** Queues a dream over the caller's sessions (or one of them); one open dream per user and scope. */
export async function requestDream(deps: { prisma: EngineDeps['prisma']; queue: JobQueue }, ctx: AgentContext, sessionId?: string | null): Promise<Job> {
  if (ctx.userId === null) throw new NotFoundError('Session');
  if (sessionId && !(await deps.prisma.session.findFirst({ where: { id: sessionId, ...ownedBy({ ...ctx, isAdmin: false }) }, select: { id: true } }))) {
    throw new NotFoundError('Session');
  }
  return deps.queue.enqueue({
    kind: DREAM_JOB,
    tenantId: ctx.tenantId,
    userId: ctx.userId,
    payload: sessionId ? { sessionId } : {},
    dedupeKey: `dream:${ctx.tenantId}:${ctx.userId}:${sessionId ?? '*'}`,
  });
}

/** Queues a dream for every user with conversation not yet dreamed over (the schedule). */
export async function scheduleDreams(deps: { prisma: EngineDeps['prisma']; queue: JobQueue }, limit = 100): Promise<number> {
  const users = await deps.prisma.$queryRaw<{ tenant_id: string; user_id: string }[]>`
    SELECT DISTINCT s.tenant_id, s.user_id FROM sessions s
    WHERE s.user_id IS NOT NULL AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.seq > s.dreamed_seq)
    LIMIT ${limit}`;
  for (const u of users) {
    await deps.queue.enqueue({ kind: DREAM_JOB, tenantId: u.tenant_id, userId: u.user_id, payload: {}, dedupeKey: `dream:${u.tenant_id}:${u.user_id}:*` });
  }
  return users.length;
}

interface DreamOutput {
  moments: { key: string; summary: string; topic_tags?: string[]; entity_keys?: string[] }[];
  entities: { key: string; name: string; entity_type: string; summary?: string }[];
  edges: { src: string; dst: string; rel_type: string; weight?: number }[];
}

export interface DreamedRange {
  sessionId: string;
  fromSeq: number;
  toSeq: number;
  moments: string[];
  entities: string[];
  edges: number;
  /** What compacting the session afterwards did, when it compacted anything. */
  compacted?: Compaction;
}

/**
 * The job: consolidates each of the user's sessions with undreamed messages (and no turn running),
 * then compacts its old answers (compact.ts) against the moments it has now.
 */
export function dreamHandler(deps: DreamDeps) {
  return async (job: Job, signal: AbortSignal): Promise<{ sessions: DreamedRange[] }> => {
    const ctx = jobContext(job);
    const only = (job.payload as { sessionId?: string }).sessionId ?? null;
    const sessions = await deps.prisma.$queryRaw<{ id: string; name: string; dreamed_seq: number; is_eval: boolean }[]>`
      SELECT s.id, s.name, s.dreamed_seq, s.is_eval FROM sessions s
      WHERE s.tenant_id = ${job.tenantId} AND s.user_id = ${job.userId} AND (${only}::uuid IS NULL OR s.id = ${only}::uuid)
        AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.seq > s.dreamed_seq)
        AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND t.status IN ${ACTIVE_STATUSES_SQL})
      ORDER BY s.created_at LIMIT ${SESSIONS_PER_JOB}`;
    const done: DreamedRange[] = [];
    for (const session of sessions) {
      if (signal.aborted) throw new JobReleased();
      const dreamed = await dreamSession(deps, ctx, job.id, session);
      const owner = { id: session.id, name: session.name, tenantId: job.tenantId, userId: job.userId, isEval: session.is_eval };
      const compacted = await compactSession(deps, ctx, job.id, owner, deps.compactKeepMessages);
      done.push({ ...dreamed, ...(compacted && { compacted }) });
    }
    return { sessions: done };
  };
}

async function dreamSession(
  deps: DreamDeps,
  ctx: AgentContext,
  jobId: string,
  session: { id: string; name: string; dreamed_seq: number },
): Promise<DreamedRange> {
  const messages = await deps.prisma.message.findMany({
    where: { sessionId: session.id, seq: { gt: session.dreamed_seq } },
    orderBy: { seq: 'asc' },
    take: 500,
  });
  const { transcript, upTo } = transcriptOf(messages);
  const range = { sessionId: session.id, fromSeq: session.dreamed_seq, toSeq: upTo.seq };
  const advance = async (tx: Prisma.TransactionClient) => {
    const moved = await tx.$executeRaw`UPDATE sessions SET dreamed_seq = ${range.toSeq} WHERE id = ${session.id}::uuid AND dreamed_seq = ${range.fromSeq}`;
    if (moved === 0) throw new Error(`session ${session.id} was dreamed over meanwhile`);
  };
  if (!transcript) {
    // Only tool rows: nothing to remember, but the range is done.
    await deps.prisma.$transaction(advance);
    return { ...range, moments: [], entities: [], edges: 0 };
  }
  const agent = await deps.agents.load(ctx, deps.agentName);
  const first = messages[0]!;
  const content = [
    `Session "${session.name}" (${session.id}), messages ${range.fromSeq + 1} to ${range.toSeq},`,
    `from ${first.createdAt.toISOString()} to ${upTo.createdAt.toISOString()}:`,
    '',
    transcript,
  ].join('\n');
  const { output } = await runDetached(deps, { agent, ctx, content, jobId, callType: 'dreaming' });
  const dream = output as unknown as DreamOutput;
  const items = await memoryItems(deps, ctx, dream, { startsAt: first.createdAt, endsAt: upTo.createdAt, ...range });
  await ingest(deps.memory, ctx, items, { source: { jobId }, afterWrite: advance });
  return {
    ...range,
    moments: items.flatMap((i) => (i.moment ? [normalizeKey(i.moment.key)] : [])),
    entities: items.flatMap((i) => (i.entity ? [normalizeKey(i.entity.key)] : [])),
    edges: items.reduce((n, i) => n + ((i.entity ?? i.moment)?.graphEdges?.length ?? 0), 0),
  };
}

/** The user and assistant messages as a transcript within the budget, and the last message it covers. */
function transcriptOf(messages: Message[]): { transcript: string; upTo: Message } {
  const lines: string[] = [];
  let used = 0;
  let upTo = messages[0]!;
  for (const m of messages) {
    if ((m.type === 'user' || m.type === 'assistant') && m.content) {
      const line = `${m.type}: ${m.content.length > MESSAGE_CHARS ? `${m.content.slice(0, MESSAGE_CHARS)}…` : m.content}`;
      if (used + line.length > TRANSCRIPT_CHARS && lines.length) break;
      lines.push(line);
      used += line.length;
    }
    upTo = m;
  }
  return { transcript: lines.join('\n'), upTo };
}

/**
 * The agent's answer as memory rows: entities, and moments linked to the session and (by
 * `involves` edges) to their participants; edges from a key of this answer are added to that row,
 * keeping the edges it already has.
 */
async function memoryItems(
  deps: DreamDeps,
  ctx: AgentContext,
  dream: DreamOutput,
  span: { sessionId: string; startsAt: Date; endsAt: Date; fromSeq: number; toSeq: number },
): Promise<MemoryItemInput[]> {
  const owner = ownedBy({ ...ctx, isAdmin: false });
  const entityKeys = dream.entities.map((e) => normalizeKey(e.key));
  const momentKeys = dream.moments.map((m) => normalizeKey(m.key));
  const [storedEntities, storedMoments] = await Promise.all([
    deps.prisma.entity.findMany({ where: { key: { in: entityKeys }, ...owner }, select: { key: true, graphEdges: true } }),
    deps.prisma.moment.findMany({ where: { key: { in: momentKeys }, ...owner }, select: { key: true, graphEdges: true } }),
  ]);
  const edgesFrom = (key: string) => dream.edges.filter((e) => normalizeKey(e.src) === key);
  const entities = dream.entities.map((e, i): MemoryItemInput => {
    const added = edgesFrom(entityKeys[i]!);
    const stored = storedEntities.find((s) => s.key === entityKeys[i]);
    return {
      entity: {
        key: e.key,
        name: e.name,
        entityType: e.entity_type,
        ...(e.summary && { summary: e.summary }),
        ...(added.length && { graphEdges: mergeEdges(stored?.graphEdges, added) }),
      },
    };
  });
  const moments = dream.moments.map((m, i): MemoryItemInput => {
    const participants = (m.entity_keys ?? []).map(normalizeKey).filter(Boolean);
    const added = [...participants.map((dst) => ({ dst, rel_type: 'involves' })), ...edgesFrom(momentKeys[i]!)];
    const stored = storedMoments.find((s) => s.key === momentKeys[i]);
    return {
      moment: {
        key: m.key,
        summary: m.summary,
        momentType: 'conversation',
        startsAt: span.startsAt,
        endsAt: span.endsAt,
        sessionId: span.sessionId,
        tags: m.topic_tags ?? [],
        metadata: { participants, messages: { from: span.fromSeq + 1, to: span.toSeq } },
        graphEdges: mergeEdges(stored?.graphEdges, added),
      },
    };
  });
  return [...entities, ...moments];
}

/** Whom a job works for: its user, never an admin, whatever the job says. */
function jobContext(job: Pick<Job, 'tenantId' | 'userId'>): AgentContext {
  return userContext(job.tenantId, job.userId);
}
