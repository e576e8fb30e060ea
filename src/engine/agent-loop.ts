import { randomUUID } from 'node:crypto';
import { isAppError, type ErrorCode } from '../errors.js';
import type { AgentEventBody, UsageTotals } from '../events/agent-event.js';
import type { TerminalStatus } from '../events/turn-status.js';
import type { ChatModel, ToolCall, Usage } from '../llm/chat-model.js';
import { estimateUsage } from '../llm/token-count.js';
import { isAbortError } from '../llm/chat-model.js';
import { parseToolArguments, type ToolOutcome, type ToolRegistry } from '../tools/registry.js';
import type { DelegationRequest, DelegationResult, ToolContext } from '../tools/tool.js';
import { askAgentResult } from '../tools/builtin/ask-agent.js';
import { ToolPause } from '../tools/tool-pause.js';
import { turnRequest, type RequestScope } from './model-request.js';
import { checkStructuredOutput, outputSchemaOf, repairInstruction } from './structured-output.js';
import { ChildEcho } from './child-echo.js';
import type { ResolvedAgent } from '../agents/registry.js';
import {
  addChildUsage,
  addUsage,
  offeredTools,
  ownUsage,
  responseFormatFor,
  type ModelCallRecord,
  type PendingCall,
  type Resolution,
  type RunState,
} from './run-state.js';

/** What the loop may do outside itself. It never touches the database. */
interface AgentLoopPorts {
  /** Sends an event into the turn's stream. */
  emit(body: AgentEventBody): void;
  /** Runs a child agent (ask_agent); throws ToolPause when the child paused for a decision. */
  delegate(request: DelegationRequest): Promise<DelegationResult & { usage: UsageTotals }>;
  /** What tools get besides emit, signal and delegate (who is asking, where). */
  toolContext: Omit<ToolContext, 'emit' | 'signal' | 'delegate'>;
  /** Told about failures that are not the caller's (they end the turn with INTERNAL). */
  onUnexpected(error: unknown): void;
  /**
   * Keeps one model call (with the exact request) as soon as it ended, so a paused or crashed turn
   * keeps the calls it made; they are all stored before (or with) the turn's outcome.
   */
  modelCalled(call: ModelCallRecord): Promise<void>;
}

export interface AgentLoopInput {
  agent: ResolvedAgent;
  model: ChatModel;
  tools: ToolRegistry;
  /** The run's state, changed in place; stored as the checkpoint when the loop pauses. */
  state: RunState;
  signal: AbortSignal;
  /** Per-request context for the instructions sent with every model call (never stored). */
  request: RequestScope;
  /** Tools that need a human decision for this run, whatever the agent declares (inherited from parents). */
  gatedTools: ReadonlySet<string>;
  /** Most tool calls one model response may make; more are refused with a tool error. */
  maxToolCallsPerResponse: number;
  /** Decisions and child results for the calls a resumed run was waiting on, by tool call id. */
  resolutions?: Map<string, Resolution>;
  ports: AgentLoopPorts;
}

export type LoopOutcome = { kind: 'paused'; approvals: PendingCall[] } | { kind: 'finished'; status: TerminalStatus; error: LoopError | null };

