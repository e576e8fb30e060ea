import type { AgentContext } from '../auth/agent-context.js';
import type { EmailDraft, PrismaClient } from '../db/generated/client.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import type { Mailer } from './mailer.js';
import { replyOnce } from './reply-once.js';

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

  /**
   * Sends the draft as the reply to its email; it is SENT once the mail server took it, PENDING again
   * if it did not or the email was answered already (an email is answered once, see replyOnce).
   */
  async send(ctx: AgentContext, id: string): Promise<EmailDraft> {
    const draft = await this.pending(ctx, id);
    const email = await this.deps.prisma.inboundEmail.findUniqueOrThrow({ where: { id: draft.emailId } });
    const sent = await this.settle(id, 'SENT');
    const outcome = await replyOnce(this.deps, email, draft, { draftId: id, by: ctx.userId }).catch(async (error: unknown) => {
      await this.reopen(id);
      throw error;
    });
    if (outcome.status === 'sent') return sent;
    await this.reopen(id);
    throw new ValidationError(`The email was answered already (Message-ID ${outcome.reply.messageId}, ${outcome.reply.status})`, [
      { path: ['id'], message: 'email answered already' },
    ]);
  }

  private async reopen(id: string): Promise<void> {
    await this.deps.prisma.emailDraft.update({ where: { id }, data: { status: 'PENDING' } });
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
