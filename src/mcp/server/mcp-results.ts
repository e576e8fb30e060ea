import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isAppError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/** A tool's answer as MCP wants it: the value as JSON text and structured content; a failure is an `isError` result with `CODE: message`. */
export function toolResult(logger: Logger) {
  return <A>(run: (args: A) => Promise<unknown>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        const value = (await run(args)) as Record<string, unknown>;
        return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
      } catch (error) {
        if (isAppError(error)) return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], isError: true };
        logger.error({ err: error }, 'MCP tool failed');
        return { content: [{ type: 'text', text: 'INTERNAL: the tool failed unexpectedly' }], isError: true };
      }
    };
}

/** The MCP spec's JSON-RPC code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A JSON-RPC error the SDK sends as it is. (Its McpError puts "MCP error <code>: " in front of the
 * message, and the client's McpError puts it there again.)
 */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A resource's contents as JSON. A missing one is the spec's -32002 with its uri; other expected
 * failures keep their code and message (invalid params); anything else is logged and masked.
 */
export function resourceResult(logger: Logger) {
  return <A extends unknown[]>(read: (uri: URL, ...rest: A) => Promise<unknown>) =>
    async (uri: URL, ...rest: A) => {
      try {
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await read(uri, ...rest)) }] };
      } catch (error) {
        if (isAppError(error)) {
          const code = error.code === 'NOT_FOUND' ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams;
          throw new RpcError(code, `${error.code}: ${error.message}`, { uri: uri.href });
        }
        logger.error({ err: error, uri: uri.href }, 'MCP resource failed');
        throw new RpcError(ErrorCode.InternalError, 'Unexpected error');
      }
    };
}
