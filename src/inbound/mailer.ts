import { randomUUID } from 'node:crypto';
import { createTransport, type Transporter } from 'nodemailer';
import { ToolFailedError, ValidationError } from '../errors.js';

interface OutgoingReply {
  to: string;
  subject: string;
  body: string;
  /** The Message-ID answered. */
  inReplyTo: string;
  references: string[];
}

/** Sends replies over SMTP (SMTP_URL) from MAIL_FROM; answers with the sent message's Message-ID. */
export interface Mailer {
  send(reply: OutgoingReply): Promise<{ messageId: string }>;
}

export function createMailer(settings: { smtpUrl: string | undefined; mailFrom: string }): Mailer {
  let transport: Transporter | undefined;
  const domain = /@([^>\s]+)/.exec(settings.mailFrom)?.[1] ?? 'remgraph.local';
  return {
    async send(reply) {
      if (!settings.smtpUrl) throw new ValidationError('Mail is not configured: set SMTP_URL to send replies', [{ path: ['SMTP_URL'], message: 'not set' }]);
      transport ??= createTransport(settings.smtpUrl);
      const messageId = `<${randomUUID()}@${domain}>`;
      try {
        await transport.sendMail({
          from: settings.mailFrom,
          to: reply.to,
          subject: reply.subject,
          text: reply.body,
          messageId,
          inReplyTo: reply.inReplyTo,
          references: [...reply.references, reply.inReplyTo],
        });
      } catch (error) {
        // The SMTP server's answer says what went wrong (a refused recipient, a login); never the URL with its password.
        const code = (error as { responseCode?: number }).responseCode;
        throw new ToolFailedError(`The mail server did not take the reply${code ? ` (SMTP ${code})` : ''}`);
      }
      return { messageId };
    },
  };
}
