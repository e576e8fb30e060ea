import { randomUUID } from 'node:crypto';
import type { AgentContext } from '../auth/agent-context.js';
import { Prisma, type Message, type PrismaClient, type Session, type Turn } from '../db/generated/client.js';
import type { UsageTotals } from '../events/agent-event.js';
import { finalEvents } from '../events/event-log.js';
import { storable } from '../events/storable.js';
import { ACTIVE_STATUSES_SQL } from '../events/turn-status-sql.js';
import type { TerminalStatus } from '../events/turn-status.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { ResolvedAgent } from '../agents/registry.js';
import type { RoutedBy } from '../db/generated/enums.js';
import { UNNAMED_SESSION } from '../sessions/sessions.js';
import type { SqlClient } from '../db/sql-client.js';
import type { TurnWrites } from '../events/event-statements.js';
import { emptyUsage, type PendingCall, type Resolution, type RunState } from './run-state.js';
import { storedContextColumns, storedContextOf, type StoredContext, type StoredContextRow } from './stored-context.js';
import type { Admission, AdmissionFigures } from './quota.js';
import { insertMessagesCte, insertSessionCte, messageRow, newSession } from '../sessions/rows.js';

/** OpenTelemetry ids of the run that writes (nulls while tracing is off). */
export interface SpanIds {
  traceId: string | null;
  spanId: string | null;
}
const NO_SPAN: SpanIds = { traceId: null, spanId: null };

/** Where a new turn sits: a session's top-level turn, or a child of another turn. */
export interface TurnPlacement {
  session: Pick<Session, 'id' | 'tenantId' | 'userId'>;
  agent: ResolvedAgent;
  model: ChatModel;
  parent?: Pick<Turn, 'id' | 'rootId' | 'depth' | 'agentPath' | 'isEval' | 'clientId' | 'ephemeral'>;
  /** A top-level turn's request: eval flag and client id (children inherit their parent's). */
  ctx?: Pick<AgentContext, 'isEval' | 'clientId'>;
  ephemeral?: boolean;
}

export interface NewTopLevelTurn {
  ctx: AgentContext;
  /** An existing session (already checked visible to the caller), or what a new one is called. */
  session: Session | { name: string; agent: string | null };
  /** Names an existing session still called UNNAMED_SESSION when this is its first message. */
  title: string;
  agent: ResolvedAgent;
  model: ChatModel;
  content: string;
  metadata: Record<string, unknown>;
  /** Stores no message rows (the user's message included); see EPHEMERAL_TURN_RETENTION_MS. */
  ephemeral: boolean;
  /** How the agent was chosen (and by which rule). */
  routing: { routedBy: RoutedBy; rule: string | null };
  /** A stored user message this turn answers again (regenerate): no new message row is written. */
  answering?: Message;
  /** The caller's admission (TurnQuota.admitWithin), decided and recorded in the same statement: nothing is written unless admitted. */
  admission?: Admission;
}

/**
 * Owns what a turn stores: the turn row, the user message, the pause checkpoint with its
 * approvals, and the outcome (tool rows, the answer, usage, model calls). Each of these is one
 * statement, so a turn costs few round trips however busy the database is; the events that go
 * with a checkpoint are stored in the same transaction by the event hub, and an outcome's in the same statement.
 */
export class TurnStore {
  constructor(
    private readonly prisma: PrismaClient,
    /** The hot path's statements (a turn's start, its model calls) skip Prisma's client (see db/sql-client.ts). */
    private readonly sql: SqlClient,
    private readonly processId: string,
  ) {}

