import type { IncomingMessage, ServerResponse } from 'node:http';
import { PayloadTooLargeError, ValidationError } from '../errors.js';

/** Reads a request body as JSON, refusing bodies over `limit` bytes however they are sent (chunked too). */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw new PayloadTooLargeError(limit);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('The request body is not valid JSON', [{ path: [], message: 'not valid JSON' }]);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
