import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy, visibleTo } from '../auth/scope.js';
import type { Approval, Prisma, PrismaClient } from '../db/generated/client.js';
import { AlreadyDecidedError, NotFoundError } from '../errors.js';
import type { RemPubSub } from '../events/pubsub.js';
import type { Logger } from '../logger.js';
import { parseInput } from '../validation.js';

export interface ApprovalDeps {
  prisma: PrismaClient;
  pubsub: RemPubSub;
  logger: Logger;
  /** Announces decisions in the tree's log and resumes what they unblocked (Supervisor.afterDecision). */
  afterDecision(rootId: string): Promise<void>;
  settings: { approvalDefault: 'reject' | 'approve' };
}

const reasonInput = z.string().trim().max(2000, 'must be at most 2000 characters').nullish();

interface Decision {
  approved: boolean;
  reason: string | null;
  decidedBy: string | null;
  status: 'APPROVED' | 'REJECTED' | 'EXPIRED';
}

/**
 * Human decisions on gated tool calls. A decision is recorded exactly once (the database update
 * only matches a PENDING row, so a concurrent or repeated decision is ALREADY_DECIDED and never a
 * second execution); then the process holding the turn's tree (this one, when the tree is free)
 * announces it in the log and resumes the turn once nothing else is pending.
 */
export class ApprovalService {
  constructor(private readonly deps: ApprovalDeps) {}

  /** Only the turn's owner (or an admin of the tenant) may decide; anyone else gets NOT_FOUND. */
  async decide(ctx: AgentContext, id: string, approve: boolean, reason?: string | null): Promise<Approval> {
    const why = parseInput(reasonInput, reason, ['reason']) ?? null;
    const approval = await this.deps.prisma.approval.findFirst({ where: { id, ...ownedBy(ctx) } });
    if (!approval) throw new NotFoundError('Approval');
    return this.record(approval, { approved: approve, reason: why, decidedBy: ctx.userId, status: approve ? 'APPROVED' : 'REJECTED' });
  }

  /** Applies the configured default decision to approvals past their expiry (even if it passed while the server was down). */
  async expireDue(now = new Date()): Promise<number> {
    const due = await this.deps.prisma.approval.findMany({ where: { status: 'PENDING', expiresAt: { lte: now } } });
    let count = 0;
    for (const approval of due) {
      const approved = this.deps.settings.approvalDefault === 'approve';
      try {
        await this.record(approval, { approved, reason: `Expired; default decision: ${approved ? 'approve' : 'reject'}`, decidedBy: null, status: 'EXPIRED' });
        count++;
      } catch (error) {
        if (!(error instanceof AlreadyDecidedError)) this.deps.logger.error({ err: error, approvalId: approval.id }, 'could not expire approval');
      }
    }
    return count;
  }

  private async record(approval: Approval, decision: Decision): Promise<Approval> {
    const { prisma, pubsub } = this.deps;
    const [updated] = await prisma.approval.updateManyAndReturn({
      where: { id: approval.id, status: 'PENDING' },
      data: { ...decision, decidedAt: new Date() },
    });
    if (!updated) {
      const current = await prisma.approval.findUniqueOrThrow({ where: { id: approval.id } });
      throw new AlreadyDecidedError(approval.id, current.status);
    }
    pubsub.publish('approvals:changed', approval.tenantId, { sessionId: approval.sessionId, turnId: approval.turnId, approvalId: approval.id });
    const turn = await prisma.turn.findUnique({ where: { id: approval.turnId }, select: { rootId: true } });
    if (turn)
      await this.deps
        .afterDecision(turn.rootId)
        .catch((error) => this.deps.logger.error({ err: error, turnId: approval.turnId }, 'could not continue after a decision'));
    return updated;
  }
}

export const approvalFilter = z.object({
  status: z.enum(['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED']).nullish(),
  sessionId: z.string().uuid().nullish(),
});

/** Prisma `where` for the approvals a caller may see. */
export function approvalsWhere(ctx: AgentContext, filter: z.input<typeof approvalFilter>): Prisma.ApprovalWhereInput {
  const f = parseInput(approvalFilter, filter, []);
  return { ...visibleTo(ctx), ...(f.status ? { status: f.status } : {}), ...(f.sessionId ? { sessionId: f.sessionId } : {}) };
}