  /**
   * Stores a RUNNING top-level turn (and its session when new, and the user's message unless
   * ephemeral or answered already) in one statement, which also admits it (`input.admission`) and
   * reads its stored context (`stored`: memory and the conversation before the message), so running
   * the turn reads nothing more. The one-active-turn index makes a concurrent send to the same
   * session fail with `23505`, which the caller reports as SESSION_BUSY.
   */
  async startTurn(input: NewTopLevelTurn): Promise<{ turn: Turn; session: Session; userMessage: Message | null; stored?: StoredContext }> {
    const now = new Date();
    const session: Session = 'id' in input.session ? input.session : newSession(input.ctx, input.session, now);
    const turn = {
      ...this.newTurn({ session, agent: input.agent, model: input.model, ctx: input.ctx, ephemeral: input.ephemeral }, now),
      routedBy: input.routing.routedBy,
      routingRule: input.routing.rule,
    };
    const { admission } = input;
    const ok = admission?.ok ?? Prisma.sql`TRUE`;
    const admit = admission ? Prisma.sql`${admission.ctes},` : Prisma.empty;
    const figures = admission ? Prisma.sql`, ${admission.columns}` : Prisma.empty;
    const sessionRow = 'id' in input.session ? Prisma.empty : Prisma.sql`${insertSessionCte('session', session, ok)},`;
    const turnRow = Prisma.sql`INSERT INTO turns (id, root_id, session_id, agent, agent_version, routed_by, routing_rule, model, depth, agent_path, runner, heartbeat_at, is_eval, client_id, ephemeral, tenant_id, user_id, started_at)
        SELECT ${turn.id}::uuid, ${turn.rootId}::uuid, ${session.id}::uuid, ${turn.agent}, ${turn.agentVersion}, ${turn.routedBy}::"RoutedBy", ${turn.routingRule}, ${turn.model}, 0, ${turn.agentPath}::text[],
               ${turn.runner}, ${now}, ${turn.isEval}, ${turn.clientId}, ${turn.ephemeral}, ${turn.tenantId}, ${turn.userId}, ${now}
        WHERE ${ok}`;
    if (input.ephemeral || input.answering) {
      const [row] = await this.run<{ admission?: AdmissionFigures }>(
        Prisma.sql`WITH ${admit} ${sessionRow} turn AS (${turnRow} RETURNING id) SELECT 1 AS started ${figures}`,
      );
      if (admission) admission.judge(row!.admission!);
      return { turn, session, userMessage: input.answering ?? null };
    }
    // Every CTE sees the messages as they were before this statement: NOT EXISTS means "first message".
    const naming =
      'id' in input.session && input.session.name === UNNAMED_SESSION
        ? Prisma.sql`named AS (
            UPDATE sessions SET name = ${storable(input.title)} WHERE id = ${session.id}::uuid AND name = ${UNNAMED_SESSION}
              AND NOT EXISTS (SELECT 1 FROM messages WHERE session_id = ${session.id}::uuid AND type = 'user') AND ${ok}
            RETURNING name
          ),`
        : Prisma.sql`named AS (SELECT NULL::text AS name),`;
    const message = messageRow(
      { session, turnId: turn.id, isEval: turn.isEval, now },
      { type: 'user', content: storable(input.content), metadata: input.metadata as Prisma.JsonObject },
    );
    const [row] = await this.run<{ seq: number | null; renamed: string | null; admission?: AdmissionFigures } & StoredContextRow>(Prisma.sql`
      WITH ${admit} ${sessionRow} ${naming} turn AS (${turnRow} RETURNING id),
      ${insertMessagesCte('message', session.id, [message], Prisma.sql`EXISTS (SELECT 1 FROM turn)`)}
      SELECT (SELECT seq FROM message) AS seq, (SELECT name FROM named) AS renamed ${figures},
        ${storedContextColumns(input.ctx, session.id, { withMemory: true, withHistory: true })}`);
    if (admission) admission.judge(row!.admission!);
    const userMessage: Message = { ...message, seq: row!.seq! };
    return { turn, session: row!.renamed ? { ...session, name: row!.renamed } : session, userMessage, stored: storedContextOf(row!) };
  }

  /** Stores a RUNNING child turn under `placement.parent` (same session, one level deeper). */
  async startChildTurn(placement: TurnPlacement & { parent: NonNullable<TurnPlacement['parent']> }): Promise<Turn> {
    const turn = this.newTurn(placement, new Date());
    const { error: _error, checkpoint: _checkpoint, ...columns } = turn;
    await this.prisma.turn.create({ data: { ...columns, toolCallsLog: [], usage: {} } });
    return turn;
  }

  /** The writes of a pause: the approvals it waits for and the checkpoint it resumes from. */
  pauseWrites(
    turn: TurnRef,
    state: RunState,
    approvals: PendingCall[],
    expiresAt: Date | null,
    trace: SpanIds = NO_SPAN,
  ): (tx: Prisma.TransactionClient) => Promise<unknown> {
    const rows = approvals.map((c) => ({ id: c.approvalId, tool_name: c.name, arguments: c.args, tool_call_id: c.toolCallId }));
    const checkpoint = JSON.stringify(storable(state));
    const log = JSON.stringify(storable(state.toolLog));
    return async (tx) =>
      this.fenced(
        await tx.$executeRaw`
      WITH approvals_added AS (
        INSERT INTO approvals (id, turn_id, session_id, tool_name, arguments, tool_call_id, agent_path, expires_at, tenant_id, user_id)
        SELECT a.id, ${turn.id}::uuid, ${turn.sessionId}::uuid, a.tool_name, a.arguments, a.tool_call_id, ${turn.agentPath}::text[], ${expiresAt}, ${turn.tenantId}, ${turn.userId}
        FROM jsonb_to_recordset(${JSON.stringify(storable(rows))}::jsonb) AS a(id uuid, tool_name text, arguments jsonb, tool_call_id text)
      )
      UPDATE turns SET status = 'AWAITING_APPROVAL', iterations = ${state.iterations}, usage = ${JSON.stringify(state.usage)}::jsonb,
        tool_calls_log = ${log}::jsonb, checkpoint = ${checkpoint}::jsonb, trace_id = ${trace.traceId}, span_id = ${trace.spanId}
      WHERE id = ${turn.id}::uuid AND ${this.holdsTree()}`,
      );
  }

