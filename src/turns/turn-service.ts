import type { AgentContext } from '../auth/agent-context.js';
import { isVisibleTo, ownedBy, requireIdentity } from '../auth/scope.js';
import type { Message, Session, Turn } from '../db/generated/client.js';
import { isForeignKeyViolation, isUniqueViolation } from '../db/sql-state.js';
import { ForbiddenError, NotFoundError, SessionBusyError, ValidationError } from '../errors.js';
import { turnEventStream } from '../events/turn-events.js';
import { ACTIVE_STATUSES, isTerminal } from '../events/turn-status.js';
import { getSession, sessionTitle } from '../sessions/sessions.js';
import { parseInput } from '../validation.js';
import type { EngineDeps } from '../engine/engine-deps.js';
import { contextFor } from '../engine/history.js';
import type { StoredContext } from '../engine/stored-context.js';
import { addHistory, freshState, type RunState, type TurnOpening, type TurnOverrides } from '../engine/run-state.js';
import { openingOf } from './tool-results.js';
import type { ResolvedAgent } from '../agents/registry.js';
import { consultsClassifier, type RouteDecision, type Router } from '../routing/router.js';
import type { Supervisor } from '../engine/supervisor.js';
import type { TurnRun } from '../engine/turn-run.js';
import type { Admission, TurnQuota } from '../engine/quota.js';
import type { ChatMessage, ChatModel, ResponseFormat } from '../llm/chat-model.js';
import { schemaProblem } from '../engine/structured-output.js';
import { answeredMessage } from './answered-message.js';
import { planReplay, type ReplayOverrides } from './replay.js';
import { copySession } from '../sessions/fork.js';
import { TURN_COLUMNS } from './turn-columns.js';
import { sendInput, type ResponseFormatInput, type SendInput, type SendMessageInput } from './send-input.js';
import { bindTurn, type TurnBinding } from '../tools/documents/bound-tools.js';

export interface SendMessageOutcome {
  turn: Turn;
  session: Session;
  /** Null for an ephemeral turn, which stores no messages. */
  userMessage: Message | null;
  /** The turn's stored context, when its start read it (see TurnStore.startTurn). */
  stored?: StoredContext;
}

/**
 * What callers do with turns: send a message (which starts one), look one up, cancel one. The
 * supervisor runs them; `sendMessage` returns as soon as the turn and the user message are stored.
 */
export class TurnService {
  constructor(
    private readonly deps: EngineDeps,
    private readonly supervisor: Supervisor,
    private readonly quota: TurnQuota,
    readonly router: Router,
  ) {}

  /**
   * Starts a turn on a message. `input.sessionId` picks the session (the GraphQL layer falls back
   * to X-Session-Id); without one a new session is created, and `input.history` (a stateless
   * caller's earlier conversation) is what the model reads before the message instead of the
   * session's: it is not stored, so the session records only this exchange.
   */
  async sendMessage(ctx: AgentContext, raw: SendMessageInput): Promise<SendMessageOutcome> {
    const input = parseInput(sendInput, raw, ['input']);
    if (input.history?.length && input.sessionId) {
      const message = 'is only for a new session: a session keeps its own conversation';
      throw new ValidationError(`input.history: ${message}`, [{ path: ['input', 'history'], message }]);
    }
    const ephemeral = input.ephemeral === true;
    const existing = input.sessionId ? await getSession(this.deps, ctx, input.sessionId) : null;
    const opened = await openingOf(this.deps.prisma, input, existing);
    const asked = { ...input, content: opened.content };
    // The answer is stored in the session's rows: a shared session's are readable by the whole tenant.
    // An ephemeral turn stores nothing, so it may read a shared session's history.
    if (existing && existing.userId === null && !ctx.isAdmin && !ephemeral) throw new ForbiddenError('Only admins may send messages into a shared session');
    if (!ephemeral) requireIdentity(ctx, 'store messages (send an ephemeral one)');
    // Admission (the quota, a busy session) comes first: a refused send calls no model, not even the
    // routing classifier. Without a classifier to consult, the statement that stores the turn admits it.
    const sessionId = existing?.id ?? null;
    const binding = await this.binding(ctx, input, existing);
    const quick = await this.router.decide(ctx, { agent: input.agent, content: asked.content, metadata: input.metadata ?? {} }, existing, { classify: false });
    const { started, route, agent, model, overrides } = consultsClassifier(quick, existing)
      ? await this.quota.admit(ctx, () => this.start(ctx, asked, existing, undefined, binding, opened.answering), sessionId)
      : await this.quota.admitWithin(ctx, sessionId, (admission) => this.start(ctx, asked, existing, { route: quick, admission }, binding, opened.answering));

    let session = route.newActiveAgent ? await this.activate(started.session, route.newActiveAgent) : started.session;
    if (binding && !ephemeral && (session.documentId !== binding.documentId || session.corpusId !== binding.corpusId)) {
      session = await this.deps.prisma.session.update({ where: { id: session.id }, data: { documentId: binding.documentId, corpusId: binding.corpusId } });
    }
    const opening = typeof opened.opening === 'string' ? route.content : opened.opening;
    return this.launch(
      ctx,
      { ...started, session },
      { agent, model, overrides, content: opening, history: opened.history, continues: Boolean(opened.answering), rows: opened.rows },
    );
  }

