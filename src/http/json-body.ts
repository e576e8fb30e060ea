import type { IncomingMessage, ServerResponse } from 'node:http';
import { PayloadTooLargeError, ValidationError } from '../errors.js';
import { readBodyWithin } from './request-body.js';

/** Reads a request body as JSON, refusing bodies over `limit` bytes however they are sent (the connection is then closed). */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<unknown> {
  const body = await readBodyWithin(req, limit);
  if (body === 'too-large') {
    // The rest of the body is not read: close the connection rather than drain it.
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
