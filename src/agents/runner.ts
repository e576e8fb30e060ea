import { randomUUID } from 'node:crypto';
import type { AgentContext } from '../auth/agent-context.js';
import type { Prisma, PrismaClient } from '../db/generated/client.js';
import { isAppError } from '../errors.js';
import type { Source, TerminalStatus, UsageTotals } from '../events/agent-event.js';
import type { TurnEventLog } from '../events/event-log.js';
import type { ChatMessage, ChatModel, ToolCall } from '../llm/chat-model.js';
import { isAbortError } from '../llm/chat-model.js';
import type { Logger } from '../logger.js';
import { appendMessages, type NewMessage } from '../memory/messages.js';
import { parseToolArguments, type ToolOutcome, type ToolRegistry } from '../tools/registry.js';
import type { DelegationRequest, DelegationResult, ToolContext } from '../tools/tool.js';
import { askAgentResult } from '../tools/builtin/ask-agent.js';
import { ToolPause } from '../tools/tool-pause.js';
import { buildRequestInstructions, buildSystemPrompt, structuredOutputSchema } from './prompt.js';
import type { ResolvedAgent } from './registry.js';

export interface RunnerDeps {
  prisma: PrismaClient;
  tools: ToolRegistry;
  logger: Logger;
  /** Seconds an approval may wait before its default decision applies; 0 for never. */
  approvalTtlMs: number;
}

export interface RunInput {
  turnId: string;
  session: { id: string; tenantId: string; userId: string | null };
  agent: ResolvedAgent;
  ctx: AgentContext;
  model: ChatModel;
  log: TurnEventLog;
  signal: AbortSignal;
  depth: number;
  agentPath: string[];
  /** Child turns do not store an assistant message: their answer is the parent's tool result. */
  isChild: boolean;
  /** Runs a child agent for the ask_agent tool. */
  delegate(request: DelegationRequest): Promise<DelegationResult & { usage: UsageTotals }>;
  /** Decisions and child results for the calls a resumed turn was waiting on, by tool call id. */
  resolutions?: Map<string, Resolution>;
}

export interface ToolLogEntry {
  tool: string;
  toolCallId: string;
  arguments: unknown;
  result: unknown;
  isError: boolean;
  iteration: number;
}

/** A tool call the turn paused on: waiting for a human decision or for a paused child agent. */
export interface PendingCall {
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  /** What the model sent: parsed arguments, or the raw text when it was not JSON. */
  shown: unknown;
  approvalId?: string;
  childTurnId?: string;
}

export type Resolution =
  | { kind: 'approval'; approvalId: string; approved: boolean; reason: string | null }
  | { kind: 'child'; result: DelegationResult; usage: UsageTotals };

/** Everything a paused run needs to continue on any process: stored as the turn's checkpoint. */
export interface RunState {
  messages: ChatMessage[];
  iterations: number;
  usage: UsageTotals;
  text: string;
  toolLog: ToolLogEntry[];
  rows: NewMessage[];
  llmCalls: Prisma.LlmCallCreateManyInput[];
  sources: Source[];
  metadata: Record<string, unknown>;
  /** Answers of child agents in this turn: the parent does not stream the same text again. */
  childOutputs: string[];
  pending: PendingCall[];
  startedAt: number;
  /** Who the turn runs for; the per-request added instruction is left out (never persisted). */
  context: AgentContext;
}

export interface RunResult {
  status: TerminalStatus | 'AWAITING_APPROVAL';
  content: string | null;
  usage: UsageTotals;
}

/** Why a run stopped early, as given to AbortController.abort(). */
export type StopReason = 'cancelled' | 'shutdown';

export function freshState(input: Pick<RunInput, 'agent' | 'ctx' | 'session'>, history: ChatMessage[], userContent: string): RunState {
  return {
    messages: [
      { role: 'system', content: buildSystemPrompt(input.agent.spec) },
      ...history,
      { role: 'user', content: userContent },
    ],
    iterations: 0,
    usage: { inputTokens: 0, outputTokens: 0, requests: 0 },
    text: '',
    toolLog: [],
    rows: [],
    llmCalls: [],
    sources: [],
    metadata: {},
    childOutputs: [],
    pending: [],
    startedAt: Date.now(),
    context: { ...input.ctx, addedInstruction: null },
  };
}

