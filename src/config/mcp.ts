import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { json, variable } from './env-values.js';

const mcpServer = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    timeout_ms: z.number().int().min(1).optional(),
  })
  .refine((s) => Boolean(s.command) !== Boolean(s.url), 'give either command (stdio) or url (streamable HTTP)');
const mcpServers = z.record(z.string(), mcpServer);

/**
 * MCP servers from MCP_SERVERS (JSON) and the MCP_CONFIG file (YAML, `servers:`; `mcp.yaml` when
 * present), the variable winning on a name in both. `${NAME}` in env and header values is replaced by
 * that environment variable, so secrets stay out of the file: the whole environment is read.
 */
export const mcpSettings = z
  .looseObject({
    MCP_SERVERS: json(z.unknown())
      .optional()
      .describe(
        'MCP servers agents take tools from (`server:` on a tool reference), as JSON: `{"weather":{"command":"node","args":["weather.js"],"env":{"KEY":"${WEATHER_KEY}"}},"search":{"url":"https://…/mcp","headers":{"Authorization":"Bearer ${SEARCH_TOKEN}"},"timeout_ms":10000}}` (`${NAME}` is read from the environment)',
      ),
    MCP_CONFIG: z.string().min(1).optional().meta({
      description: 'YAML file with the same servers under `servers:`; a name in both uses `MCP_SERVERS`',
      shownDefault: '`mcp.yaml` when present',
    }),
    MCP_TOOL_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000).describe('longest wait for an MCP tool call (per server: `timeout_ms`)'),
  })
  .transform((e, ctx) => {
    // Problems are named by where the servers were declared: the variable or the file.
    const problem = (where: string, message: string) => ctx.addIssue({ code: 'custom', path: [where], message });
    const file = e.MCP_CONFIG ?? (existsSync('mcp.yaml') ? 'mcp.yaml' : undefined);
    let fromFile: unknown = {};
    if (file) {
      try {
        fromFile = (parseYaml(readFileSync(file, 'utf8')) as { servers?: unknown } | null)?.servers ?? {};
      } catch (error) {
        problem('MCP_CONFIG', `cannot read ${file} (${(error as Error).message})`);
      }
    }
    const servers: [string, McpServerConfig][] = [];
    for (const [label, raw] of [
      [file ?? 'MCP_CONFIG', fromFile],
      ['MCP_SERVERS', e.MCP_SERVERS ?? {}],
    ] as const) {
      const parsed = mcpServers.safeParse(raw);
      if (!parsed.success) {
        for (const i of parsed.error.issues) problem(label, `servers.${i.path.map(String).join('.')}: ${i.message}`);
        continue;
      }
      for (const [name, s] of Object.entries(parsed.data)) {
        if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
          problem(label, `servers.${name}: server names are lower-case letters, digits, - and _`);
          continue;
        }
        const expand = (values: Record<string, string>, where: string) =>
          Object.fromEntries(
            Object.entries(values).map(([key, value]) => [
              key,
              value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, wanted: string) => {
                const found = variable(e, wanted);
                if (found === undefined) problem(label, `servers.${name}.${where}.${key}: \${${wanted}} is not set`);
                return found ?? '';
              }),
            ]),
          );
        servers.push([name, serverConfig(s, expand, e.MCP_TOOL_TIMEOUT_MS)]);
      }
    }
    return { servers: Object.fromEntries(servers) };
  });

/** An MCP server agents take tools from: a command speaking stdio, or a streamable HTTP endpoint. */
export type McpServerConfig = ReturnType<typeof serverConfig>;

function serverConfig(
  s: z.output<typeof mcpServer>,
  expand: (values: Record<string, string>, where: string) => Record<string, string>,
  defaultTimeoutMs: number,
) {
  const timeoutMs = s.timeout_ms ?? defaultTimeoutMs;
  return s.command
    ? { transport: 'stdio' as const, command: s.command, args: s.args, env: expand(s.env, 'env'), cwd: s.cwd, timeoutMs }
    : { transport: 'http' as const, url: s.url!, headers: expand(s.headers, 'headers'), timeoutMs };
}
