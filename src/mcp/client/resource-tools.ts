import type { ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { defineTool } from '../../tools/define-tool.js';
import type { ToolDefinition } from '../../tools/tool.js';

/** Most resources and templates `list_resources` gives the model (the first pages of each). */
const MAX_LISTED = 200;

/** How a connection reads its server's resources (errors already turned into tool errors). */
export interface ResourcePort {
  read(uri: string, signal: AbortSignal): Promise<ReadResourceResult>;
  /** One page of resources or of templates. */
  list(
    kind: 'resources' | 'templates',
    cursor: string | undefined,
    signal: AbortSignal,
  ): Promise<{ items: (Resource | ResourceTemplate)[]; nextCursor?: string }>;
}

/**
 * The tools an agent reads an MCP server's resources with, for servers that offer resources:
 * `read_resource` (one URI) and `list_resources` (what there is to read). An agent declares them
 * like the server's own tools (`name: read_resource`, `server: <name>`); a tool the server lists
 * under the same name is used instead.
 */
export function resourceTools(server: string, port: ResourcePort): ToolDefinition[] {
  const read = defineTool({
    name: 'read_resource',
    description: `Read a resource of the ${server} MCP server by its URI (see list_resources), with its content.`,
    input: z.object({ uri: z.string().min(1).max(2000).describe('The resource’s URI') }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    handler: async ({ uri }, ctx) => {
      const { contents } = await port.read(uri, ctx.signal);
      const parts = contents.map((part) =>
        'blob' in part
          ? { uri: part.uri, mimeType: part.mimeType, binaryBytes: Buffer.byteLength(part.blob, 'base64') }
          : { uri: part.uri, mimeType: part.mimeType, text: part.text },
      );
      return parts.length === 1 && 'text' in parts[0]! ? parts[0].text : parts;
    },
  });
  const list = defineTool({
    name: 'list_resources',
    description: `List the resources of the ${server} MCP server (URIs to read with read_resource) and its URI templates.`,
    input: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    handler: async (_args, ctx) => {
      const [resources, templates] = await Promise.all([all(port, 'resources', ctx.signal), all(port, 'templates', ctx.signal)]);
      return {
        resources: resources.map((r) => pick(r, ['uri', 'name', 'description', 'mimeType'])),
        templates: templates.map((t) => pick(t, ['uriTemplate', 'name', 'description', 'mimeType'])),
      };
    },
  });
  return [read, list] as ToolDefinition[];
}

async function all(port: ResourcePort, kind: 'resources' | 'templates', signal: AbortSignal) {
  const items: (Resource | ResourceTemplate)[] = [];
  let cursor: string | undefined;
  do {
    const page = await port.list(kind, cursor, signal);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && items.length < MAX_LISTED);
  return items.slice(0, MAX_LISTED);
}

function pick(item: Record<string, unknown>, keys: string[]) {
  return Object.fromEntries(keys.filter((k) => item[k] !== undefined).map((k) => [k, item[k]]));
}
