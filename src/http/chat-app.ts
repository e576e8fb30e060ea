import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUILT_APP = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>remgraph</title>
<p>The chat app is not built yet: run <code>npm run build</code> (or restart with <code>npm start</code>).
GraphiQL is at <a href="/graphql">/graphql</a>.</p>`;

/**
 * Serves the built chat app (web/dist): `/` and `/chat` answer its page, `/assets/…` its hashed
 * files (cached for good). Returns false for every other request, which the caller handles.
 */
export function createChatApp(root = BUILT_APP): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '/').split('?')[0]!;
    const page = path === '/' || path === '/chat' || path === '/index.html';
    if (!page && !path.startsWith('/assets/')) return false;
    const file = page ? join(root, 'index.html') : normalize(join(root, decodeURIComponent(path)));
    if (!file.startsWith(root.endsWith(sep) ? root : root + sep)) return false;
    void readFile(file)
      .catch(() => null)
      .then((body) => {
        if (!body) {
          if (page) return send(res, 503, 'text/html; charset=utf-8', Buffer.from(NOT_BUILT), 'no-store', req.method === 'HEAD');
          return send(res, 404, 'text/plain; charset=utf-8', Buffer.from('Not found'), 'no-store', req.method === 'HEAD');
        }
        const cache = page ? 'no-cache' : 'public, max-age=31536000, immutable';
        send(res, 200, TYPES[extname(file)] ?? 'application/octet-stream', body, cache, req.method === 'HEAD');
      });
    return true;
  };
}

function send(res: ServerResponse, status: number, type: string, body: Buffer, cache: string, head: boolean): void {
  res.writeHead(status, { 'content-type': type, 'content-length': body.length, 'cache-control': cache, 'x-content-type-options': 'nosniff' });
  res.end(head ? undefined : body);
}
