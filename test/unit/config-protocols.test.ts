import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('MCP server settings', () => {
  it('reads stdio and HTTP servers from MCP_SERVERS and the MCP_CONFIG file, filling ${NAME} from the environment', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'remgraph-mcp-')), 'mcp.yaml');
    await writeFile(
      file,
      'servers:\n  crm:\n    url: https://crm.example.com/mcp\n    headers: { Authorization: "Bearer ${CRM_TOKEN}" }\n    timeout_ms: 5000\n  weather:\n    command: old\n',
    );
    const config = loadConfig({
      MCP_CONFIG: file,
      CRM_TOKEN: 'secret',
      MCP_TOOL_TIMEOUT_MS: '9000',
      MCP_SERVERS: JSON.stringify({ weather: { command: 'node', args: ['w.js'], env: { KEY: '${CRM_TOKEN}' } } }),
    });
    expect(config.mcp.servers).toEqual({
      crm: { transport: 'http', url: 'https://crm.example.com/mcp', headers: { Authorization: 'Bearer secret' }, timeoutMs: 5000 },
      weather: { transport: 'stdio', command: 'node', args: ['w.js'], env: { KEY: 'secret' }, cwd: undefined, timeoutMs: 9000 },
    });
  });

  it('names what is wrong', () => {
    expect(problems({ MCP_SERVERS: '{nope' })[0]).toMatch(/^MCP_SERVERS: not valid JSON/);
    expect(problems({ MCP_SERVERS: '{"w":{"command":"a","url":"http://x"}}' })).toEqual([
      'MCP_SERVERS: servers.w: give either command (stdio) or url (streamable HTTP)',
    ]);
    expect(problems({ MCP_SERVERS: '{"Bad Name":{"command":"a"}}' })[0]).toMatch(/server names are lower-case/);
    expect(problems({ MCP_SERVERS: '{"w":{"url":"http://x","headers":{"a":"${MISSING_VAR}"}}}' })).toEqual([
      'MCP_SERVERS: servers.w.headers.a: ${MISSING_VAR} is not set',
    ]);
    expect(problems({ MCP_CONFIG: '/nonexistent/mcp.yaml' })[0]).toMatch(/^MCP_CONFIG: cannot read \/nonexistent\/mcp.yaml/);
  });
});

describe('OpenTelemetry settings', () => {
  it('are off by default and follow the standard OTEL_* variables', () => {
    expect(loadConfig({}).telemetry).toEqual({ exporter: null, serviceName: 'remgraph' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SERVICE_NAME: 'api' }).telemetry).toEqual({
      exporter: 'otlp',
      serviceName: 'api',
    });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).telemetry.exporter).toBe('console');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).telemetry.exporter).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces', OTEL_TRACES_EXPORTER: 'none' }).telemetry.exporter).toBeNull();
    expect(problems({ OTEL_TRACES_EXPORTER: 'zipkin' })[0]).toMatch(/^OTEL_TRACES_EXPORTER: /);
  });
});
