import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AgentContext } from '../../auth/agent-context.js';
import type { PrismaClient } from '../../db/generated/client.js';
import { ForbiddenError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ToolContext, ToolDefinition } from '../../tools/tool.js';
import { toolResult } from './mcp-results.js';

interface DefinedToolDeps {
  prisma: PrismaClient;
  logger: Logger;
}

/**
 * Offers tools written with `defineTool` on the MCP server, run as the caller outside any turn:
 * the definition's zod input (which the SDK lists and checks arguments with), its output schema and
 * annotations, nothing declared a second time.
 */
// Each tool has its own argument type; a list of them can only erase it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function registerDefinedTools(server: McpServer, tools: ToolDefinition<any>[], deps: DefinedToolDeps, caller: AgentContext): void {
  const result = toolResult(deps.logger);
  for (const def of tools) {
    if (!def.input) throw new Error(`MCP tool ${def.name} is not written with defineTool`);
    server.registerTool(
      def.name,
      { description: def.description, inputSchema: def.input, outputSchema: def.output, annotations: def.annotations },
      (args, extra) => result((checked: Record<string, unknown>) => def.handler(checked, callerContext(deps.prisma, caller, extra.signal)))(args),
    );
  }
}

/** What a tool run from MCP has: the caller, no turn, session or job, and no stream to emit into. */
function callerContext(prisma: PrismaClient, agent: AgentContext, signal: AbortSignal): ToolContext {
  return {
    agent,
    prisma,
    turnId: null,
    sessionId: null,
    jobId: null,
    agentName: 'mcp',
    emit: () => {},
    signal,
    delegate: () => Promise.reject(new ForbiddenError('Delegation runs inside a turn: use the ask_agent MCP tool')),
  };
}
