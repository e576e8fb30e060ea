import type { AgentContext } from '../auth/agent-context.js';
import type { PrismaClient } from '../db/generated/client.js';
import type { AgentEventBody } from '../events/agent-event.js';

/** What a tool handler may use while it runs. */
export interface ToolContext {
  agent: AgentContext;
  prisma: PrismaClient;
  /** The turn the tool runs in; null in a background run (dreaming, evaluators), which has `jobId`. */
  turnId: string | null;
  sessionId: string | null;
  /** The background job the tool runs in, if any: what memory written here records as its source. */
  jobId: string | null;
  /** Name of the agent that called the tool. */
  agentName: string;
  /** Emits an event into the turn's stream (e.g. `action` or `sources`). */
  emit(event: AgentEventBody): void;
  signal: AbortSignal;
  /** Runs another agent as a child of this turn (the ask_agent tool); see agents/delegation.ts. */
  delegate(request: DelegationRequest): Promise<DelegationResult>;
}

export interface DelegationRequest {
  agentName: string;
  inputText: string;
  inputData?: unknown;
}

export interface DelegationResult {
  childTurnId: string;
  agent: string;
  status: string;
  content: string | null;
}

/** A tool the model can call. `parameters` is a JSON Schema; arguments are validated against it. */
export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** Never runs on the model's word alone: a human decides first (see approvals). */
  requiresApproval?: boolean;
  handler(args: Args, ctx: ToolContext): Promise<unknown>;
}
