import { randomUUID } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import { ToolFailedError, ValidationError } from '../errors.js';

interface OutgoingReply {
  to: string;
  subject: string;
  body: string;
  /** The Message-ID answered. */
  inReplyTo: string;
  references: string[];
  /** The reply's own Message-ID, from `messageId()`: stored before the send. */
  messageId: string;
}

/** Sends replies over SMTP (SMTP_URL) from MAIL_FROM. */
export interface Mailer {
  /** A new Message-ID in MAIL_FROM's domain. */
  messageId(): string;
  send(reply: OutgoingReply): Promise<void>;
}

export function createMailer(settings: { smtpUrl: string | undefined; mailFrom: string }): Mailer {
  let transport: Transporter | undefined;
  // Loaded now only when mail is configured: most servers never send, and nodemailer is a large part
  // of the server's code to compile at start-up (loaded on first use instead, it would stall the event loop then).
  const nodemailer = settings.smtpUrl ? import('nodemailer') : undefined;
  nodemailer?.catch(() => {}); // a failure to load is the first send's to report
  const domain = /@([^>\s]+)/.exec(settings.mailFrom)?.[1] ?? 'remgraph.local';
  return {
    messageId: () => `<${randomUUID()}@${domain}>`,
    async send(reply) {
      if (!settings.smtpUrl) throw new ValidationError('Mail is not configured: set SMTP_URL to send replies', [{ path: ['SMTP_URL'], message: 'not set' }]);
      transport ??= (await nodemailer!).createTransport(settings.smtpUrl);
      try {
        await transport.sendMail({
          from: settings.mailFrom,
          to: reply.to,
          subject: reply.subject,
          text: reply.body,
          messageId: reply.messageId,
          inReplyTo: reply.inReplyTo,
          references: [...reply.references, reply.inReplyTo],
        });
      } catch (error) {
        // The SMTP server's answer says what went wrong (a refused recipient, a login); never the URL with its password.
        const code = (error as { responseCode?: number }).responseCode;
        throw new ToolFailedError(`The mail server did not take the reply${code ? ` (SMTP ${code})` : ''}`);
      }
    },
  };
}
