/**
 * p8's compaction, run by the dream job once it has consolidated a session: each assistant answer
 * older than the session's recent window gets a breadcrumb to the moment covering it,
 * `[Earlier: <the answer's opening> → REM LOOKUP <moment key>]`, stored with the message
 * (`metadata.compaction.breadcrumb`) and sent to the model in its place (engine/stored-context.ts).
 * The answer itself is never changed. A run of old messages that no moment covers gets a moment of
 * its own, whose content is that run's transcript, so looking its key up gives the answers back.
 * Each compaction is recorded as a `memory` message, which later turns see as a system message.
 */
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy } from '../auth/scope.js';
import type { Prisma, Session } from '../db/generated/client.js';
import { normalizeKey } from '../rem/keys.js';
import { ingest } from '../rem/memory/ingest.js';
import type { MemoryItemInput } from '../rem/memory/inputs.js';
import type { MemoryDeps } from '../rem/memory/kinds.js';
import { appendMessages } from '../sessions/messages.js';

/** An answer no longer than this stays whole: its breadcrumb would cost as much as it saves. */
const PREVIEW_CHARS = 160;
/** Most transcript characters of one moment compaction writes (a longer uncovered run gets several). */
const WINDOW_CHARS = 16_000;
/** Most of a session's newest user and assistant messages one compaction reads. */
const SCAN = 2_000;

export interface CompactDeps {
  prisma: MemoryDeps['prisma'];
  memory: MemoryDeps;
}

/** What one compaction did (part of the dream job's result). */
export interface Compaction {
  /** The positions of the answers that got a breadcrumb. */
  answers: number[];
  /** The keys of the moments it wrote for runs no moment covered. */
  moments: string[];
  /** The position of the `memory` message recording it. */
  memorySeq: number;
}

interface Row {
  seq: number;
  type: 'user' | 'assistant';
  content: string;
  createdAt: Date;
  compacted: boolean;
}

/** A moment's stretch of the conversation, as dreaming and compaction record it (`metadata.messages`). */
interface Span {
  key: string;
  name: string | null;
  summary: string | null;
  from: number;
  to: number;
}

/**
 * Compacts the answers of `session` older than its newest `keep` user and assistant messages
 * (null when there was none to compact), in one transaction with the moments it writes.
 */
export async function compactSession(
  deps: CompactDeps,
  ctx: AgentContext,
  jobId: string,
  session: Pick<Session, 'id' | 'name' | 'tenantId' | 'userId' | 'isEval'>,
  keep: number,
): Promise<Compaction | null> {
  if (keep === 0) return null;
  const newestFirst = await deps.prisma.message.findMany({
    where: { sessionId: session.id, type: { in: ['user', 'assistant'] }, content: { not: null } },
    select: { seq: true, type: true, content: true, createdAt: true, metadata: true },
    orderBy: { seq: 'desc' },
    take: SCAN,
  });
  const older = newestFirst
    .slice(keep)
    .reverse()
    .map((m): Row => ({ seq: m.seq, type: m.type as Row['type'], content: m.content!, createdAt: m.createdAt, compacted: isCompacted(m.metadata) }));
  const due = older.filter((row) => row.type === 'assistant' && !row.compacted && row.content.length > PREVIEW_CHARS);
  if (!due.length) return null;

  const spans = await momentSpans(deps, ctx, session.id);
  const written = uncoveredRuns(older, spans)
    .filter((run) => run.some((row) => due.includes(row)))
    .map((run) => windowMoment(session, run));
  const all = [...spans, ...written.map((w) => w.span)];
  const crumbs = due.map((row) => ({ seq: row.seq, moment: covering(all, row.seq)! }));
  const used = all.filter((span) => crumbs.some((c) => c.moment === span));

  let memorySeq = 0;
  const record = async (tx: Prisma.TransactionClient) => {
    const compaction = crumbs.map((c) => ({
      seq: c.seq,
      compaction: { moment: c.moment.key, breadcrumb: breadcrumb(older.find((r) => r.seq === c.seq)!.content, c.moment.key) },
    }));
    await tx.$executeRaw`
      UPDATE messages m SET metadata = m.metadata || jsonb_build_object('compaction', c.compaction)
      FROM jsonb_to_recordset(${JSON.stringify(compaction)}::jsonb) AS c(seq int, compaction jsonb)
      WHERE m.session_id = ${session.id}::uuid AND m.seq = c.seq`;
    const [memory] = await appendMessages(tx, session, [
      {
        type: 'memory',
        content: memoryNote(crumbs, used),
        agentName: null,
        metadata: { compacted: { answers: crumbs.map((c) => c.seq), moments: used.map((s) => s.key) } },
        isEval: session.isEval,
      },
    ]);
    memorySeq = memory!.seq;
  };
  if (written.length)
    await ingest(
      deps.memory,
      ctx,
      written.map((w) => w.item),
      { source: { jobId }, afterWrite: record },
    );
  else await deps.prisma.$transaction(record);
  return { answers: crumbs.map((c) => c.seq), moments: written.map((w) => w.span.key), memorySeq };
}

