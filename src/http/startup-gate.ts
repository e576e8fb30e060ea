import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../config/config.js';
import { sendJson } from './json-body.js';
import type { OriginPolicy } from './origin-policy.js';
import { sendLiveness } from './router.js';

/** The HTTP server, listening before the app behind it is built. */
export interface StartupGate {
  server: Server;
  /** Hands the requests and websocket upgrades held so far, then every later one, to the app. */
  open(listener: RequestListener): void;
}

/**
 * Listens at once, before the app's modules are loaded and its database is open (most of a start):
 * `/healthz` (liveness) answers from then on, `/readyz` answers 503 `starting`, and every other
 * request or websocket upgrade waits for `open`, which hands it to the app as if it had just arrived.
 * Rejects when the port cannot be listened on.
 */
export function listenEarly(settings: Pick<Config['server'], 'port' | 'host'>, origins: OriginPolicy): Promise<StartupGate> {
  const requests: Parameters<RequestListener>[] = [];
  const upgrades: [IncomingMessage, Duplex, Buffer][] = [];
  let app: RequestListener | undefined;
  const server = createServer((req, res) => {
    if (app) return app(req, res);
    // The same answers as the app's router gives a page of another site.
    if (origins.allows(req.headers.origin, req.headers.host)) {
      if (req.url === '/healthz') return sendLiveness(res);
      if (req.url === '/readyz') return sendJson(res, 503, { status: 'starting' });
    }
    requests.push([req, res]);
  });
  const holdUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => upgrades.push([req, socket, head]);
  server.on('upgrade', holdUpgrade);
  const open = (listener: RequestListener) => {
    app = listener;
    server.off('upgrade', holdUpgrade);
    for (const [req, res] of requests.splice(0)) listener(req, res);
    for (const upgrade of upgrades.splice(0)) server.emit('upgrade', ...upgrade);
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve({ server, open });
    });
  });
}
