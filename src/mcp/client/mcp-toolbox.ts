import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../config/mcp.js';
import { ToolFailedError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ToolDefinition } from '../../tools/tool.js';
import { resourceTools, type ResourcePort } from './resource-tools.js';

const CLIENT_INFO = { name: 'remgraph', version: '0.1.0' };
/** Longest wait for a server to start and answer `initialize` + `tools/list`. */
const CONNECT_TIMEOUT_MS = 20_000;
/** Least time between two attempts to reach a server that is down, when its tools are asked for. */
const RETRY_MS = 30_000;

let loadedSdk: ReturnType<typeof importSdk> | undefined;

/** The MCP SDK, loaded on the first connection: without MCP servers a start does not pay for it. */
function sdk() {
  return (loadedSdk ??= importSdk());
}

async function importSdk() {
  const [{ Client }, { getDefaultEnvironment, StdioClientTransport }, { StreamableHTTPClientTransport }, { ErrorCode, McpError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { Client, getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport, ErrorCode, McpError };
}

/**
 * The tools of the configured MCP servers, for agents whose tool references name a `server`, with
 * `read_resource` and `list_resources` for servers that offer resources (see resource-tools.ts). Each
 * server is connected and its tools listed at start-up, listed again when it announces a change,
 * and reconnected (and listed again) by the next call after its connection closed. A server that
 * cannot be reached does not stop the start-up: its tools fail as tool errors until it answers.
 */
export class McpToolbox {
  private readonly servers: Map<string, McpConnection>;

  constructor(configs: Record<string, McpServerConfig>, logger: Logger) {
    this.servers = new Map(Object.entries(configs).map(([name, config]) => [name, new McpConnection(name, config, logger)]));
  }

  /** The server is configured (its tools may still be unknown until it answers). */
  has(server: string): boolean {
    return this.servers.has(server);
  }

  /**
   * A tool of a server as the registry runs it; undefined when the server does not (or not yet)
   * list it. Asking about a server that is down tries to reach it again in the background (at most
   * every RETRY_MS), so its tools come back without a restart.
   */
  tool(server: string, name: string): ToolDefinition | undefined {
    const connection = this.servers.get(server);
    connection?.revive();
    return connection?.tools.get(name);
  }

  /** The first server (in configuration order) listing a tool of that name: where a bare tool name of a routing profile comes from. */
  serverOf(name: string): string | undefined {
    for (const [server, connection] of this.servers) if (connection.tools.has(name)) return server;
    return undefined;
  }

  /** Connects every server and lists its tools (again); a server that cannot be reached is logged and tried again by its next call. */
  async connect(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.connect().catch(() => {})));
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.close()));
  }
}

class McpConnection {
  tools = new Map<string, ToolDefinition>();
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private listing: Promise<void> | undefined;
  private attemptedAt = 0;
  private closed = false;

  constructor(
    private readonly name: string,
    private readonly config: McpServerConfig,
    private readonly logger: Logger,
  ) {}