/** What the model sees instead of an old answer: its opening and the moment to look up for the rest. */
function breadcrumb(answer: string, momentKey: string): string {
  const flat = answer.replace(/\s+/g, ' ').trim();
  const preview = flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS).trimEnd()}…` : flat;
  return `[Earlier: ${preview} → REM LOOKUP ${momentKey}]`;
}

function isCompacted(metadata: Prisma.JsonValue): boolean {
  return typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) && 'compaction' in metadata;
}

/** The caller's moments of the session that say which messages they cover. */
async function momentSpans(deps: CompactDeps, ctx: AgentContext, sessionId: string): Promise<Span[]> {
  const moments = await deps.prisma.moment.findMany({
    where: { sessionId, ...ownedBy({ ...ctx, isAdmin: false }) },
    select: { key: true, name: true, summary: true, metadata: true },
    orderBy: { createdAt: 'asc' },
  });
  return moments.flatMap((m) => {
    const range = (m.metadata as { messages?: { from?: unknown; to?: unknown } } | null)?.messages;
    const [from, to] = [range?.from, range?.to];
    return typeof from === 'number' && typeof to === 'number' ? [{ key: m.key, name: m.name, summary: m.summary, from, to }] : [];
  });
}

/** The narrowest span holding `seq`. */
function covering(spans: Span[], seq: number): Span | undefined {
  return spans.filter((s) => s.from <= seq && seq <= s.to).sort((a, b) => a.to - a.from - (b.to - b.from))[0];
}

/** Runs of consecutive rows no moment covers, each at most WINDOW_CHARS of transcript (a longer message alone). */
function uncoveredRuns(rows: Row[], spans: Span[]): Row[][] {
  const runs: Row[][] = [];
  let run: Row[] = [];
  let chars = 0;
  const close = () => {
    if (run.length) runs.push(run);
    run = [];
    chars = 0;
  };
  for (const row of rows) {
    if (covering(spans, row.seq)) {
      close();
      continue;
    }
    if (run.length && chars + row.content.length > WINDOW_CHARS) close();
    run.push(row);
    chars += row.content.length;
  }
  close();
  return runs;
}

/** The moment of a run of messages: what the user asked as its summary, the transcript as its content. */
function windowMoment(session: Pick<Session, 'id' | 'name'>, run: Row[]): { span: Span; item: MemoryItemInput } {
  const first = run[0]!;
  const last = run.at(-1)!;
  const key = normalizeKey(`session-${session.id}-messages-${first.seq}-${last.seq}`);
  const name = `Messages ${first.seq} to ${last.seq} of "${session.name.slice(0, 200)}"`;
  const asked = run.filter((r) => r.type === 'user').map((r) => r.content.replace(/\s+/g, ' ').trim());
  const summary = asked.length ? `Asked: ${asked.join(' / ')}`.slice(0, 1000) : `Answers at messages ${first.seq} to ${last.seq}.`;
  return {
    span: { key, name, summary, from: first.seq, to: last.seq },
    item: {
      moment: {
        key,
        name,
        summary,
        content: run.map((r) => `${r.type}: ${r.content}`).join('\n'),
        momentType: 'session_chunk',
        startsAt: first.createdAt,
        endsAt: last.createdAt,
        sessionId: session.id,
        tags: ['compaction'],
        metadata: { messages: { from: first.seq, to: last.seq } },
      },
    },
  };
}

/** The `memory` message: which answers were compacted, and the moments that hold them. */
function memoryNote(crumbs: { seq: number }[], moments: Span[]): string {
  const lines = moments.map((m) => `- ${m.name ?? m.key}: ${(m.summary ?? '').trim()} [REM LOOKUP "${m.key}"]`);
  return [`[Memory: earlier answers (messages ${crumbs.map((c) => c.seq).join(', ')}) compacted into moments]`, ...lines].join('\n');
}