/**
 * Runs an agent turn until it ends or pauses: calls the model with the agent's tools, executes
 * tool calls (gated ones wait for a human; ask_agent runs a child agent), loops until the model
 * answers, a limit is hit or the run is cancelled. Every step goes to the turn's event log; the
 * outcome (tool rows, then the assistant message, the turn, the model calls) is stored before the
 * final event. A pause stores the state as the turn's checkpoint and keeps nothing in memory.
 */
export async function runTurn(deps: RunnerDeps, input: RunInput, state: RunState): Promise<RunResult> {
  const { agent, log, signal } = input;
  const spec = agent.spec;
  let status: TerminalStatus = 'COMPLETED';
  let error: { code: string; message: string } | null = null;
  log.listen((event) => {
    if (event.type === 'sources') state.sources.push(...event.sources);
    if (event.type === 'action' && event.actionType === 'metadata') Object.assign(state.metadata, event.payload);
  });
  const tools = deps.tools.specsFor(spec.tools);
  const refs = new Map(spec.tools.map((t) => [t.name, t]));
  const responseFormat = structuredOutputSchema(spec);
  const toolCtx: ToolContext = {
    agent: input.ctx,
    prisma: deps.prisma,
    turnId: input.turnId,
    sessionId: input.session.id,
    agentName: agent.name,
    emit: (event) => void log.emit(event),
    signal,
    delegate: async (request) => {
      const { usage, ...result } = await input.delegate(request);
      addUsage(state.usage, usage);
      if (result.content) state.childOutputs.push(result.content);
      return result;
    },
  };

  try {
    if (state.pending.length) await resolvePending(deps, input, state, toolCtx);
    while (true) {
      const limit = limitReached(spec, state);
      if (limit) {
        status = 'MAX_ITERATIONS';
        error = { code: 'MAX_ITERATIONS', message: limit };
        break;
      }
      state.iterations += 1;
      const { text, calls } = await callModel(input, state, tools, responseFormat);
      if (calls.length === 0) {
        state.text = text;
        break;
      }
      state.messages.push({ role: 'assistant', content: text || null, toolCalls: calls });
      state.rows.push({
        type: 'tool_call',
        content: text || null,
        toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
        agentName: agent.name,
        turnId: input.turnId,
      });
      const parsed = calls.map((call) => {
        const { args, parsed: ok } = parseToolArguments(call.arguments);
        return { toolCallId: call.id, name: call.name, args, shown: ok ? args : call.arguments };
      });
      for (const call of parsed) {
        log.emit({ type: 'tool_call', toolCallId: call.toolCallId, name: call.name, arguments: call.shown, iteration: state.iterations });
      }
      const gated = parsed.filter((c) => refs.has(c.name) && deps.tools.requiresApproval(refs.get(c.name), c.name));
      const immediate = parsed.filter((c) => !gated.includes(c));
      const outcomes = await Promise.all(
        immediate.map(async (call): Promise<ToolOutcome | ToolPause> => {
          if (!refs.has(call.name)) return { result: { error: `Tool "${call.name}" is not available to agent ${agent.name}` }, isError: true };
          try {
            return await deps.tools.execute(call.name, call.args, toolCtx);
          } catch (pause) {
            if (pause instanceof ToolPause) return pause;
            throw pause;
          }
        }),
      );
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      immediate.forEach((call, i) => {
        const outcome = outcomes[i]!;
        if (outcome instanceof ToolPause) state.pending.push({ ...call, childTurnId: outcome.childTurnId });
        else recordResult(input, state, call, outcome);
      });
      for (const call of gated) state.pending.push({ ...call, approvalId: randomUUID() });
      if (state.pending.length) return await pause(deps, input, state);
      // Only the final answer is the turn's content; text before tool calls stays in tool_call rows.
      state.text = '';
    }
  } catch (caught) {
    if (signal.aborted || isAbortError(caught)) {
      status = signal.reason === 'shutdown' ? 'INTERRUPTED' : 'CANCELLED';
    } else {
      status = 'ERROR';
      error = isAppError(caught) ? { code: caught.code, message: caught.message } : { code: 'INTERNAL', message: 'The agent run failed unexpectedly' };
      if (!isAppError(caught)) deps.logger.error({ err: caught, turnId: input.turnId }, 'agent run failed');
      log.emit({ type: 'error', ...error });
    }
  }
  await persistOutcome(input, state, status, error);
  return { status, content: state.text || null, usage: state.usage };
}

