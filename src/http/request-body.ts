import type { IncomingMessage } from 'node:http';

/**
 * Reads a request body, stopping as soon as it passes `limit` bytes, however it is sent
 * (Content-Length, chunked, or a Content-Length that lies). Resolves to the body, or to
 * 'too-large' without reading the rest.
 */
export function readBodyWithin(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too-large');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}
