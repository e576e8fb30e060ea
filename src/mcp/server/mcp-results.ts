import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
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

/** A resource's contents as JSON; expected failures keep their code and message, anything else is logged and masked. */
export function resourceResult(logger: Logger) {
  return <A extends unknown[]>(read: (uri: URL, ...rest: A) => Promise<unknown>) =>
    async (uri: URL, ...rest: A) => {
      try {
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await read(uri, ...rest)) }] };
      } catch (error) {
        if (isAppError(error)) throw new McpError(ErrorCode.InvalidParams, `${error.code}: ${error.message}`);
        logger.error({ err: error, uri: uri.href }, 'MCP resource failed');
        throw new McpError(ErrorCode.InternalError, 'Unexpected error');
      }
    };
}