/** One model call: streams content (minus any repeat of a child's answer) and collects tool calls. */
async function callModel(
  input: RunInput,
  state: RunState,
  tools: ReturnType<ToolRegistry['specsFor']>,
  responseFormat: ReturnType<typeof structuredOutputSchema>,
): Promise<{ text: string; calls: ToolCall[] }> {
  const { model, log, agent } = input;
  const started = Date.now();
  const before = { ...state.usage };
  let text = '';
  let held = '';
  const calls: ToolCall[] = [];
  let finishReason: string | null = null;
  const repeatsChild = (t: string) => state.childOutputs.some((c) => c.trim().startsWith(t.trim()));
  const messages: ChatMessage[] = [
    state.messages[0]!,
    {
      role: 'system',
      content: buildRequestInstructions({
        now: new Date(),
        userId: input.ctx.userId,
        sessionId: input.session.id,
        agentName: agent.name,
        addedInstruction: input.ctx.addedInstruction,
      }),
    },
    ...state.messages.slice(1),
  ];
  try {
    for await (const part of model.stream({
      messages,
      tools: tools.length ? tools : undefined,
      responseFormat,
      temperature: agent.spec.temperature,
      maxTokens: agent.spec.maxTokens,
      signal: input.signal,
    })) {
      if (part.type === 'text-delta') {
        text += part.delta;
        state.text = text;
        if (state.childOutputs.length && repeatsChild(text)) {
          held += part.delta;
          continue;
        }
        if (held) log.emit({ type: 'content', delta: held });
        held = '';
        log.emit({ type: 'content', delta: part.delta });
      } else if (part.type === 'tool-call') {
        calls.push(part.call);
      } else {
        finishReason = part.reason;
        state.usage.inputTokens += part.usage.inputTokens;
        state.usage.outputTokens += part.usage.outputTokens;
      }
    }
    // Held text that turned out to be exactly a child's streamed answer is not streamed twice.
    if (held && !state.childOutputs.some((c) => c.trim() === text.trim())) log.emit({ type: 'content', delta: held });
  } finally {
    state.usage.requests += 1;
    state.llmCalls.push({
      turnId: input.turnId,
      sessionId: input.session.id,
      provider: model.provider,
      model: model.model,
      iteration: state.iterations,
      inputTokens: state.usage.inputTokens - before.inputTokens,
      outputTokens: state.usage.outputTokens - before.outputTokens,
      latencyMs: Date.now() - started,
      finishReason,
      error: finishReason ? null : 'stream did not finish',
      tenantId: input.session.tenantId,
      userId: input.session.userId,
    });
  }
  return { text, calls };
}

/** Applies decisions and child results to the calls a resumed turn waited on, in call order. */
async function resolvePending(deps: RunnerDeps, input: RunInput, state: RunState, toolCtx: ToolContext) {
  const pending = state.pending;
  state.pending = [];
  for (const call of pending) {
    const resolution = input.resolutions?.get(call.toolCallId);
    if (!resolution) throw new Error(`No resolution for pending call ${call.toolCallId}`);
    if (resolution.kind === 'child') {
      addUsage(state.usage, resolution.usage);
      if (resolution.result.content) state.childOutputs.push(resolution.result.content);
      recordResult(input, state, call, { result: askAgentResult(resolution.result), isError: resolution.result.status !== 'COMPLETED' });
    } else if (resolution.approved) {
      input.log.emit({ type: 'resume', approvalId: resolution.approvalId });
      try {
        recordResult(input, state, call, await deps.tools.execute(call.name, call.args, toolCtx));
      } catch (pause) {
        if (!(pause instanceof ToolPause)) throw pause;
        state.pending.push({ ...call, childTurnId: pause.childTurnId });
      }
    } else {
      const why = resolution.reason ? `: ${resolution.reason}` : '';
      recordResult(input, state, call, { result: { error: `A human reviewer rejected this call${why}` }, isError: true });
    }
  }
  if (state.pending.length) throw new Error('A tool resumed after approval paused again; not supported');
}

