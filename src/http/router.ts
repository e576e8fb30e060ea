import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './json-body.js';
import type { OriginPolicy } from './origin-policy.js';
import { readBodyWithin } from './request-body.js';

/** Answers the requests it claims (returning true); returns false for any other, which the next route gets. */
type Route = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Answers every request it is given. */
type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface RouterOptions {
  /** Tried in order before the Origin check: each refuses a foreign Origin itself, in its protocol's error shape. */
  routes: Route[];
  origins: OriginPolicy;
  /** GET /readyz: 200 with the body when ready, 503 otherwise. */
  readiness: () => Promise<{ ready: boolean; [key: string]: unknown }>;
  /** GraphQL over HTTP: every request left, a POST with its body already read within the limit. */
  graphql: Handler;
  /** MAX_REQUEST_BYTES. */
  maxRequestBytes: number;
  /** What a multipart request (GraphQL file upload) may carry on top: INGEST_MAX_FILE_BYTES. */
  maxUploadBytes: number;
}

/** GET /healthz: the process is up and serving HTTP (liveness; /readyz tells whether it can do its work). */
export function sendLiveness(res: ServerResponse): void {
  sendJson(res, 200, { status: 'ok' });
}

/** The HTTP server's request listener: the given routes, then the Origin check, /healthz, /readyz and GraphQL. */
export function createRouter(options: RouterOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { routes, origins, graphql, maxRequestBytes } = options;
  return (req, res) => {
    if (routes.some((route) => route(req, res))) return;
    // A page of another site must not act with the caller's identity.
    if (!origins.allows(req.headers.origin, req.headers.host)) {
      return sendJson(res, 403, { errors: [{ message: 'Requests from this origin are not allowed (CORS_ORIGINS)', extensions: { code: 'FORBIDDEN' } }] });
    }
    if (req.url === '/healthz') return sendLiveness(res);
    if (req.url === '/readyz') return void options.readiness().then(({ ready, ...body }) => sendJson(res, ready ? 200 : 503, body));
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return void graphql(req, res);
    const limit = /^multipart\/form-data/i.test(req.headers['content-type'] ?? '') ? maxRequestBytes + options.maxUploadBytes : maxRequestBytes;
    readBodyWithin(req, limit).then(
      (body) => {
        if (body === 'too-large') {
          // The rest of the body is not read: close the connection rather than drain it.
          res.setHeader('connection', 'close');
          return sendJson(res, 413, {
            errors: [
              {
                message: `Request body exceeds ${limit} bytes (MAX_REQUEST_BYTES${limit > maxRequestBytes ? ' + INGEST_MAX_FILE_BYTES' : ''})`,
                extensions: { code: 'PAYLOAD_TOO_LARGE' },
              },
            ],
          });
        }
        // yoga (whatwg-node) uses a body already read from the request instead of the stream.
        if (body.length > 0) Object.assign(req, { body });
        return graphql(req, res);
      },
      () => req.destroy(),
    );
  };
}