  /**
   * Starts a new turn that answers a finished turn's user message again, in the same session and
   * with the same agent and model: no message is stored twice, the model reads the conversation
   * up to that message (not the old answer), and the old answer stays where it is.
   */
  async regenerate(ctx: AgentContext, turnId: string): Promise<SendMessageOutcome> {
    const { prisma, agents, models } = this.deps;
    requireIdentity(ctx, 'store messages');
    const old = await prisma.turn.findFirst({ where: { id: turnId, parentId: null, ...ownedBy(ctx) } });
    if (!old) throw new NotFoundError('Turn');
    if (!isTerminal(old.status)) throw new SessionBusyError(old.sessionId, old.id);
    const asked = await answeredMessage(prisma, old);
    const existing = await getSession(this.deps, ctx, old.sessionId);
    const content = asked.content;
    const agent = await agents.load(ctx, old.agent);
    const model = models.resolve(old.model ?? ctx.defaultModel ?? agent.spec.model ?? null);
    const started = await this.quota.admit(
      ctx,
      () =>
        this.stored(existing, () =>
          this.deps.store.startTurn({
            ctx,
            session: existing,
            title: sessionTitle(content),
            agent,
            model,
            content,
            metadata: {},
            ephemeral: false,
            routing: { routedBy: old.routedBy ?? 'SESSION', rule: old.routingRule },
            answering: asked,
          }),
        ),
      existing.id,
    );
    return this.launch(ctx, started, { agent, model, overrides: undefined, content });
  }

  /**
   * Forks a turn's session at the message before the turn's user message and asks that message
   * again on the fork (a new session of the caller) with the overrides: the same history, another
   * agent version, model, temperature or system prompt suffix. Nothing is stored when the
   * overrides are refused or the quota is spent.
   */
  async replayTurn(ctx: AgentContext, turnId: string, overrides: ReplayOverrides): Promise<SendMessageOutcome> {
    requireIdentity(ctx, 'store messages');
    const plan = await planReplay(this.deps, ctx, turnId, overrides);
    const { turn, asked, agent, model } = plan;
    const started = await this.quota.admit(ctx, async () => {
      const session = await copySession(this.deps.prisma, ctx, plan.fork);
      const start = { ctx, session, title: session.name, agent, model, content: asked.content, ephemeral: false };
      const routing = { routedBy: turn.routedBy ?? 'SESSION', rule: turn.routingRule } as const;
      try {
        return await this.deps.store.startTurn({ ...start, metadata: (asked.metadata ?? {}) as Record<string, unknown>, routing });
      } catch (error) {
        await this.deps.prisma.session.delete({ where: { id: session.id } });
        throw error;
      }
    });
    return this.launch(ctx, started, { agent, model, overrides: plan.overrides, content: asked.content });
  }

  /** Runs a stored turn on the supervisor: its context is read as the run starts. */
  private launch(
    ctx: AgentContext,
    started: SendMessageOutcome,
    run: {
      agent: ResolvedAgent;
      model: ChatModel;
      overrides: TurnOverrides | undefined;
      content: TurnOpening;
      history?: ChatMessage[];
      /** Goes on answering the session's last user message: the model reads the session up to now. */
      continues?: boolean;
      /** Stored with the turn's own (the caller's tool results in its session). */
      rows?: RunState['rows'];
    },
  ): SendMessageOutcome {
    const { turn, session, userMessage, stored } = started;
    const { agent, model, overrides, content } = run;
    const tree = this.supervisor.adopt(turn);
    const state = freshState(agent, ctx, [], content, [], overrides);
    state.rows.push(...(run.rows ?? []));
    const turnRun: TurnRun = { turn, session, agent, model, ctx, state, signal: tree.controller.signal };
    this.supervisor.launch(tree, turnRun, async () => {
      const context = await contextFor(this.deps, {
        ctx,
        session,
        agent,
        model,
        state,
        beforeSeq: run.continues ? undefined : userMessage?.seq,
        history: run.history,
        withMemory: true,
        stored,
      });
      addHistory(state, context);
    });
    this.deps.pubsub.publish('session:updated', session.id, { session, deleted: false });
    return started;
  }

