import type { AgentContext } from '../auth/agent-context.js';
import type { Source, UsageTotals } from '../events/agent-event.js';
import type { ChatMessage, ResponseFormat, SamplingOptions } from '../llm/chat-model.js';
import type { DelegationResult } from '../tools/tool.js';
import { buildSystemPrompt, structuredOutputSchema } from '../agents/prompt.js';
import type { ResolvedAgent } from '../agents/registry.js';
import type { TurnBinding } from '../tools/documents/bound-tools.js';

interface ToolLogEntry {
  tool: string;
  toolCallId: string;
  arguments: unknown;
  result: unknown;
  isError: boolean;
  iteration: number;
}

/**
 * A message the turn adds to its session when it ends: the audit trail of its tool calls, the
 * model's reasoning (`think`), and the observations it reported (action tool).
 */
interface TurnMessage {
  type: 'tool_call' | 'tool_response' | 'think' | 'observation';
  content: string | null;
  toolCalls?: { id: string; name: string; arguments: string }[];
  toolCallId?: string;
  toolName?: string;
  agentName: string;
}

/** One model request of the turn, as stored in llm_calls (when it ends). */
export interface ModelCallRecord {
  provider: string;
  model: string;
  iteration: number;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  /** Counted by us: the provider reported no usage (a call cut short, or a server that sends none). */
  usageEstimated: boolean;
  finishReason: string | null;
  error: string | null;
  /** The request body exactly as the provider received it (null for the offline demo model). */
  request: string | null;
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
  { kind: 'approval'; approvalId: string; approved: boolean; reason: string | null } | { kind: 'child'; result: DelegationResult; usage: UsageTotals };

/** Per-call settings a caller chose for one turn (OpenContracts' AgentConfig), within what the agent allows; a conversational agent answering in `responseFormat` is validated like a structured one. */
export interface TurnOverrides extends SamplingOptions {
  /** Appended to the agent's system prompt for this turn. */
  systemPromptSuffix?: string;
  /** A subset of the agent's tools; the others are not offered (nor run) this turn. */
  tools?: string[];
  /** The document or corpus the turn is about: its tools are offered besides the agent's, its context told. */
  binding?: TurnBinding;
}

/** Everything a paused run needs to continue on any process: stored as the turn's checkpoint. */
export interface RunState {
  messages: ChatMessage[];
  iterations: number;
  /** The turn's usage, its child agents' included (what the turn cost). */
  usage: UsageTotals;
  /** The part of `usage` that child agents used: limits apply to the agent's own run only. */
  delegatedUsage?: UsageTotals;
  text: string;
  toolLog: ToolLogEntry[];
  rows: TurnMessage[];
  sources: Source[];
  metadata: Record<string, unknown>;
  /** Answers of child agents in this turn: the parent does not stream the same text again. */
  childOutputs: string[];
  pending: PendingCall[];
  /** The structured-output repair round was used (one per turn). */
  repaired?: boolean;
  startedAt: number;
  /** Who the turn runs for, without the added instruction (kept apart, below). */
  context: AgentContext;
  /**
   * The request's added instruction (X-Added-Instruction, or the OpenAI endpoint's system
   * messages): sent with every model call of the turn, so it lives in the checkpoint to outlast a
   * pause; it is never stored as a message.
   */
  addedInstruction?: string | null;
  /** Tools gated for an ancestor agent: they stay gated here whatever this agent declares. */
  inheritedGates?: string[];
  overrides?: TurnOverrides;
}

/** The agent's system prompt, with a caller's suffix for this turn. */
export function systemPromptFor(agent: ResolvedAgent, overrides?: TurnOverrides): string {
  const prompt = [buildSystemPrompt(agent.spec), overrides?.binding?.context].filter(Boolean).join('\n\n');
  const suffix = overrides?.systemPromptSuffix?.trim();
  return suffix ? `${prompt}\n\n${suffix}` : prompt;
}

/** The agent's tools, or the subset a caller chose for this turn, and those of the turn's binding. */
export function offeredTools(agent: ResolvedAgent, overrides?: TurnOverrides): ResolvedAgent['spec']['tools'] {
  const chosen = overrides?.tools;
  const own = chosen ? agent.spec.tools.filter((tool) => chosen.includes(tool.name)) : agent.spec.tools;
  const bound = (overrides?.binding?.tools ?? []).filter((name) => !own.some((tool) => tool.name === name));
  return bound.length ? [...own, ...bound.map((name) => ({ name, requiresApproval: false }))] : own;
}

/** The agent's output schema, or the format a caller asked a conversational agent for this turn. */
export function responseFormatFor(agent: ResolvedAgent, overrides?: TurnOverrides): ResponseFormat | undefined {
  return structuredOutputSchema(agent.spec) ?? overrides?.responseFormat;
}

/** The request context a run of `state` continues with: who it runs for and its added instruction. */
export function requestContext(state: RunState): AgentContext {
  return { ...state.context, addedInstruction: state.addedInstruction ?? null };
}

export function freshState(
  agent: ResolvedAgent,
  ctx: AgentContext,
  history: ChatMessage[],
  userContent: string,
  inheritedGates: string[] = [],
  overrides?: TurnOverrides,
): RunState {
  return {
    inheritedGates,
    overrides,
    messages: [{ role: 'system', content: systemPromptFor(agent, overrides) }, ...history, { role: 'user', content: userContent }],
    iterations: 0,
    usage: emptyUsage(),
    text: '',
    toolLog: [],
    rows: [],
    sources: [],
    metadata: {},
    childOutputs: [],
    pending: [],
    startedAt: Date.now(),
    context: { ...ctx, addedInstruction: null },
    addedInstruction: ctx.addedInstruction,
  };
}

export function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, requests: 0 };
}

/** Adds a child agent's usage to the turn's, apart from the agent's own. */
export function addChildUsage(state: RunState, usage: UsageTotals) {
  addUsage(state.usage, usage);
  addUsage((state.delegatedUsage ??= emptyUsage()), usage);
}

/** What the agent's own model calls used, which its limits count (p8: limits are per agent run). */
export function ownUsage(state: RunState): UsageTotals {
  const delegated = state.delegatedUsage ?? emptyUsage();
  return {
    inputTokens: state.usage.inputTokens - delegated.inputTokens,
    outputTokens: state.usage.outputTokens - delegated.outputTokens,
    requests: state.usage.requests - delegated.requests,
  };
}

export function addUsage(into: UsageTotals, more: UsageTotals) {
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.requests += more.requests;
  if (more.estimated) into.estimated = true;
}