  /**
   * The writes of a turn's end, made in one statement with its final event: its tool rows, then
   * (for a top-level turn) the answer with usage, the turn's outcome and the session's update time.
   */
  outcomeWrites(
    turn: TurnRef & { model: string; isChild: boolean },
    state: RunState,
    status: TerminalStatus,
    error: { code: string; message: string } | null,
    now = new Date(),
    trace: SpanIds = NO_SPAN,
  ): TurnWrites {
    const content = state.text || null;
    const at = { session: { id: turn.sessionId, tenantId: turn.tenantId, userId: turn.userId }, turnId: turn.id, isEval: turn.isEval, trace, now };
    const answer =
      content && !turn.isChild && !turn.ephemeral
        ? messageRow(at, {
            type: 'assistant',
            content,
            inputTokens: state.usage.inputTokens,
            outputTokens: state.usage.outputTokens,
            latencyMs: now.getTime() - state.startedAt,
            model: turn.model,
            agentName: turn.agent,
            metadata: {
              status,
              ...(Object.keys(state.metadata).length ? { notes: state.metadata as Prisma.JsonObject } : {}),
              // A reloaded conversation shows the answer's citations.
              ...(state.sources.length ? { sources: storable(state.sources) as unknown as Prisma.JsonArray } : {}),
            },
          })
        : null;
    const rows = turn.ephemeral
      ? []
      : [
          ...state.rows.map((row) =>
            messageRow(at, {
              type: row.type,
              content: row.content,
              toolCalls: row.toolCalls ?? null,
              toolCallId: row.toolCallId ?? null,
              toolName: row.toolName ?? null,
              agentName: row.agentName,
            }),
          ),
          ...(answer ? [answer] : []),
        ];
    const log = JSON.stringify(storable(state.toolLog));
    const ok = Prisma.sql`(SELECT ok FROM allowed)`;
    const messages = rows.length ? Prisma.sql`${insertMessagesCte('messages_stored', turn.sessionId, rows, ok)},` : Prisma.empty;
    return {
      allowed: this.holdsTreeOf(turn.id),
      ctes: Prisma.sql`${messages} touched AS (UPDATE sessions SET updated_at = ${now} WHERE id = ${turn.sessionId}::uuid AND ${ok}),`,
      set: Prisma.sql`status = ${status}::"TurnStatus", iterations = ${state.iterations}, tool_calls_log = ${log}::jsonb, usage = ${JSON.stringify(state.usage)}::jsonb,
        final_message_id = ${answer?.id ?? null}::uuid, error = ${error ? JSON.stringify(storable(error)) : null}::jsonb, checkpoint = NULL, finished_at = ${now},
        trace_id = ${trace.traceId}, span_id = ${trace.spanId},
        -- A top-level turn that ends lets go of its tree (nothing in it runs any more).
        runner = CASE WHEN parent_id IS NULL THEN NULL ELSE runner END`,
      refused: () => new TreeLostError(),
    };
  }

  /** A statement built with Prisma.sql, run directly (its `$n` text and values). */
  private run<T>(statement: Prisma.Sql): Promise<T[]> {
    return this.sql.query<T>(statement.text, statement.values);
  }

  /** The writes that end a turn nobody runs (a paused turn cancelled, or one whose process died). */
  idleOutcomeWrites(
    turnId: string,
    status: TerminalStatus,
    error: { code: string; message: string } | null,
  ): (tx: Prisma.TransactionClient) => Promise<unknown> {
    return async (tx) =>
      this.fenced(
        await tx.$executeRaw`
      UPDATE turns SET status = ${status}::"TurnStatus", error = ${error ? JSON.stringify(storable(error)) : null}::jsonb, checkpoint = NULL, finished_at = ${new Date()}
      WHERE id = ${turnId}::uuid AND ${this.holdsTree()}`,
      );
  }

  /**
   * Writes to a turn are fenced by its tree: a process that lost the tree (it stopped beating long
   * enough for another to take over) must not overwrite what the new holder wrote.
   */
  private holdsTree(): Prisma.Sql {
    return Prisma.sql`EXISTS (SELECT 1 FROM turns r WHERE r.id = turns.root_id AND r.runner = ${this.processId})`;
  }

