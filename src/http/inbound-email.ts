import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAppError } from '../errors.js';
import type { InboundEmail } from '../db/generated/client.js';
import { loadMailParser, readInbound, type InboundMessage } from '../inbound/inbound-message.js';
import { signatureMatches } from '../inbound/signature.js';
import type { Logger } from '../logger.js';
import { encodeGlobalID } from './global-ids.js';
import { sendJson } from './json-body.js';
import { readBodyWithin } from './request-body.js';

const INBOUND_EMAIL_PATH = '/inbound/email';

export interface InboundEmailRouteDeps {
  settings: { secret: string | undefined; maxBytes: number };
  intake(message: InboundMessage): Promise<{ email: InboundEmail; duplicate: boolean }>;
  logger: Logger;
}

const refuse = (res: ServerResponse, status: number, code: string, message: string) => sendJson(res, status, { error: { code, message } });

/**
 * POST /inbound/email: an email (raw RFC 822, or an inbound-parse webhook's JSON or form) signed
 * with INBOUND_EMAIL_SECRET in X-Signature-256. 202 with the email's id once it is stored and its
 * job queued (also for a Message-ID delivered before); 401, 400 or 413 store nothing. Off (404)
 * without a secret.
 */
export function createInboundEmailRoute(deps: InboundEmailRouteDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  // Loaded now when the route is on (see loadMailParser); a failure to load is the first email's to report.
  if (deps.settings.secret) loadMailParser().catch(() => {});
  return (req, res) => {
    if ((req.url ?? '/').split('?')[0] !== INBOUND_EMAIL_PATH) return false;
    const { secret, maxBytes } = deps.settings;
    if (!secret) {
      refuse(res, 404, 'NOT_FOUND', 'Inbound email is off: set INBOUND_EMAIL_SECRET');
      return true;
    }
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'POST an email' } }, { allow: 'POST' });
      return true;
    }
    void receive(deps, secret, maxBytes, req, res).catch((error: unknown) => {
      if (!isAppError(error)) deps.logger.error({ err: error }, 'inbound email failed');
      if (res.headersSent) return void res.end();
      if (isAppError(error) && error.code === 'VALIDATION_FAILED') return refuse(res, 400, error.code, error.message);
      refuse(res, 500, 'INTERNAL', 'The email could not be stored; deliver it again');
    });
    return true;
  };
}

async function receive(deps: InboundEmailRouteDeps, secret: string, maxBytes: number, req: IncomingMessage, res: ServerResponse) {
  const body = await readBodyWithin(req, maxBytes);
  if (body === 'too-large') {
    res.setHeader('connection', 'close');
    return refuse(res, 413, 'PAYLOAD_TOO_LARGE', `The email exceeds ${maxBytes} bytes (INBOUND_EMAIL_MAX_BYTES)`);
  }
  const signature = req.headers['x-signature-256'];
  if (!signatureMatches(secret, body, Array.isArray(signature) ? signature[0] : signature)) {
    return refuse(res, 401, 'UNAUTHENTICATED', 'X-Signature-256 must be sha256=<hex HMAC-SHA256 of the body with INBOUND_EMAIL_SECRET>');
  }
  const message = await readInbound(req.headers['content-type'] ?? '', body);
  const { email, duplicate } = await deps.intake(message);
  sendJson(res, 202, { id: encodeGlobalID('InboundEmail', email.id), messageId: email.messageId, route: email.route, duplicate });
}
