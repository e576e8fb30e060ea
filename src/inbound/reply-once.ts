import type { InboundEmail, PrismaClient, SentReply } from '../db/generated/client.js';
import { isUniqueViolation } from '../db/sql-state.js';
import { emailEvent } from './email-events.js';
import type { Mailer } from './mailer.js';

interface Reply {
  to: string;
  subject: string;
  body: string;
}

/**
 * What a send came to: `sent` now, or the email's earlier reply, which the database lets be one
 * (`already_sent`, `sending` by another request at this moment, or `delivery_unknown`).
 */
export type ReplyOutcome = { status: 'sent' | 'already_sent' | 'sending' | 'delivery_unknown'; reply: SentReply };

const EARLIER = { SENT: 'already_sent', SENDING: 'sending', UNKNOWN: 'delivery_unknown' } as const satisfies Record<
  SentReply['status'],
  ReplyOutcome['status']
>;

/**
 * Answers the email once, threaded on it. The reply's row is stored SENDING, with the Message-ID it
 * will carry, before the mail server is asked, and SENT once it took the mail: a crash in between
 * leaves a SENDING row that `deliveryUnknown` hands to a person rather than mailing again. The row
 * is unique per email (sent_replies_one_per_email_custom), so of two sends decided at once one mails.
 */
export async function replyOnce(
  deps: { prisma: PrismaClient; mailer: Mailer },
  email: Pick<InboundEmail, 'id' | 'messageId' | 'references'>,
  reply: Reply,
  origin: { draftId?: string; by?: string | null } = {},
): Promise<ReplyOutcome> {
  const { prisma, mailer } = deps;
  const threading = { inReplyTo: email.messageId, references: email.references };
  let row: SentReply;
  try {
    row = await prisma.sentReply.create({
      data: {
        emailId: email.id,
        draftId: origin.draftId ?? null,
        to: reply.to,
        subject: reply.subject,
        body: reply.body,
        messageId: mailer.messageId(),
        status: 'SENDING',
        inReplyTo: email.messageId,
        references: [...email.references, email.messageId],
      },
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const earlier = await prisma.sentReply.findFirstOrThrow({ where: { emailId: email.id } });
    return { status: EARLIER[earlier.status], reply: earlier };
  }
  try {
    await mailer.send({ to: reply.to, subject: reply.subject, body: reply.body, ...threading, messageId: row.messageId });
  } catch (error) {
    // The mail server answered with a refusal (or could not be reached): nothing went out, and the email may be answered again.
    await prisma.sentReply.delete({ where: { id: row.id } });
    throw error;
  }
  const sent = await prisma.$transaction(async (tx) => {
    const updated = await tx.sentReply.update({ where: { id: row.id }, data: { status: 'SENT', sentAt: new Date() } });
    await emailEvent(tx, email.id, 'sent', {
      to: reply.to,
      messageId: row.messageId,
      ...(origin.draftId ? { draftId: origin.draftId } : {}),
      ...(origin.by ? { by: origin.by } : {}),
    });
    return updated;
  });
  return { status: 'sent', reply: sent };
}

/**
 * The email's agent stopped with a reply of its turn still SENDING (its server died between asking
 * the mail server and storing the answer): whether the mail arrived is unknown. Mailing it again,
 * even with the same Message-ID, could reach the sender twice (only some mailboxes drop a repeated
 * Message-ID), so the reply is marked UNKNOWN and the email escalated for a person to check.
 */
export async function deliveryUnknown(prisma: PrismaClient, emailId: string): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const stuck = await tx.sentReply.findMany({ where: { emailId, status: 'SENDING', draftId: null } });
    for (const reply of stuck) {
      await tx.sentReply.update({ where: { id: reply.id }, data: { status: 'UNKNOWN' } });
      const reason = `The server stopped while the mail server was taking the reply to ${reply.to} (Message-ID ${reply.messageId}): check whether it arrived before answering again.`;
      await emailEvent(tx, emailId, 'delivery_unknown', { to: reply.to, messageId: reply.messageId });
      await tx.inboundEmail.update({ where: { id: emailId }, data: { status: 'ESCALATED' } });
      await emailEvent(tx, emailId, 'escalated', { reason });
    }
  });
}
