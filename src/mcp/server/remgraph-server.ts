import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { AgentRegistry } from '../../agents/registry.js';
import type { AgentContext } from '../../auth/agent-context.js';
import type { TurnService } from '../../turns/turn-service.js';
import { ValidationError } from '../../errors.js';
import { turnCompletion } from '../../events/turn-completion.js';
import type { TurnEventsDeps } from '../../events/turn-events.js';
import { encodeGlobalID } from '../../http/global-ids.js';
import type { Logger } from '../../logger.js';
import type { IngestFileInput, IngestFileResult } from '../../rem/ingest/ingest-file.js';
import { REM_DIALECT } from '../../rem/dialect.js';
import { normalizeKey } from '../../rem/keys.js';
import { REM_TABLES } from '../../rem/parser.js';
import type { RemService } from '../../rem/service.js';
import { defineTool } from '../../tools/define-tool.js';
import { createSaveMemoryTool } from '../../tools/builtin/save-memory.js';
import { remQueryInput, remResultForModel, remResultOutput } from '../../tools/builtin/search.js';
import { parseSearchWhere } from '../../rem/search-filter.js';
import { registerDefinedTools } from './defined-tools.js';
import { mcpDocumentTools } from './document-tools.js';
import { readResourceTool, registerResources } from './resources.js';
import { sessionIdArg, writeTools } from './write-tools.js';

export interface RemgraphMcpDeps extends TurnEventsDeps {
  rem: RemService;
  agents: AgentRegistry;
  turns: TurnService;
  logger: Logger;
  ingestFile: (ctx: AgentContext, input: IngestFileInput) => Promise<IngestFileResult>;
}

/**
 * remgraph as an MCP server for one caller: REM memory (read, save_memory, ingest_into_rem), agents (ask_agent,
 * save_agent) and register_metadata as tools; agents, the memory's shape, the caller's profile and REM resources as
 * resources (and read_resource). Everything runs as `ctx`, scoped exactly like GraphQL.
 */
export function createRemgraphMcpServer(deps: RemgraphMcpDeps, ctx: AgentContext): McpServer {
  const server = new McpServer(
    { name: 'remgraph', version: '0.1.0' },
    { instructions: 'REM memory (resources, entities, moments) and the agents of remgraph. Start with rem://schema/entities and rem://agents.' },
  );
  registerDefinedTools(server, mcpTools(deps), deps, ctx);
  registerResources(server, deps, ctx);
  return server;
}

/** The tools remgraph's MCP server offers, in the order it lists them; the agents' save_memory among them. */
export function mcpTools(deps: RemgraphMcpDeps) {
  return [...memoryTools(deps), createSaveMemoryTool(deps.rem), askAgentTool(deps), ...writeTools(deps), readResourceTool(deps), ...mcpDocumentTools(deps)];
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Reading memory: a REM query, rows by key, similar content. */
function memoryTools(deps: RemgraphMcpDeps) {
  const remQuery = defineTool({
    name: 'rem_query',
    description: REM_DIALECT,
    input: remQueryInput,
    output: remResultOutput,
    annotations: READ_ONLY,
    handler: async ({ query }, ctx) => remResultForModel(await deps.rem.query(ctx.agent, query)),
  });
  const lookup = defineTool({
    name: 'lookup',
    description: 'Fetch memory rows by key (a natural-language name works: "Sarah Chen" is looked up as sarah-chen), with their full content.',
    input: z.object({ keys: z.array(z.string().min(1).max(500)).min(1).max(50).describe('One or more keys') }),
    output: remResultOutput,
    annotations: READ_ONLY,
    async handler({ keys }, ctx) {
      const normalised = [...new Set(keys.map(normalizeKey).filter(Boolean))];
      if (!normalised.length) throw new ValidationError('keys: no key has letters or digits', [{ path: ['keys'], message: 'no usable key' }]);
      return remResultForModel({ ...(await deps.rem.run(ctx.agent, { mode: 'LOOKUP', keys: normalised })), mode: 'LOOKUP', tookMs: 0 });
    },
  });
  const search = defineTool({
    name: 'search',
    description: 'Find memory rows whose content is similar to a text (vector search), best first.',
    input: z.object({
      text: z.string().min(1).max(4000),
      table: z.enum(REM_TABLES).optional().describe('Only this table; all three by default'),
      limit: z.number().int().min(1).max(100).default(10),
      where: z
        .string()
        .max(4000)
        .optional()
        .describe("Only rows passing these conditions, e.g. tags CONTAINS 'x' AND type = 'y' AND metadata.k = 'v' AND created_at > '2026-01-01'"),
    }),
    output: remResultOutput,
    annotations: READ_ONLY,
    async handler({ text, table, limit, where }, ctx) {
      const filter = where?.trim() ? parseSearchWhere(where) : undefined;
      return remResultForModel({ ...(await deps.rem.run(ctx.agent, { mode: 'SEARCH', text, table, limit, filter })), mode: 'SEARCH', tookMs: 0 });
    },
  });
  return [remQuery, lookup, search];
}

const askAgentOutput = z.object({
  agent: z.string(),
  status: z.string(),
  answer: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  approvals: z.array(z.object({ id: z.string(), tool: z.string(), arguments: z.unknown(), agent_path: z.array(z.string()) })).optional(),
  session_id: z.string(),
  turn_id: z.string(),
});

/** A whole turn of one of remgraph's agents, in a session kept for the caller. */
function askAgentTool(deps: RemgraphMcpDeps) {
  return defineTool({
    name: 'ask_agent',
    description:
      'Ask one of remgraph’s agents (see rem://agents) and get its answer. The exchange is kept in a session: pass session_id to continue one. A turn that needs a human decision returns status AWAITING_APPROVAL with the approvals to decide in remgraph.',
    input: z.object({
      agent_name: z.string().min(1).max(64),
      input_text: z.string().min(1).max(100_000),
      session_id: z.string().max(200).optional().describe('Session to continue (from an earlier answer)'),
    }),
    output: askAgentOutput,
    // The agent's own tools may write memory; each ask is a new turn.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    async handler({ agent_name, input_text, session_id }, ctx) {
      const sessionId = session_id === undefined ? null : sessionIdArg(session_id);
      const { turn, session } = await deps.turns.sendMessage(ctx.agent, { sessionId, content: input_text, agent: agent_name, metadata: { via: 'mcp' } });
      const ids = { session_id: encodeGlobalID('Session', session.id), turn_id: encodeGlobalID('Turn', turn.id) };
      for await (const part of turnCompletion(deps, turn)) {
        if (part.type !== 'end') continue;
        const end = part.end;
        if (end.kind === 'answered') return { agent: agent_name, status: end.status, answer: end.content, ...ids };
        if (end.kind === 'failed') return { agent: agent_name, status: end.status, error: { code: end.code, message: end.message }, ...ids };
        if (end.kind === 'tool_calls') throw new Error(`turn ${turn.id} handed back tool calls, but an MCP ask offers no client tools`);
        return {
          agent: agent_name,
          status: 'AWAITING_APPROVAL',
          approvals: end.approvals.map((a) => ({ id: encodeGlobalID('Approval', a.id), tool: a.toolName, arguments: a.arguments, agent_path: a.agentPath })),
          ...ids,
        };
      }
      throw new Error(`turn ${turn.id} ended without a final event`);
    },
  });
}
