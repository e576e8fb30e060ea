import { z } from 'zod';

/** Inbound email (POST /inbound/email, `remgraph intake`) and the replies agents send over SMTP. */
export const inboundSettings = z
  .object({
    INBOUND_EMAIL_SECRET: z
      .string()
      .min(16, 'must be at least 16 characters')
      .optional()
      .describe(
        'shared secret of `POST /inbound/email`: each request carries `X-Signature-256: sha256=<HMAC-SHA256 of the body, hex>`; unset, the route is off (404)',
      ),
    INBOUND_EMAIL_TENANT: z
      .string()
      .min(1)
      .default('default')
      .describe('tenant whose shared inbox inbound email lands in: its admins see it and decide its approvals'),
    INBOUND_EMAIL_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(10 * 1024 * 1024)
      .describe('largest inbound email request (413 above)'),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional()
      .describe('SMTP server `send_reply` sends through, e.g. `smtps://user:pass@smtp.example.com:465`; unset, send_reply answers that mail is not configured'),
    MAIL_FROM: z.string().min(3).default('remgraph@localhost').describe('`From` of replies sent by `send_reply`'),
  })
  .transform((e) => ({
    secret: e.INBOUND_EMAIL_SECRET,
    tenantId: e.INBOUND_EMAIL_TENANT,
    maxBytes: e.INBOUND_EMAIL_MAX_BYTES,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
  }));
