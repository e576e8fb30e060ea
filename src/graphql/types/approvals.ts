import { approvalsWhere } from '../../turns/approvals.js';
import { visibleTo } from '../../auth/scope.js';
import { ApprovalStatus } from '../../db/generated/enums.js';
import { AlreadyDecidedError, NotFoundError, ValidationError } from '../../errors.js';
import { builder } from '../builder.js';
import { rowId } from '../../http/global-ids.js';
import { pageSize } from '../pagination.js';

const ApprovalStatusEnum = builder.enumType(ApprovalStatus, { name: 'ApprovalStatus' });

const ApprovalRef = builder.prismaNode('Approval', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  description: 'A gated tool call waiting for (or having had) a human decision.',
  fields: (t) => ({
    status: t.expose('status', { type: ApprovalStatusEnum }),
    toolName: t.exposeString('toolName'),
    arguments: t.expose('arguments', { type: 'JSON' }),
    toolCallId: t.exposeString('toolCallId'),
    agentPath: t.exposeStringList('agentPath', { description: 'Agents from the top-level one down to the one that made the call.' }),
    approved: t.exposeBoolean('approved', { nullable: true, description: 'The decision; for EXPIRED, the configured default.' }),
    reason: t.exposeString('reason', { nullable: true }),
    decidedBy: t.exposeString('decidedBy', { nullable: true }),
    decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    turn: t.relation('turn'),
    session: t.relation('session'),
  }),
});

builder.prismaObjectField('Turn', 'approvals', (t) =>
  t.relation('approvals', { query: { orderBy: { createdAt: 'asc' } }, description: 'Approvals requested by this turn itself (children have their own).' }),
);

builder.queryField('approvals', (t) =>
  t.prismaConnection({
    type: 'Approval',
    cursor: 'id',
    ...pageSize(20, 100),
    description: 'Approvals the caller can see, newest first.',
    args: {
      status: t.arg({ type: ApprovalStatusEnum, required: false }),
      sessionId: t.arg.id({ required: false }),
    },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.approval.findMany({
        ...query,
        where: approvalsWhere(ctx.viewer, {
          status: args.status,
          sessionId: args.sessionId ? rowId(String(args.sessionId), 'Session', 'sessionId') : null,
        }),
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      }),
  }),
);

builder.mutationField('decideApproval', (t) =>
  t.field({
    type: ApprovalRef,
    description: 'Approves or rejects a gated call, exactly once; the turn then continues.',
    errors: { types: [ValidationError, NotFoundError, AlreadyDecidedError], dataField: { name: 'approval' } },
    args: { id: t.arg.id(), approve: t.arg.boolean(), reason: t.arg.string({ required: false }) },
    resolve: (_root, args, ctx) => ctx.approvals.decide(ctx.viewer, rowId(String(args.id), 'Approval'), args.approve, args.reason),
  }),
);

builder.subscriptionField('approvalsChanged', (t) =>
  t.field({
    type: ApprovalRef,
    description: 'Approvals created or decided in the caller’s tenant that the caller can see (optionally one session’s).',
    args: { sessionId: t.arg.id({ required: false }) },
    subscribe: async function* (_root, args, ctx) {
      const sessionId = args.sessionId ? rowId(String(args.sessionId), 'Session', 'sessionId') : null;
      for await (const change of ctx.pubsub.subscribe('approvals:changed', ctx.viewer.tenantId)) {
        if (sessionId && change.sessionId !== sessionId) continue;
        const approvals = await ctx.prisma.approval.findMany({
          where: { ...visibleTo(ctx.viewer), ...(change.approvalId ? { id: change.approvalId } : { turnId: change.turnId }) },
        });
        for (const approval of approvals) yield approval;
      }
    },
    resolve: (approval) => approval,
  }),
);
