import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { AppError } from '../errors.js';
import type { Source, UsageTotals } from '../events/agent-event.js';
import type { ChatMessage, ResponseFormat, SamplingOptions, ToolSpec } from '../llm/chat-model.js';
import type { DelegationResult } from '../tools/tool.js';
import { buildSystemPrompt, structuredOutputSchema } from '../agents/prompt.js';
import type { ResolvedAgent } from '../agents/registry.js';
import type { TurnBinding } from '../tools/documents/bound-tools.js';
import { storedHistorySchema, type StoredHistory } from './request-history.js';

const usageTotals = z.object({ inputTokens: z.number(), outputTokens: z.number(), requests: z.number(), estimated: z.boolean().optional() });

const toolLogEntry = z.object({
  tool: z.string(),
  toolCallId: z.string(),
  arguments: z.unknown(),
  result: z.unknown(),
  isError: z.boolean(),
  iteration: z.number(),
});

/**
 * A message the turn adds to its session when it ends: the audit trail of its tool calls, the
 * model's reasoning (`think`), and the observations it reported (action tool).
 */
const turnMessage = z.object({
  type: z.enum(['tool_call', 'tool_response', 'think', 'observation']),
  content: z.string().nullable(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
  agentName: z.string(),
});

/** A tool call the turn paused on: waiting for a human decision or for a paused child agent. */
const pendingCall = z.object({
  toolCallId: z.string(),
  name: z.string(),
  args: z.record(z.string(), z.unknown()),
  /** What the model sent: parsed arguments, or the raw text when it was not JSON. */
  shown: z.unknown(),
  approvalId: z.string().optional(),
  childTurnId: z.string().optional(),
});

export type PendingCall = z.infer<typeof pendingCall>;

const agentContext = z.object({
  userId: z.string().nullable(),
  tenantId: z.string(),
  sessionId: z.string().nullable(),
  defaultModel: z.string().nullable(),
  agentSchemaUri: z.string().nullable(),
  isEval: z.boolean(),
  clientId: z.string().nullable(),
  addedInstruction: z.string().nullable(),
  isAdmin: z.boolean(),
  authMode: z.enum(['jwt', 'headers']),
  userEmail: z.string().nullish(),
  userName: z.string().nullish(),
}) satisfies z.ZodType<AgentContext>;

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
// Shapes other modules own (the provider's messages, a search result, a caller's overrides) are
// checked only for their kind here: their fields are theirs to add to.
const chatMessage = z.custom<ChatMessage>(
  (m) => isObject(m) && ['system', 'user', 'assistant', 'tool'].includes((m as { role: unknown }).role as string),
  'is not a chat message',
);

/** The checkpoint's format: a paused turn written by another version is refused, not misread (see readCheckpoint). */
export const CHECKPOINT_VERSION = 1;

/** Everything a paused run needs to continue on any process: stored as the turn's checkpoint. */
const runStateSchema = z.object({
  /** The checkpoint's format; checkpoints written before it was versioned are version 1. */
  version: z.literal(CHECKPOINT_VERSION).default(CHECKPOINT_VERSION),
  messages: z.array(chatMessage),
  /** The session's messages the history among `messages` was read from: llm_calls stores each request without it (request-history.ts). */
  history: storedHistorySchema.optional(),
  iterations: z.number().int().min(0),
  /** The turn's usage, its child agents' included (what the turn cost). */
  usage: usageTotals,
  /** The part of `usage` that child agents used: limits apply to the agent's own run only. */
  delegatedUsage: usageTotals.optional(),
  text: z.string(),
  toolLog: z.array(toolLogEntry),
  rows: z.array(turnMessage),
  sources: z.array(z.custom<Source>(isObject, 'is not a source')),
  metadata: z.record(z.string(), z.unknown()),
  /** Answers of child agents in this turn: the parent does not stream the same text again. */
  childOutputs: z.array(z.string()),
  pending: z.array(pendingCall),
  /** The structured-output repair round was used (one per turn). */
  repaired: z.boolean().optional(),
  startedAt: z.number(),
  /** Who the turn runs for, without the added instruction (kept apart, below). */
  context: agentContext,
  /**
   * The request's added instruction (X-Added-Instruction, or the OpenAI endpoint's system
   * messages): sent with every model call of the turn, so it lives in the checkpoint to outlast a
   * pause; it is never stored as a message.
   */
  addedInstruction: z.string().nullish(),
  /** Tools gated for an ancestor agent: they stay gated here whatever this agent declares. */
  inheritedGates: z.array(z.string()).optional(),
  overrides: z.custom<TurnOverrides>(isObject, 'is not a set of overrides').optional(),
});

export type RunState = z.output<typeof runStateSchema>;

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

export type Resolution =
  { kind: 'approval'; approvalId: string; approved: boolean; reason: string | null } | { kind: 'child'; result: DelegationResult; usage: UsageTotals };

/** Per-call settings a caller chose for one turn (OpenContracts' AgentConfig), within what the agent allows; a conversational agent answering in `responseFormat` is validated like a structured one. */
export interface TurnOverrides extends SamplingOptions {
  /** Appended to the agent's system prompt for this turn. */
  systemPromptSuffix?: string;
  /** A subset of the agent's tools; the others are not offered (nor run) this turn. */
  tools?: string[];
  /**
   * Functions the caller runs itself (client tools of the OpenAI-compatible API), offered beside the
   * agent's: the loop never runs them; a model response calling one ends the turn TOOL_CALLS.
   */
  clientTools?: ToolSpec[];
  /** The document or corpus the turn is about: its tools are offered besides the agent's, its context told. */
  binding?: TurnBinding;
  /** Each model call's request body goes out as a `model_request` event before the call (its child agents' too). */
  debug?: boolean;
}

/** The agent's system prompt, with a caller's suffix for this turn. */
function systemPromptFor(agent: ResolvedAgent, overrides?: TurnOverrides): string {
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

/**
 * What starts a turn: the user's message, or the caller's results of the calls its last turn handed
 * back (`calls` is the assistant message that made them, `results` answer each).
 */
export type TurnOpening = string | { calls: ChatMessage & { role: 'assistant' }; results: (ChatMessage & { role: 'tool' })[] };

export function freshState(
  agent: ResolvedAgent,
  ctx: AgentContext,
  history: ChatMessage[],
  opening: TurnOpening,
  inheritedGates: string[] = [],
  overrides?: TurnOverrides,
): RunState {
  const asked: ChatMessage[] = typeof opening === 'string' ? [{ role: 'user', content: opening }] : [opening.calls, ...opening.results];
  return {
    version: CHECKPOINT_VERSION,
    inheritedGates,
    overrides,
    messages: [{ role: 'system', content: systemPromptFor(agent, overrides) }, ...history, ...asked],
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

/** Puts the conversation a turn's model reads (memory, then history) between its system prompt and its message. */
export function addHistory(state: RunState, context: { messages: ChatMessage[]; history: StoredHistory | null }): void {
  state.messages.splice(1, 0, ...context.messages);
  if (context.history) state.history = { ...context.history, at: context.history.at + 1 };
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

/** A paused turn's checkpoint that this server cannot resume: written by another version, or damaged. */
export class CheckpointError extends AppError {
  readonly code = 'INTERNAL';
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

/** A stored checkpoint, checked before a run continues from it: CheckpointError when it is of another version or not a run's state. */
export function readCheckpoint(stored: unknown): RunState {
  if (!isObject(stored)) throw new CheckpointError('The paused turn has no readable checkpoint');
  const version = (stored as { version?: unknown }).version ?? CHECKPOINT_VERSION;
  if (version !== CHECKPOINT_VERSION) {
    throw new CheckpointError(`The paused turn's checkpoint is of version ${JSON.stringify(version)}; this server resumes version ${CHECKPOINT_VERSION} only`);
  }
  const parsed = runStateSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(checkpoint)'}: ${issue.message}`);
  throw new CheckpointError(`The paused turn's checkpoint could not be read: ${problems.join('; ')}`);
}
