import type { AgentContext } from '../auth/agent-context.js';
import type { EmailDraft, PrismaClient } from '../db/generated/client.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { emailEvent } from './email-events.js';
import type { Mailer } from './mailer.js';

/** Inbound email is the shared inbox's: only its tenant's admins read it and act on it. */
export function inboxWhere(ctx: Pick<AgentContext, 'tenantId' | 'isAdmin'>) {
  if (!ctx.isAdmin) throw new ForbiddenError('Only admins of the tenant see its inbound email');
  return { tenantId: ctx.tenantId };
}

/** What people do with a draft: edit it, send it (over SMTP, threaded), or discard it. Each on a PENDING draft only. */
export class EmailDrafts {
  constructor(private readonly deps: { prisma: PrismaClient; mailer: Mailer }) {}

  async edit(ctx: AgentContext, id: string, change: { to?: string | null; subject?: string | null; body?: string | null }): Promise<EmailDraft> {
    await this.pending(ctx, id);
    return this.deps.prisma.emailDraft.update({
      where: { id },
      data: { ...(change.to ? { to: change.to } : {}), ...(change.subject ? { subject: change.subject } : {}), ...(change.body ? { body: change.body } : {}) },
    });
  }

  async discard(ctx: AgentContext, id: string): Promise<EmailDraft> {
    await this.pending(ctx, id);
    return this.settle(id, 'DISCARDED');
  }

  /** Sends the draft as the reply to its email; it is SENT once the mail server took it (PENDING again if it did not). */
  async send(ctx: AgentContext, id: string): Promise<EmailDraft> {
    const draft = await this.pending(ctx, id);
    const email = await this.deps.prisma.inboundEmail.findUniqueOrThrow({ where: { id: draft.emailId } });
    const sent = await this.settle(id, 'SENT');
    try {
      const { messageId } = await this.deps.mailer.send({
        to: draft.to,
        subject: draft.subject,
        body: draft.body,
        inReplyTo: email.messageId,
        references: email.references,
      });
      await this.deps.prisma.$transaction(async (tx) => {
        await tx.sentReply.create({
          data: {
            emailId: email.id,
            draftId: id,
            to: draft.to,
            subject: draft.subject,
            body: draft.body,
            messageId,
            inReplyTo: email.messageId,
            references: [...email.references, email.messageId],
          },
        });
        await emailEvent(tx, email.id, 'sent', { to: draft.to, messageId, draftId: id, by: ctx.userId });
      });
      return sent;
    } catch (error) {
      await this.deps.prisma.emailDraft.update({ where: { id }, data: { status: 'PENDING' } });
      throw error;
    }
  }

  private async pending(ctx: AgentContext, id: string): Promise<EmailDraft> {
    const draft = await this.deps.prisma.emailDraft.findFirst({ where: { id, email: inboxWhere(ctx) } });
    if (!draft) throw new NotFoundError('EmailDraft', id);
    if (draft.status !== 'PENDING') throw decided(draft.status);
    return draft;
  }

  /** PENDING → status, once: of two people acting at once, one wins. */
  private async settle(id: string, status: 'SENT' | 'DISCARDED'): Promise<EmailDraft> {
    const { count } = await this.deps.prisma.emailDraft.updateMany({ where: { id, status: 'PENDING' }, data: { status } });
    const draft = await this.deps.prisma.emailDraft.findUniqueOrThrow({ where: { id } });
    if (count === 0) throw decided(draft.status);
    return draft;
  }
}

const decided = (status: string) => new ValidationError(`The draft is already ${status}`, [{ path: ['id'], message: `already ${status}` }]);