  /** Stores a turn in an existing session, reporting a concurrent turn as SESSION_BUSY and a deleted session as NOT_FOUND. */
  private async stored<T>(existing: Session | null, store: () => Promise<T>): Promise<T> {
    try {
      return await store();
    } catch (error) {
      if (existing && isUniqueViolation(error)) throw new SessionBusyError(existing.id, (await this.activeTurn(existing.id))?.id);
      if (existing && isForeignKeyViolation(error)) throw new NotFoundError('Session');
      throw error;
    }
  }

  /**
   * Routes the message (unless `decided` brings the route), then stores the turn and (unless
   * ephemeral) the user message, admitting it in the same statement when `decided` brings the admission.
   */
  private async start(
    ctx: AgentContext,
    input: SendInput & { content: string },
    existing: Session | null,
    decided?: { route: RouteDecision; admission: Admission },
    binding?: TurnBinding,
    answering?: Message,
  ) {
    const { agents, models, store } = this.deps;
    const metadata = input.metadata ?? {};
    const route = decided?.route ?? (await this.router.decide(ctx, { agent: input.agent, content: input.content, metadata }, existing, { classify: true }));
    const agent = await agents.load(ctx, route.agent);
    const model = models.resolve(input.model ?? ctx.defaultModel ?? route.model ?? agent.spec.model ?? null);
    const chosen = { ...allowedOverrides(agent, input.overrides), ...(binding ? { binding } : {}), ...(input.debug ? { debug: true } : {}) };
    const overrides = Object.keys(chosen).length ? chosen : undefined;
    const started = await this.stored(existing, () =>
      store.startTurn({
        ctx,
        session: existing ?? { name: sessionTitle(input.content), agent: input.agent ?? null },
        title: sessionTitle(input.content),
        agent,
        model,
        content: input.content,
        // What a structured preprocessor read from the content fills the fields the caller left out.
        metadata: route.extracted ? { ...route.extracted, ...metadata } : metadata,
        ephemeral: input.ephemeral === true,
        routing: { routedBy: route.routedBy, rule: route.rule },
        admission: decided?.admission,
        answering,
      }),
    );
    return { started, route, agent, model, overrides };
  }

  /**
   * The turn's binding: the one asked for, else the session's. Checked for the caller each turn
   * (NOT_FOUND, VALIDATION_FAILED) before anything is stored; corpus-only tools a document turn
   * without a corpus cannot use are left out, and logged.
   */
  private async binding(ctx: AgentContext, input: SendInput, existing: Session | null): Promise<TurnBinding | undefined> {
    const asked = input.document || input.corpus ? { documentId: input.document ?? null, corpusId: input.corpus ?? null } : null;
    const kept = existing?.documentId || existing?.corpusId ? { documentId: existing.documentId, corpusId: existing.corpusId } : null;
    const wanted = asked ?? kept;
    if (!wanted) return undefined;
    const { binding, dropped } = await bindTurn(this.deps.prisma, this.deps.documentTools, ctx, wanted);
    if (dropped.length) this.deps.logger.info({ documentId: binding.documentId, dropped }, 'corpus tools left out: the turn has no corpus');
    return binding;
  }

  /** Which agent `sendMessage` would run for this input, and why, without running or storing anything. */
  async routeMessage(ctx: AgentContext, raw: SendMessageInput): Promise<RouteDecision> {
    const input = parseInput(sendInput, raw, ['input']);
    const existing = input.sessionId ? await getSession(this.deps, ctx, input.sessionId) : null;
    const { content } = await openingOf(this.deps.prisma, input, existing);
    const route = await this.router.decide(ctx, { agent: input.agent, content, metadata: input.metadata ?? {} }, existing, {
      classify: false,
    });
    await this.deps.agents.load(ctx, route.agent);
    return route;
  }

  /** Stores the routing classifier's new choice of active agent on the session. */
  private activate(session: Session, agent: string): Promise<Session> {
    return this.deps.prisma.session.update({ where: { id: session.id }, data: { activeAgent: agent } });
  }

  /** A turn the caller can see; NOT_FOUND otherwise. */
  async getTurn(ctx: AgentContext, id: string): Promise<Turn> {
    // Every turnEvents subscription starts here, most of them on a turn just sent to this process:
    // while it runs here (or lately ended here) its events come from the hub, and its start row (with
    // its final status) is all the stream needs.
    // Otherwise one direct statement, by primary key alone: with the owner's columns in the condition,
    // PGlite (no autovacuum, so an empty table's statistics) planned a scan of every turn of the tenant.
    const turn =
      this.supervisor.running(id) ??
      this.supervisor.endedLately(id) ??
      (await this.deps.sql.query<Turn>(`SELECT ${TURN_COLUMNS} FROM "turns" WHERE "id" = $1::uuid`, [id]))[0];
    if (!turn || !isVisibleTo(ctx, turn)) throw new NotFoundError('Turn');
    return turn;
  }

