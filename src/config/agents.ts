import { z } from 'zod';

/** Running agents: which one answers, how much context a turn gets, and the turn engine's limits. */
export const agentSettings = z
  .object({
    /** Agent used when a message names none and the session has none. */
    DEFAULT_AGENT: z.string().min(1).default('general'),
    /** Operator's folder of YAML agents, loaded after the database and the built-in agents. */
    AGENTS_DIR: z.string().min(1).optional(),
    /** Most tokens of session history sent with each turn (within CONTEXT_TOKEN_BUDGET). */
    HISTORY_TOKEN_BUDGET: z.coerce.number().int().min(0).default(8000),
    /** Earlier assistant answers longer than this reach agents with the search tool as head + tail around a REM LOOKUP breadcrumb; 0 = never. */
    HISTORY_COMPRESS_CHARS: z.coerce.number().int().min(0).default(400),
    /** How long an ephemeral turn (sendMessage ephemeral: true) and its event log are kept after it ended, so a late subscriber still gets the whole stream; 0 = deleted as soon as its stream ended. */
    EPHEMERAL_TURN_RETENTION_MS: z.coerce.number().int().min(0).default(60_000),
    /** Most tokens a whole model request may use (system prompt, tools, memory, history, message, room for the reply), counted with the model's tokenizer. */
    CONTEXT_TOKEN_BUDGET: z.coerce.number().int().min(256).default(32_000),
    /** Tokens for the injected memory (the user's profile entity and the session's recent moments); 0 = none. */
    MEMORY_TOKEN_BUDGET: z.coerce.number().int().min(0).default(1000),
    /** How long an approval waits before APPROVAL_DEFAULT_DECISION applies; 0 = forever. */
    APPROVAL_TTL_MS: z.coerce.number().int().min(0).default(0),
    /** Decision applied to an expired approval. */
    APPROVAL_DEFAULT_DECISION: z.enum(['reject', 'approve']).default('reject'),
    /** How often expired approvals and orphaned turns are looked for. */
    SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).default(5000),
    /** How often a process marks the turn trees it holds alive; a tree silent for 3 beats (and at least 2 s) is taken over and its running turns interrupted. */
    TURN_HEARTBEAT_MS: z.coerce.number().int().min(50).default(10_000),
    /** Deepest chain of agents asking agents (ask_agent). */
    MAX_AGENT_DEPTH: z.coerce.number().int().min(0).max(10).default(3),
    /** Most tool calls one model response may run (the rest are refused with a tool error). */
    MAX_TOOL_CALLS_PER_RESPONSE: z.coerce.number().int().min(1).max(100).default(8),
    /** Most child turns (ask_agent) one top-level turn may start, at any depth. */
    MAX_CHILD_TURNS: z.coerce.number().int().min(0).max(1000).default(20),
  })
  .transform((e) => ({
    defaultAgent: e.DEFAULT_AGENT,
    agentsDir: e.AGENTS_DIR,
    historyTokenBudget: e.HISTORY_TOKEN_BUDGET,
    historyCompressChars: e.HISTORY_COMPRESS_CHARS,
    ephemeralRetentionMs: e.EPHEMERAL_TURN_RETENTION_MS,
    contextTokenBudget: e.CONTEXT_TOKEN_BUDGET,
    memoryTokenBudget: e.MEMORY_TOKEN_BUDGET,
    approvalTtlMs: e.APPROVAL_TTL_MS,
    approvalDefault: e.APPROVAL_DEFAULT_DECISION,
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    heartbeatMs: e.TURN_HEARTBEAT_MS,
    maxDepth: e.MAX_AGENT_DEPTH,
    maxToolCallsPerResponse: e.MAX_TOOL_CALLS_PER_RESPONSE,
    maxChildTurns: e.MAX_CHILD_TURNS,
  }));
