import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
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
  /** Runs another agent as a child of this turn (the ask_agent tool); see engine/delegation.ts. */
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

/**
 * A tool the model can call. Ours are written with `defineTool` (define-tool.ts), which derives
 * `parameters` from `input`; an MCP server's tools come with their JSON Schema only.
 */
export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
  description: string;
  /** JSON Schema of the arguments, as the model sees it. */
  parameters: Record<string, unknown>;
  /** The arguments' zod schema (`defineTool`): arguments are parsed with it; without it they are checked against `parameters`. */
  input?: z.ZodObject;
  /** The result's zod schema, when the tool declares one (its MCP `outputSchema`). */
  output?: z.ZodObject;
  /** Never runs on the model's word alone: a human decides first (see approvals). */
  requiresApproval?: boolean;
  /** Offered only to a turn bound to a corpus. */
  requiresCorpus?: boolean;
  /** MCP's hints about what the tool does. */
  annotations?: ToolAnnotations;
  handler(args: Args, ctx: ToolContext): Promise<unknown>;
}
