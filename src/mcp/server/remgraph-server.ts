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
import { saveMemory, type SaveMemoryInput } from '../../rem/save-memory.js';
import type { RemService } from '../../rem/service.js';
import { createSaveMemoryTool, savedMemoryReport } from '../../tools/builtin/save-memory.js';
import { remResultForModel } from '../../tools/builtin/search.js';
import { parseSearchWhere } from '../../rem/search-filter.js';
import { toolResult } from './mcp-results.js';
import { registerResources } from './resources.js';
import { registerWriteTools, sessionIdArg } from './write-tools.js';

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
  const tool = toolResult(deps.logger);

  server.registerTool(
    'rem_query',
    {
      description: REM_DIALECT,
      inputSchema: { query: z.string().min(1).max(4000).describe('e.g. LOOKUP "sarah-chen"') },
    },
    tool(async ({ query }: { query: string }) => remResultForModel(await deps.rem.query(ctx, query))),
  );
  server.registerTool(
    'lookup',
    {
      description: 'Fetch memory rows by key (a natural-language name works: "Sarah Chen" is looked up as sarah-chen), with their full content.',
      inputSchema: { keys: z.array(z.string().min(1).max(500)).min(1).max(50).describe('One or more keys') },
    },
    tool(async ({ keys }: { keys: string[] }) => {
      const normalised = [...new Set(keys.map(normalizeKey).filter(Boolean))];
      if (!normalised.length) throw new ValidationError('keys: no key has letters or digits', [{ path: ['keys'], message: 'no usable key' }]);
      return remResultForModel({ ...(await deps.rem.run(ctx, { mode: 'LOOKUP', keys: normalised })), mode: 'LOOKUP', tookMs: 0 });
    }),
  );
  server.registerTool(
    'search',
    {
      description: 'Find memory rows whose content is similar to a text (vector search), best first.',
      inputSchema: {
        text: z.string().min(1).max(4000),
        table: z.enum(REM_TABLES).optional().describe('Only this table; all three by default'),
        limit: z.number().int().min(1).max(100).default(10),
        where: z
          .string()
          .max(4000)
          .optional()
          .describe("Only rows passing these conditions, e.g. tags CONTAINS 'x' AND type = 'y' AND metadata.k = 'v' AND created_at > '2026-01-01'"),
      },
    },
    tool(async ({ text, table, limit, where }: { text: string; table?: (typeof REM_TABLES)[number]; limit: number; where?: string }) => {
      const filter = where?.trim() ? parseSearchWhere(where) : undefined;
      return remResultForModel({ ...(await deps.rem.run(ctx, { mode: 'SEARCH', text, table, limit, filter })), mode: 'SEARCH', tookMs: 0 });
    }),
  );
  // The agents' tool, offered as is: its description and JSON Schema (as zod, which the SDK checks
  // arguments against); the row records no turn or job, as for any write a person makes.
  const saveMemoryTool = createSaveMemoryTool(deps.rem);
  server.registerTool(
    saveMemoryTool.name,
    { description: saveMemoryTool.description, inputSchema: z.fromJSONSchema(saveMemoryTool.parameters) as z.ZodType<SaveMemoryInput> },
    tool(async (input: SaveMemoryInput) => savedMemoryReport(await saveMemory({ prisma: deps.prisma, embedder: deps.rem.embedder }, ctx, input, {}))),
  );
  server.registerTool(
    'ask_agent',
    {
      description:
        'Ask one of remgraph’s agents (see rem://agents) and get its answer. The exchange is kept in a session: pass session_id to continue one. A turn that needs a human decision returns status AWAITING_APPROVAL with the approvals to decide in remgraph.',
      inputSchema: {
        agent_name: z.string().min(1).max(64),
        input_text: z.string().min(1).max(100_000),
        session_id: z.string().max(200).optional().describe('Session to continue (from an earlier answer)'),
      },
    },
    tool(async ({ agent_name, input_text, session_id }: { agent_name: string; input_text: string; session_id?: string }) => {
      const sessionId = session_id === undefined ? null : sessionIdArg(session_id);
      const { turn, session } = await deps.turns.sendMessage(ctx, { sessionId, content: input_text, agent: agent_name, metadata: { via: 'mcp' } });
      const ids = { session_id: encodeGlobalID('Session', session.id), turn_id: encodeGlobalID('Turn', turn.id) };
      for await (const part of turnCompletion(deps, turn)) {
        if (part.type !== 'end') continue;
        const end = part.end;
        if (end.kind === 'answered') return { agent: agent_name, status: end.status, answer: end.content, ...ids };
        if (end.kind === 'failed') return { agent: agent_name, status: end.status, error: { code: end.code, message: end.message }, ...ids };
        return {
          agent: agent_name,
          status: 'AWAITING_APPROVAL',
          approvals: end.approvals.map((a) => ({ id: encodeGlobalID('Approval', a.id), tool: a.toolName, arguments: a.arguments, agent_path: a.agentPath })),
          ...ids,
        };
      }
      throw new Error(`turn ${turn.id} ended without a final event`);
    }),
  );

  registerWriteTools(server, deps, ctx);
  registerResources(server, deps, ctx);
  return server;
}