/** Why a run did not complete; `details` carries what a caller needs to act (e.g. validation errors). */
interface LoopError {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** Why a run stopped early, as given to AbortController.abort(). */
export type StopReason = 'cancelled' | 'shutdown';

/**
 * Runs an agent until it answers, pauses or stops: calls the model with the agent's tools, runs
 * the tool calls (gated ones wait for a human: the loop returns `paused` with them; ask_agent runs
 * a child agent through the ports; the caller's own tools are left to the caller: the run ends
 * TOOL_CALLS once the response's other calls ran), and loops until the model answers without tool
 * calls, a limit is reached or the run is cancelled. Everything it learns goes into `state` and out as events.
 */
export async function runAgentLoop(input: AgentLoopInput): Promise<LoopOutcome> {
  const { agent, state, signal, ports } = input;
  const spec = agent.spec;
  const emit = (body: AgentEventBody) => {
    if (body.type === 'sources') state.sources.push(...body.sources);
    if (body.type === 'action' && body.actionType === 'metadata') Object.assign(state.metadata, body.payload);
    if (body.type === 'action' && body.actionType === 'observation') {
      state.rows.push({ type: 'observation', content: JSON.stringify(body.payload), agentName: agent.name });
    }
    ports.emit(body);
  };
  const declared = new Map(offeredTools(agent, state.overrides).map((t) => [t.name, t]));
  const clientTools = new Set((state.overrides?.clientTools ?? []).map((t) => t.name));
  const toolCtx: ToolContext = {
    ...ports.toolContext,
    emit,
    signal,
    delegate: async (request) => {
      const { usage, ...result } = await ports.delegate(request);
      addChildUsage(state, usage);
      if (result.content) state.childOutputs.push(result.content);
      return result;
    },
  };
  const record = (call: CallInfo, outcome: ToolOutcome) => recordResult(emit, agent.name, state, call, outcome);
  const execute = async (call: CallInfo): Promise<ToolOutcome | ToolPause> => {
    try {
      return await input.tools.execute(call.name, call.args, toolCtx, declared.get(call.name));
    } catch (pause) {
      if (pause instanceof ToolPause) return pause;
      throw pause;
    }
  };

  try {
    if (state.pending.length) {
      await resolvePending(input, state, record, execute);
      // An approved ask_agent call whose child paused for a decision of its own: wait for the child.
      if (state.pending.length) return { kind: 'paused', approvals: state.pending.filter((c) => c.approvalId) };
      if (handedBack(state).length) return { kind: 'finished', status: 'TOOL_CALLS', error: null };
    }
    while (true) {
      const limit = limitReached(spec, state);
      if (limit) {
        // What the model last said (before its last tool calls) is the best answer there is.
        state.text = lastAssistantText(state);
        return { kind: 'finished', status: 'MAX_ITERATIONS', error: { code: 'MAX_ITERATIONS', message: limit } };
      }
      state.iterations += 1;
      const { text, calls, reasoning } = await callModel(input, emit);
      if (calls.length === 0) {
        state.text = text;
        const format = responseFormatFor(agent, state.overrides);
        if (!format) return { kind: 'finished', status: 'COMPLETED', error: null };
        const check = checkStructuredOutput(outputSchemaOf(format), text);
        if (check.ok) return { kind: 'finished', status: 'COMPLETED', error: null };
        if (state.repaired) {
          state.text = '';
          const whose = spec.structuredOutput ? "the agent's output schema" : 'the requested response_format';
          const error: LoopError = {
            code: 'VALIDATION_FAILED',
            message: `The reply did not match ${whose} after one repair: ${check.errors.join('; ')}`,
            details: { errors: check.errors },
          };
          emit({ type: 'error', ...error });
          return { kind: 'finished', status: 'ERROR', error };
        }
        state.repaired = true;
        state.messages.push({ role: 'assistant', content: text }, { role: 'user', content: repairInstruction(check.errors) });
        state.text = '';
        continue;
      }
      state.messages.push({ role: 'assistant', content: text || null, toolCalls: calls, ...(reasoning ? { reasoning } : {}) });
      state.rows.push({
        type: 'tool_call',
        content: text || null,
        toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
        agentName: agent.name,
      });
      const parsed: CallInfo[] = calls.map((call) => {
        const { args, parsed: ok } = parseToolArguments(call.arguments);
        return { toolCallId: call.id, name: call.name, args, shown: ok ? args : call.arguments };
      });
      for (const call of parsed) emit({ type: 'tool_call', toolCallId: call.toolCallId, name: call.name, arguments: call.shown, iteration: state.iterations });

      const allowed = parsed.slice(0, input.maxToolCallsPerResponse);
      const gated = allowed.filter((c) => declared.has(c.name) && (input.gatedTools.has(c.name) || input.tools.requiresApproval(declared.get(c.name), c.name)));
      // The caller's own tools are the caller's to run: their calls wait for its next request.
      const immediate = allowed.filter((c) => !gated.includes(c) && !clientTools.has(c.name));
      const outcomes = await Promise.all(
        immediate.map((call): Promise<ToolOutcome | ToolPause> =>
          declared.has(call.name)
            ? execute(call)
            : Promise.resolve({ result: { error: `Tool "${call.name}" is not available to agent ${agent.name}` }, isError: true }),
        ),
      );
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      immediate.forEach((call, i) => {
        const outcome = outcomes[i]!;
        if (outcome instanceof ToolPause) state.pending.push({ ...call, childTurnId: outcome.childTurnId });
        else record(call, outcome);
      });
      for (const call of parsed.slice(input.maxToolCallsPerResponse)) {
        record(call, {
          result: { error: `Too many tool calls in one response: at most ${input.maxToolCallsPerResponse} run; call the rest in your next response` },
          isError: true,
        });
      }
      for (const call of gated) state.pending.push({ ...call, approvalId: randomUUID() });
      if (state.pending.length) return { kind: 'paused', approvals: state.pending.filter((c) => c.approvalId) };
      if (handedBack(state).length) return { kind: 'finished', status: 'TOOL_CALLS', error: null };
      // Only the final answer is the turn's content; text before tool calls stays in tool_call rows.
      state.text = '';
    }
  } catch (caught) {
    if (signal.aborted || isAbortError(caught)) {
      return { kind: 'finished', status: signal.reason === 'shutdown' ? 'INTERRUPTED' : 'CANCELLED', error: null };
    }
    const error: LoopError = isAppError(caught)
      ? { code: caught.code, message: caught.message }
      : { code: 'INTERNAL', message: 'The agent run failed unexpectedly' };
    if (!isAppError(caught)) ports.onUnexpected(caught);
    emit({ type: 'error', ...error });
    return { kind: 'finished', status: 'ERROR', error };
  }
}

type CallInfo = Omit<PendingCall, 'approvalId' | 'childTurnId'>;

/** One model call: streams content (minus any repeat of a child's answer) and collects tool calls. */
async function callModel(input: AgentLoopInput, emit: (body: AgentEventBody) => void): Promise<{ text: string; calls: ToolCall[]; reasoning: string }> {
  const { model, agent, state } = input;
  const started = Date.now();
  let reported: Usage | null = null;
  let text = '';
  let reasoning = '';
  let body: string | null = null;
  let held = '';
  const calls: ToolCall[] = [];
  let finishReason: string | null = null;
  const echo = new ChildEcho(state.childOutputs);
  const request = turnRequest(agent, state, input.tools, input.request);
  try {
    for await (const part of model.stream({ ...request, signal: input.signal })) {
      if (part.type === 'request') {
        body = part.body;
        if (state.overrides?.debug) emit({ type: 'model_request', iteration: state.iterations, model: model.id, body: JSON.parse(part.body) });
      } else if (part.type === 'reasoning-delta') {
        reasoning += part.delta;
        emit({ type: 'thought', text: part.delta });
      } else if (part.type === 'text-delta') {
        text += part.delta;
        state.text = text;
        if (echo.repeats(text)) {
          held += part.delta;
          continue;
        }
        if (held) emit({ type: 'content', delta: held });
        held = '';
        emit({ type: 'content', delta: part.delta });
      } else if (part.type === 'tool-call') {
        calls.push(part.call);
      } else {
        finishReason = part.reason;
        reported = part.usage;
      }
    }
    // Held text that turned out to be exactly a child's streamed answer is not streamed twice.
    if (held && !state.childOutputs.some((c) => c.trim() === text.trim())) emit({ type: 'content', delta: held });
  } finally {
    if (reasoning) state.rows.push({ type: 'think', content: reasoning, agentName: agent.name });
    // Only a call the provider reported nothing for is counted here (cancelled, failed, or a server without usage).
    const usage = reported ?? (await estimateUsage(model.id, request, { text: reasoning + text, toolCalls: calls }));
    addUsage(state.usage, { ...usage, requests: 1, estimated: !reported });
    await input.ports.modelCalled({
      provider: model.provider,
      model: model.model,
      iteration: state.iterations,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      usageEstimated: !reported,
      latencyMs: Date.now() - started,
      finishReason,
      error: finishReason ? null : 'stream did not finish',
      request: body,
    });
  }
  return { text, calls, reasoning };
}

/**
 * Applies decisions and child results to the calls a resumed run waited on, in call order. An
 * approved call that pauses on a child agent is left pending again, waiting for that child.
 */
async function resolvePending(
  input: AgentLoopInput,
  state: RunState,
  record: (call: CallInfo, outcome: ToolOutcome) => void,
  execute: (call: CallInfo) => Promise<ToolOutcome | ToolPause>,
) {
  const pending = state.pending;
  state.pending = [];
  for (const call of pending) {
    const resolution = input.resolutions?.get(call.toolCallId);
    if (!resolution) throw new Error(`No resolution for pending call ${call.toolCallId}`);
    if (resolution.kind === 'child') {
      addChildUsage(state, resolution.usage);
      if (resolution.result.content) state.childOutputs.push(resolution.result.content);
      record(call, { result: askAgentResult(resolution.result), isError: resolution.result.status !== 'COMPLETED' });
    } else if (resolution.approved) {
      input.ports.emit({ type: 'resume', approvalId: resolution.approvalId });
      const { approvalId: _decided, ...decided } = call;
      const outcome = await execute(decided);
      // Its decision is taken: from now on the call waits only for its child.
      if (outcome instanceof ToolPause) state.pending.push({ ...decided, childTurnId: outcome.childTurnId });
      else record(decided, outcome);
    } else {
      const why = resolution.reason ? `: ${resolution.reason}` : '';
      record(call, { result: { error: `A human reviewer rejected this call${why}` }, isError: true });
    }
  }
}

function recordResult(emit: (body: AgentEventBody) => void, agentName: string, state: RunState, call: CallInfo, outcome: ToolOutcome) {
  emit({ type: 'tool_result', toolCallId: call.toolCallId, name: call.name, result: outcome.result, isError: outcome.isError });
  const content = JSON.stringify(outcome.result);
  state.messages.push({ role: 'tool', toolCallId: call.toolCallId, content });
  state.rows.push({ type: 'tool_response', content, toolCallId: call.toolCallId, toolName: call.name, agentName });
  state.toolLog.push({
    tool: call.name,
    toolCallId: call.toolCallId,
    arguments: call.shown,
    result: outcome.result,
    isError: outcome.isError,
    iteration: state.iterations,
  });
}

/**
 * The calls of the model's last response that no result answers: the caller's own tools' (a run
 * ends TOOL_CALLS with them, for the caller to run and answer in its next request).
 */
function handedBack(state: Pick<RunState, 'messages'>): ToolCall[] {
  const at = state.messages.findLastIndex((m) => m.role === 'assistant');
  const last = state.messages[at];
  if (last?.role !== 'assistant' || !last.toolCalls) return [];
  const answered = new Set(state.messages.slice(at + 1).flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  return last.toolCalls.filter((call) => !answered.has(call.id));
}

/** The last text this turn's model said alongside tool calls (history is not this turn's). */
function lastAssistantText(state: RunState): string {
  return state.rows.findLast((row) => row.type === 'tool_call' && row.content)?.content ?? '';
}

function limitReached(spec: ResolvedAgent['spec'], state: RunState): string | null {
  if (state.iterations >= spec.maxIterations) return `Stopped after max_iterations (${spec.maxIterations}) model calls`;
  const { requestLimit, totalTokensLimit } = spec.limits;
  const own = ownUsage(state);
  if (requestLimit && own.requests >= requestLimit) return `Stopped at limits.request_limit (${requestLimit})`;
  const tokens = own.inputTokens + own.outputTokens;
  if (totalTokensLimit && tokens >= totalTokensLimit) return `Stopped at limits.total_tokens_limit (${totalTokensLimit}); used ${tokens}`;
  return null;
}
