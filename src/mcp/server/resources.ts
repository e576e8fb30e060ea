import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { AgentRegistry } from '../../agents/registry.js';
import type { AgentContext } from '../../auth/agent-context.js';
import type { PrismaClient } from '../../db/generated/client.js';
import { ValidationError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { memorySchema } from '../../rem/memory-schema.js';
import { readResource, recentResources } from '../../rem/read-resource.js';
import { userProfile } from '../../sessions/user-profile.js';
import { defineTool } from '../../tools/define-tool.js';
import { resourceResult } from './mcp-results.js';

/** Most REM resources `resources/list` names (newest first); any other is read by its URI all the same. */
const LISTED_RESOURCES = 100;
const REM_RESOURCE = 'rem://resources/';
const PROFILE = 'user://profile/';

interface ResourceDeps {
  prisma: PrismaClient;
  agents: AgentRegistry;
  logger: Logger;
}

/** The agents the caller can ask, with their tools. */
async function agentList(deps: ResourceDeps, ctx: AgentContext) {
  return (await deps.agents.list(ctx)).map((a) => ({
    name: a.name,
    kind: a.spec.kind,
    description: a.spec.description,
    version: a.version,
    tools: a.spec.tools.map((t) => ({ name: t.name, ...(t.server ? { server: t.server } : {}), requiresApproval: t.requiresApproval })),
  }));
}

/**
 * remgraph's MCP resources, read as the caller: its agents, the memory's shape, the caller's
 * profile and REM resources by key.
 */
export function registerResources(server: McpServer, deps: ResourceDeps, ctx: AgentContext): void {
  const agents = () => agentList(deps, ctx);
  const schema = () => memorySchema(deps.prisma, ctx);
  const profile = (userId: string) => userProfile(deps.prisma, ctx, userId);
  const remResource = (key: string) => readResource(deps.prisma, ctx, key);

  const resource = resourceResult(deps.logger);
  server.registerResource(
    'agents',
    'rem://agents',
    { description: 'The agents the caller can ask, with their tools.', mimeType: 'application/json' },
    resource(agents),
  );
  server.registerResource(
    'entity-schema',
    'rem://schema/entities',
    { description: 'Fields of entities, resources and moments, and the entity types in the caller’s memory.', mimeType: 'application/json' },
    resource(schema),
  );
  const profiles = new ResourceTemplate(`${PROFILE}{user_id}`, {
    list: async () => ({
      resources: ctx.userId ? [{ uri: `${PROFILE}${encodeURIComponent(ctx.userId)}`, name: 'profile', mimeType: 'application/json' }] : [],
    }),
  });
  server.registerResource(
    'user-profile',
    profiles,
    { description: 'The caller’s profile: their user-<id> entity and activity. Only one’s own.', mimeType: 'application/json' },
    resource((_uri, variables: Record<string, string | string[]>) => profile(decoded(String(variables.user_id)))),
  );
  const remResources = new ResourceTemplate(`${REM_RESOURCE}{key}`, {
    list: async () => ({
      resources: (await recentResources(deps.prisma, ctx, LISTED_RESOURCES)).map((r) => ({
        uri: `${REM_RESOURCE}${encodeURIComponent(r.key)}`,
        name: r.name ?? r.key,
        ...(r.summary ? { description: r.summary } : {}),
        mimeType: 'application/json',
      })),
    }),
  });
  server.registerResource(
    'rem-resource',
    remResources,
    { description: 'A REM resource of the caller’s memory by key, with its content (an ingested file with its chunks).', mimeType: 'application/json' },
    resource((_uri, variables: Record<string, string | string[]>) => remResource(decoded(String(variables.key)))),
  );
}

/**
 * `read_resource`: the resources' reads as a tool (the REM seed's "tools and resources as callable
 * functions"), which also takes a resource's key or stored uri.
 */
export function readResourceTool(deps: ResourceDeps) {
  return defineTool({
    name: 'read_resource',
    description:
      'Read a resource as the caller: rem://agents, rem://schema/entities, user://profile/<your user id>, rem://resources/<key>, or a REM resource’s key or stored uri (e.g. "q3-report" or "file:report.md"), with its content.',
    input: z.object({ uri: z.string().min(1).max(2000).describe('e.g. rem://resources/q3-report') }),
    output: z.object({ uri: z.string(), data: z.unknown() }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler({ uri }, { agent: ctx }) {
      if (uri === 'rem://agents') return { uri, data: await agentList(deps, ctx) };
      if (uri === 'rem://schema/entities') return { uri, data: await memorySchema(deps.prisma, ctx) };
      if (uri.startsWith(PROFILE)) return { uri, data: await userProfile(deps.prisma, ctx, decoded(uri.slice(PROFILE.length))) };
      const data = await readResource(deps.prisma, ctx, uri.startsWith(REM_RESOURCE) ? decoded(uri.slice(REM_RESOURCE.length)) : uri);
      return { uri: `${REM_RESOURCE}${encodeURIComponent(data.key)}`, data };
    },
  });
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ValidationError('uri: bad percent-encoding', [{ path: ['uri'], message: 'bad percent-encoding' }]);
  }
}