  /**
   * Stops a turn's whole tree, wherever it runs: running turns end CANCELLED, paused ones have
   * their pending approvals rejected. Resolves with the turn once it has ended.
   */
  async cancelTurn(ctx: AgentContext, id: string, waitMs = 10_000): Promise<Turn> {
    const { prisma, pubsub } = this.deps;
    const turn = await prisma.turn.findFirst({ where: { id, ...ownedBy(ctx) } });
    if (!turn) throw new NotFoundError('Turn');
    if (isTerminal(turn.status)) return turn;
    if (!(await this.supervisor.cancelTree(turn.rootId))) {
      pubsub.publish('turn:cancel', { turnId: id, rootId: turn.rootId, requestedBy: ctx.userId });
      await this.untilEnded(turn, waitMs);
    }
    // An ephemeral turn kept for no time (EPHEMERAL_TURN_RETENTION_MS=0) is gone as soon as it ended.
    return (await prisma.turn.findUnique({ where: { id } })) ?? { ...turn, status: 'CANCELLED', runner: null, checkpoint: null, finishedAt: new Date() };
  }

  private async untilEnded(turn: Turn, waitMs: number) {
    const events = turnEventStream(this.deps, turn, turn.lastSeq);
    let timer: NodeJS.Timeout | undefined;
    const ended = (async () => {
      for await (const event of events) if (event.type === 'final') return;
    })();
    await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    await events.return(undefined);
  }

  private activeTurn(sessionId: string) {
    return this.deps.prisma.turn.findFirst({ where: { sessionId, parentId: null, status: { in: ACTIVE_STATUSES } }, select: { id: true } });
  }
}

/**
 * A caller's per-turn settings, checked against the agent: only tools it declares, no more output
 * tokens than its max_tokens, a response format only for a conversational agent (a structured one
 * answers in its own schema; `json_object` asks nothing more of it). Sampling and a system prompt
 * suffix are the caller's to choose.
 */
function allowedOverrides(agent: ResolvedAgent, raw: SendInput['overrides']): TurnOverrides | undefined {
  if (!raw) return undefined;
  const path = ['input', 'overrides'];
  const refuse = (at: (string | number)[], message: string) =>
    new ValidationError(`${[...path, ...at].join('.')}: ${message}`, [{ path: [...path, ...at], message }]);
  const declared = new Set(agent.spec.tools.map((tool) => tool.name));
  const unknown = (raw.tools ?? []).findIndex((name) => !declared.has(name));
  if (unknown >= 0) throw refuse(['tools', unknown], `agent ${agent.name} does not declare tool "${raw.tools![unknown]}"`);
  const unusable = (raw.clientTools ?? []).findIndex((tool) => schemaProblem(tool.parameters) !== null);
  if (unusable >= 0)
    throw refuse(['clientTools', unusable, 'parameters'], `is not a usable JSON Schema: ${schemaProblem(raw.clientTools![unusable]!.parameters)}`);
  const cap = agent.spec.maxTokens;
  if (raw.maxTokens != null && cap !== undefined && raw.maxTokens > cap) throw refuse(['maxTokens'], `must be at most the agent's max_tokens (${cap})`);
  const format = agent.spec.structuredOutput && raw.responseFormat?.type === 'json_object' ? null : raw.responseFormat;
  if (format?.type === 'json_schema') {
    if (agent.spec.structuredOutput) throw refuse(['responseFormat'], `agent ${agent.name} answers in its own output schema`);
    const problem = schemaProblem(format.json_schema.schema);
    if (problem) throw refuse(['responseFormat', 'json_schema', 'schema'], `is not a usable JSON Schema: ${problem}`);
  }
  return {
    ...(raw.temperature != null ? { temperature: raw.temperature } : {}),
    ...(raw.topP != null ? { topP: raw.topP } : {}),
    ...(raw.maxTokens != null ? { maxTokens: raw.maxTokens } : {}),
    ...(raw.stop?.length ? { stop: raw.stop } : {}),
    ...(raw.seed != null ? { seed: raw.seed } : {}),
    ...(format ? { responseFormat: responseFormatOf(format) } : {}),
    ...(raw.systemPromptSuffix ? { systemPromptSuffix: raw.systemPromptSuffix } : {}),
    ...(raw.tools ? { tools: raw.tools } : {}),
    ...(raw.clientTools?.length
      ? { clientTools: raw.clientTools.map(({ name, description, parameters }) => ({ name, description: description ?? '', parameters })) }
      : {}),
  };
}

function responseFormatOf(format: ResponseFormatInput): ResponseFormat {
  if (format.type === 'json_object') return { type: 'json_object' };
  const { name, schema, strict } = format.json_schema;
  return { type: 'json_schema', json_schema: { name, schema, ...(strict != null ? { strict } : {}) } };
}