  /**
   * `holdsTree` for a turn named by its id (a statement's condition rather than an UPDATE's). Both
   * rows are found by primary key: as a join, PGlite (no autovacuum, so an empty table's statistics)
   * planned a scan of every turn for the runner, on every turn's outcome.
   */
  private holdsTreeOf(turnId: string): Prisma.Sql {
    return Prisma.sql`EXISTS (SELECT 1 FROM turns r WHERE r.id = (SELECT o.root_id FROM turns o WHERE o.id = ${turnId}::uuid) AND r.runner = ${this.processId})`;
  }

  private fenced(updated: number) {
    if (updated === 0) throw new TreeLostError();
  }

  /**
   * Claims a paused turn for resuming once nothing it waits on is pending: exactly one caller gets
   * it back (with its session), anyone else null.
   */
  async claimForResume(turnId: string): Promise<(Turn & { session: Session }) | null> {
    const claimed = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE turns SET status = 'RUNNING'
      WHERE id = ${turnId}::uuid AND status = 'AWAITING_APPROVAL'
        AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = turns.id AND a.status = 'PENDING')
        AND NOT EXISTS (SELECT 1 FROM turns c WHERE c.parent_id = turns.id AND c.status IN ${ACTIVE_STATUSES_SQL})
      RETURNING id`;
    if (claimed.length === 0) return null;
    return this.prisma.turn.findUniqueOrThrow({ where: { id: turnId }, include: { session: true } });
  }

  /** Puts a claimed turn back to waiting when it could not be resumed after all. */
  async unclaim(turnId: string): Promise<void> {
    await this.prisma.turn.updateMany({ where: { id: turnId, status: 'RUNNING' }, data: { status: 'AWAITING_APPROVAL' } });
  }

  /** Decisions and child results for the calls a paused run waits on, by tool call id. */
  async resolutionsFor(state: RunState): Promise<Map<string, Resolution>> {
    const approvalIds = state.pending.flatMap((c) => (c.approvalId ? [c.approvalId] : []));
    const childIds = state.pending.flatMap((c) => (c.childTurnId ? [c.childTurnId] : []));
    const [approvals, children, finals] = await Promise.all([
      approvalIds.length ? this.prisma.approval.findMany({ where: { id: { in: approvalIds } } }) : [],
      childIds.length ? this.prisma.turn.findMany({ where: { id: { in: childIds } } }) : [],
      finalEvents(this.prisma, childIds),
    ]);
    const map = new Map<string, Resolution>();
    for (const call of state.pending) {
      const approval = approvals.find((a) => a.id === call.approvalId);
      if (approval) map.set(call.toolCallId, { kind: 'approval', approvalId: approval.id, approved: approval.approved === true, reason: approval.reason });
      const child = children.find((t) => t.id === call.childTurnId);
      if (child) {
        const content = finals.get(child.id)?.content ?? null;
        const usage = { ...emptyUsage(), ...(child.usage as Partial<UsageTotals>) };
        map.set(call.toolCallId, { kind: 'child', result: { childTurnId: child.id, agent: child.agent, status: child.status, content }, usage });
      }
    }
    return map;
  }

  private newTurn(placement: TurnPlacement, now: Date): Turn {
    const id = randomUUID();
    const { parent, session, agent, model } = placement;
    return {
      id,
      sessionId: session.id,
      parentId: parent?.id ?? null,
      rootId: parent?.rootId ?? id,
      agent: agent.name,
      agentVersion: agent.version,
      routedBy: null,
      routingRule: null,
      model: model.id,
      status: 'RUNNING',
      depth: parent ? parent.depth + 1 : 0,
      agentPath: [...(parent?.agentPath ?? []), agent.name],
      iterations: 0,
      finalMessageId: null,
      error: null,
      toolCallsLog: [],
      usage: {},
      checkpoint: null,
      lastSeq: 0,
      runner: parent ? null : this.processId,
      heartbeatAt: parent ? null : now,
      isEval: parent?.isEval ?? placement.ctx?.isEval ?? false,
      clientId: parent ? parent.clientId : (placement.ctx?.clientId ?? null),
      ephemeral: parent?.ephemeral ?? placement.ephemeral ?? false,
      tenantId: session.tenantId,
      userId: session.userId,
      startedAt: now,
      finishedAt: null,
      traceId: null,
      spanId: null,
    };
  }
}

/** A write to a turn whose tree this process no longer holds (or that no longer exists). */
export class TreeLostError extends Error {
  /** Retrying cannot help (see the event writer). */
  readonly permanent = true;
  constructor() {
    super('This process no longer holds the turn (its tree was taken over, or the turn was deleted)');
    this.name = 'TreeLostError';
  }
}

/** The fields of a turn its writes need. */
export type TurnRef = Pick<Turn, 'id' | 'sessionId' | 'agent' | 'agentPath' | 'tenantId' | 'userId' | 'isEval' | 'ephemeral'>;
