import type { IncomingMessage, ServerResponse } from 'node:http';
import { ForbiddenError, PayloadTooLargeError, ValidationError } from '../errors.js';
import { readBodyWithin } from './request-body.js';

/**
 * Reads a request body as JSON, refusing bodies over `limit` bytes however they are sent (chunked
 * too; the connection is then closed rather than drained), and bodies not declared as JSON: a form
 * or text/plain post is what any web page can send with the caller's identity, without a preflight.
 */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<unknown> {
  if (!/^application\/([\w.-]+\+)?json\b/i.test(req.headers['content-type'] ?? '')) {
    req.resume();
    throw new ForbiddenError('Send the body as JSON (content-type: application/json)');
  }
  const body = await readBodyWithin(req, limit);
  if (body === 'too-large') {
    res.setHeader('connection', 'close');
    throw new PayloadTooLargeError(limit);
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ValidationError('The request body is not valid JSON', [{ path: [], message: 'not valid JSON' }]);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
