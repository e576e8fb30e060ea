import { z } from 'zod';

/** Running agents: which one answers, how much context a turn gets, and the turn engine's limits. */
export const agentSettings = z
  .object({
    DEFAULT_AGENT: z.string().min(1).default('general').describe('agent for a message that names none (after the session’s agent and `X-Agent-Schema`)'),
    AGENTS_DIR: z
      .string()
      .min(1)
      .optional()
      .describe('operator’s folder of YAML agents, loaded after registered and built-in ones; a file that does not parse stops the start-up, naming it'),
    HISTORY_TOKEN_BUDGET: z.coerce
      .number()
      .int()
      .min(0)
      .default(8000)
      .describe('most tokens of session history sent with a turn (within `CONTEXT_TOKEN_BUDGET`)'),
    HISTORY_COMPRESS_CHARS: z.coerce
      .number()
      .int()
      .min(0)
      .default(400)
      .describe(
        'earlier answers longer than this reach agents that have the `search` tool as head + tail around `... [Message truncated - REM LOOKUP session-<id>-msg-<n> to recover full content] ...`; `0` = never',
      ),
    EPHEMERAL_TURN_RETENTION_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(60_000)
      .describe(
        'how long an ephemeral turn and its event log are kept after it ended (however it ended: completed, failed, cancelled or interrupted), so a client that subscribes late still gets the whole stream; the sweep (`SWEEP_INTERVAL_MS`) deletes it after that; `0` = deleted as soon as its stream ended',
      ),
    CONTEXT_TOKEN_BUDGET: z.coerce
      .number()
      .int()
      .min(256)
      .default(32_000)
      .describe(
        'most tokens of a whole model request (system prompt, tool specs, response format, memory, history, the message, room for `max_tokens`), counted with the model’s tokenizer',
      ),
    MEMORY_TOKEN_BUDGET: z.coerce
      .number()
      .int()
      .min(0)
      .default(1000)
      .describe('tokens for the injected memory: the user’s profile entity and the session’s recent moments; `0` = none'),
    APPROVAL_TTL_MS: z.coerce.number().int().min(0).default(0).describe('how long an approval waits before `APPROVAL_DEFAULT_DECISION` applies; `0` = never'),
    APPROVAL_DEFAULT_DECISION: z.enum(['reject', 'approve']).default('reject').describe('decision for expired approvals'),
    SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).default(5000).describe('how often expired approvals and orphaned turns are looked for'),
    TURN_HEARTBEAT_MS: z.coerce
      .number()
      .int()
      .min(50)
      .default(10_000)
      .describe(
        'a process marks the turn trees it holds alive this often; a tree silent for 3 beats (and at least 2 s) is taken over by another process, which interrupts its running turns (a tree whose holding process has ended is taken over at once, see [Agents](agents.md#crash-recovery))',
      ),
    MAX_AGENT_DEPTH: z.coerce.number().int().min(0).max(10).default(3).describe('deepest chain of agents asking agents (`ask_agent`)'),
    MAX_TOOL_CALLS_PER_RESPONSE: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(8)
      .describe('most tool calls one model response may run; the rest get a tool error asking the model to call them next time'),
    MAX_CHILD_TURNS: z.coerce.number().int().min(0).max(1000).default(20).describe('most child turns (`ask_agent`, at any depth) one top-level turn may start'),
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