  connect(): Promise<Client> {
    this.attemptedAt = Date.now();
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  revive(): void {
    if (!this.client && !this.connecting && !this.closed && Date.now() - this.attemptedAt >= RETRY_MS) void this.connect().catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.close().catch(() => {});
    this.client = undefined;
  }

  private async open(): Promise<Client> {
    await this.client?.close().catch(() => {});
    const { Client, ...transports } = await sdk();
    const client = new Client(CLIENT_INFO, {
      // Listed here rather than by the SDK, so that a call can wait for a change it caused (below).
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void this.relist(client) } },
    });
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    try {
      await client.connect(this.transport(transports), { timeout: CONNECT_TIMEOUT_MS });
      const tools = await listAll(client);
      if (this.closed) throw new Error('closed');
      this.setTools(tools, client);
      this.client = client;
      this.logger.info({ server: this.name, tools: tools.map((t) => t.name) }, 'MCP server connected');
      return client;
    } catch (error) {
      await client.close().catch(() => {});
      if (!this.closed) this.logger.error({ err: error, server: this.name }, 'MCP server could not be reached');
      throw new ToolFailedError(`MCP server ${this.name} is unavailable`);
    }
  }

  /** Lists the tools again after the server announced a change; a call that caused it waits for it. */
  private relist(client: Client) {
    const listing = listAll(client)
      .then((tools) => this.setTools(tools, client))
      .catch((error: unknown) => this.logger.warn({ err: error, server: this.name }, 'MCP server tools could not be listed again'))
      .finally(() => {
        if (this.listing === listing) this.listing = undefined;
      });
    this.listing = listing;
  }

  private transport({ getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport }: Omit<Awaited<ReturnType<typeof sdk>>, 'Client'>) {
    const config = this.config;
    if (config.transport === 'http') return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    // The SDK's default environment (PATH, HOME, …) rather than all of ours, so secrets stay here; plus what the config gives.
    return new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: config.cwd,
      stderr: 'inherit',
    });
  }

  /** The server's tools, plus read_resource and list_resources when it offers resources (its own tools of those names win). */
  private setTools(tools: Tool[], client: Client) {
    const own = tools.map((tool) => this.definition(tool));
    const reading = client.getServerCapabilities()?.resources ? resourceTools(this.name, this.resourcePort) : [];
    this.tools = new Map([...reading, ...own].map((def) => [def.name, def]));
  }

  private readonly resourcePort: ResourcePort = {
    read: (uri, signal) => this.request('read_resource', (client, options) => client.readResource({ uri }, options), signal),
    list: async (kind, cursor, signal) => {
      const params = cursor ? { cursor } : undefined;
      if (kind === 'resources') {
        const page = await this.request('list_resources', (client, options) => client.listResources(params, options), signal);
        return { items: page.resources, nextCursor: page.nextCursor };
      }
      const page = await this.request('list_resources', (client, options) => client.listResourceTemplates(params, options), signal);
      return { items: page.resourceTemplates, nextCursor: page.nextCursor };
    },
  };

  private definition(tool: Tool): ToolDefinition {
    return {
      name: tool.name,
      description: tool.description ?? '',
      parameters: tool.inputSchema as Record<string, unknown>,
      handler: (args, ctx) => this.call(tool.name, args, ctx.signal),
    };
  }

  private async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const result = (await this.request(
      tool,
      (client, options) => client.callTool({ name: tool, arguments: args }, undefined, options),
      signal,
    )) as CallToolResult;
    // The server announces a change its tool made before answering: the new list is in effect once the answer is.
    await this.listing;
    const text = result.content
      .filter((part): part is Extract<CallToolResult['content'][number], { type: 'text' }> => part.type === 'text')
      .map((part) => part.text)
      .join('\n');
    if (result.isError) throw new ToolFailedError(text || `${tool} (MCP server ${this.name}) reported an error`);
    if (result.structuredContent) return result.structuredContent;
    return result.content.every((part) => part.type === 'text') ? text : result.content;
  }

  /** One request to the server (connecting first if needed); any failure becomes a tool error naming `what`. */
  private async request<T>(what: string, send: (client: Client, options: RequestOptions) => Promise<T>, signal: AbortSignal): Promise<T> {
    const client = this.client ?? (await this.connect());
    try {
      return await send(client, { timeout: this.config.timeoutMs, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      const { McpError, ErrorCode } = await sdk();
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new ToolFailedError(`${what} (MCP server ${this.name}) did not answer within ${this.config.timeoutMs} ms`);
      }
      if (error instanceof McpError) throw new ToolFailedError(`${what} (MCP server ${this.name}) failed: ${error.message}`);
      this.logger.warn({ err: error, server: this.name, tool: what }, 'MCP request failed');
      throw new ToolFailedError(`${what} (MCP server ${this.name}) could not be called`);
    }
  }
}

async function listAll(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: CONNECT_TIMEOUT_MS });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
