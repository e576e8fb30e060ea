import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identify } from '../../auth/identify.js';
import { ForbiddenError, httpStatusOf, isAppError } from '../../errors.js';
import type { OriginPolicy } from '../../http/origin-policy.js';
import { readJsonBody, sendJson } from '../../http/json-body.js';
import type { RemgraphMcpDeps } from './remgraph-server.js';

const MCP_PATH = '/mcp';

export interface McpRouteDeps extends RemgraphMcpDeps {
  identify: Identify;
  origins: OriginPolicy;
  maxRequestBytes: number;
}

/**
 * `/mcp`: remgraph's MCP server over streamable HTTP, stateless: each POST is identified like a
 * GraphQL request (bearer token, or identity headers in header mode) and served by a server bound
 * to that caller, so nothing of one caller is ever reachable from another's request, and any
 * instance can answer any request. Returns false for other paths.
 */
export function createMcpRoute(deps: McpRouteDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if ((req.url ?? '/').split('?')[0] !== MCP_PATH) return false;
    // Stateless: no session to resume (GET) or end (DELETE).
    if (req.method !== 'POST') {
      sendJson(res, 405, rpcError(-32000, 'Method not allowed: remgraph’s MCP endpoint is stateless, POST only'), { allow: 'POST' });
      return true;
    }
    void serve(deps, req, res).catch((error: unknown) => {
      if (!isAppError(error)) deps.logger.error({ err: error }, 'MCP request failed');
      if (res.headersSent) return void res.end();
      const status = httpStatusOf(isAppError(error) ? error.code : 'INTERNAL');
      const headers: Record<string, string> = status === 401 ? { 'www-authenticate': 'Bearer' } : {};
      sendJson(res, status, rpcError(-32000, isAppError(error) ? `${error.code}: ${error.message}` : 'Unexpected error'), headers);
    });
    return true;
  };
}

async function serve(deps: McpRouteDeps, req: IncomingMessage, res: ServerResponse) {
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  // Pages of other sites must not act with a browser's identity (local header mode, cookies).
  if (!deps.origins.allows(header('origin'), header('host'))) throw new ForbiddenError('Origin not allowed (CORS_ORIGINS)');
  const ctx = await deps.identify(header);
  const body = await readJsonBody(req, res, deps.maxRequestBytes);
  // Loaded by the first request: a start does not pay for the MCP SDK.
  const [{ StreamableHTTPServerTransport }, { createRemgraphMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./remgraph-server.js'),
  ]);
  const server = createRemgraphMcpServer(deps, ctx);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