function recordResult(input: RunInput, state: RunState, call: Omit<PendingCall, 'approvalId' | 'childTurnId'>, outcome: ToolOutcome) {
  input.log.emit({ type: 'tool_result', toolCallId: call.toolCallId, name: call.name, result: outcome.result, isError: outcome.isError });
  const content = JSON.stringify(outcome.result);
  state.messages.push({ role: 'tool', toolCallId: call.toolCallId, content });
  state.rows.push({ type: 'tool_response', content, toolCallId: call.toolCallId, toolName: call.name, agentName: input.agent.name, turnId: input.turnId });
  state.toolLog.push({ tool: call.name, toolCallId: call.toolCallId, arguments: call.shown, result: outcome.result, isError: outcome.isError, iteration: state.iterations });
}

/** Stores approvals and the checkpoint, announces what is awaited, and lets go of the run. */
async function pause(deps: RunnerDeps, input: RunInput, state: RunState): Promise<RunResult> {
  const approvals = state.pending.filter((c) => c.approvalId);
  const expiresAt = deps.approvalTtlMs > 0 ? new Date(Date.now() + deps.approvalTtlMs) : null;
  await input.log.commit(
    approvals.map((c) => ({ type: 'approval_needed', approvalId: c.approvalId!, toolCallId: c.toolCallId, name: c.name, arguments: c.shown, agentPath: input.agentPath })),
    async (tx) => {
      if (approvals.length) {
        await tx.approval.createMany({
          data: approvals.map((c) => ({
            id: c.approvalId!,
            turnId: input.turnId,
            sessionId: input.session.id,
            toolName: c.name,
            arguments: c.args as Prisma.InputJsonObject,
            toolCallId: c.toolCallId,
            agentPath: input.agentPath,
            expiresAt,
            tenantId: input.session.tenantId,
            userId: input.session.userId,
          })),
        });
      }
      await tx.turn.update({
        where: { id: input.turnId },
        data: {
          status: 'AWAITING_APPROVAL',
          iterations: state.iterations,
          usage: state.usage as unknown as Prisma.InputJsonObject,
          toolCallsLog: state.toolLog as unknown as Prisma.InputJsonArray,
          checkpoint: state as unknown as Prisma.InputJsonObject,
        },
      });
    },
  );
  return { status: 'AWAITING_APPROVAL', content: null, usage: state.usage };
}

function limitReached(spec: ResolvedAgent['spec'], state: RunState): string | null {
  if (state.iterations >= spec.maxIterations) return `Stopped after max_iterations (${spec.maxIterations}) model calls`;
  const { requestLimit, totalTokensLimit } = spec.limits;
  if (requestLimit && state.usage.requests >= requestLimit) return `Stopped at limits.request_limit (${requestLimit})`;
  const tokens = state.usage.inputTokens + state.usage.outputTokens;
  if (totalTokensLimit && tokens >= totalTokensLimit) return `Stopped at limits.total_tokens_limit (${totalTokensLimit}); used ${tokens}`;
  return null;
}

function addUsage(into: UsageTotals, more: UsageTotals) {
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.requests += more.requests;
}

async function persistOutcome(input: RunInput, state: RunState, status: TerminalStatus, error: { code: string; message: string } | null) {
  const content = state.text || null;
  await input.log.commit([{ type: 'final', status, content, sources: state.sources, usage: state.usage }], async (tx) => {
    const assistant: NewMessage[] =
      content && !input.isChild
        ? [
            {
              type: 'assistant',
              content,
              inputTokens: state.usage.inputTokens,
              outputTokens: state.usage.outputTokens,
              latencyMs: Date.now() - state.startedAt,
              model: input.model.id,
              agentName: input.agent.name,
              turnId: input.turnId,
              metadata: { status, ...(Object.keys(state.metadata).length ? { notes: state.metadata } : {}) } as Prisma.InputJsonObject,
            },
          ]
        : [];
    const stored = await appendMessages(tx, input.session, [...state.rows, ...assistant]);
    const final = assistant.length ? stored[stored.length - 1] : undefined;
    await tx.turn.update({
      where: { id: input.turnId },
      data: {
        status,
        iterations: state.iterations,
        toolCallsLog: state.toolLog as unknown as Prisma.InputJsonArray,
        usage: state.usage as unknown as Prisma.InputJsonObject,
        finalMessageId: final?.id ?? null,
        error: error ?? undefined,
        checkpoint: undefined,
        finishedAt: new Date(),
      },
    });
    if (state.llmCalls.length) await tx.llmCall.createMany({ data: state.llmCalls });
    await tx.session.update({ where: { id: input.session.id }, data: { updatedAt: new Date() } });
  });
}
