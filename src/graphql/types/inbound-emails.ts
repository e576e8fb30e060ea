import { EmailDraftStatus, InboundEmailStatus, SentReplyStatus } from '../../db/generated/enums.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { rowId } from '../../http/global-ids.js';
import { inboxWhere } from '../../inbound/drafts.js';
import { resolveEscalation } from '../../inbound/escalations.js';
import { builder } from '../builder.js';
import { pageSize } from '../pagination.js';

const InboundEmailStatusEnum = builder.enumType(InboundEmailStatus, { name: 'InboundEmailStatus' });
const EmailDraftStatusEnum = builder.enumType(EmailDraftStatus, { name: 'EmailDraftStatus' });
const SentReplyStatusEnum = builder.enumType(SentReplyStatus, { name: 'SentReplyStatus' });

builder.prismaNode('InboundEmail', {
  id: { field: 'id' },
  // Non-admins match no row: the shared inbox is its admins'.
  findUnique: (id, ctx) => ({ id, tenantId: ctx.viewer.isAdmin ? ctx.viewer.tenantId : '' }),
  nullable: true,
  description: 'An email delivered to POST /inbound/email (or `remgraph intake`) and what was done with it.',
  fields: (t) => ({
    messageId: t.exposeString('messageId'),
    threadId: t.exposeString('threadId', { description: 'The Message-ID of the thread’s first email.' }),
    from: t.exposeString('fromAddress'),
    fromName: t.exposeString('fromName', { nullable: true }),
    to: t.exposeString('toAddress', { nullable: true }),
    subject: t.exposeString('subject', { nullable: true }),
    text: t.exposeString('text'),
    source: t.exposeString('source', { description: 'rfc822, sendgrid, mailgun or postmark.' }),
    route: t.exposeString('route', { description: 'agent or pipeline.' }),
    rule: t.exposeString('rule', { nullable: true, description: 'The routing rule that matched (none: the pipeline by default).' }),
    profile: t.exposeString('profile', { nullable: true }),
    status: t.expose('status', { type: InboundEmailStatusEnum }),
    escalationReason: t.string({
      nullable: true,
      description: 'Why the email was last put in front of a person (escalate’s reason, or a reply whose delivery is unknown); null if it never was.',
      select: { events: { where: { kind: 'escalated' }, orderBy: { id: 'desc' }, take: 1, select: { detail: true } } },
      resolve: (email) => (email.events[0]?.detail as { reason?: string } | undefined)?.reason ?? null,
    }),
    classification: t.expose('classification', { type: 'JSON', nullable: true }),
    sessionId: t.exposeID('sessionId', { nullable: true, description: 'The session of the email’s thread (agent route).' }),
    turnId: t.exposeID('turnId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    drafts: t.relation('drafts', { query: { orderBy: { createdAt: 'asc' } } }),
    replies: t.relation('replies', { query: { orderBy: { sentAt: 'asc' } } }),
    events: t.relation('events', { query: { orderBy: { id: 'asc' } }, description: 'What happened to the email, in order.' }),
    jobs: t.prismaField({
      type: ['Job'],
      description: 'The jobs that worked the email, oldest first: agent_process (agent route), or classify then draft (pipeline).',
      resolve: (query, email, _args, ctx) =>
        ctx.prisma.job.findMany({
          ...query,
          where: { tenantId: email.tenantId, payload: { path: ['emailId'], equals: email.id } },
          orderBy: { createdAt: 'asc' },
        }),
    }),
  }),
});

builder.prismaObject('EmailEvent', {
  description:
    'One step of an inbound email: received, routed, job_started, resumed (a turn its server stopped running, answered again), classified, drafted, approval_asked, sent, delivery_unknown (its server stopped while the mail server took a reply), escalated, resolved (by a person), job_finished, failed.',
  fields: (t) => ({
    kind: t.exposeString('kind'),
    detail: t.expose('detail', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaNode('EmailDraft', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, email: { tenantId: ctx.viewer.isAdmin ? ctx.viewer.tenantId : '' } }),
  nullable: true,
  description: 'A reply written for a person to review: edit it, send it, or discard it.',
  fields: (t) => ({
    to: t.exposeString('to'),
    subject: t.exposeString('subject'),
    body: t.exposeString('body'),
    status: t.expose('status', { type: EmailDraftStatusEnum }),
    author: t.exposeString('author', { description: 'The profile or pipeline agent that wrote it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('SentReply', {
  description: 'A reply sent over SMTP, threaded on the email it answers.',
  fields: (t) => ({
    to: t.exposeString('to'),
    subject: t.exposeString('subject'),
    body: t.exposeString('body'),
    messageId: t.exposeString('messageId'),
    status: t.expose('status', {
      type: SentReplyStatusEnum,
      description: 'SENDING while the mail server takes it; UNKNOWN if its server stopped then (a person checks).',
    }),
    inReplyTo: t.exposeString('inReplyTo'),
    sentAt: t.expose('sentAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectField('LlmCall', 'callType', (t) =>
  t.exposeString('callType', { description: 'What the call was for: agent (a turn), classify, draft, router, dreaming, evaluator or extract.' }),
);

builder.queryField('inboundEmails', (t) =>
  t.prismaConnection({
    type: 'InboundEmail',
    cursor: 'id',
    ...pageSize(20, 100),
    description: 'The tenant’s inbound email, newest first (admins only).',
    errors: { types: [ForbiddenError] },
    args: { status: t.arg({ type: InboundEmailStatusEnum, required: false }) },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.inboundEmail.findMany({
        ...query,
        where: { ...inboxWhere(ctx.viewer), ...(args.status ? { status: args.status } : {}) },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      }),
  }),
);

builder.queryField('inboundEmail', (t) =>
  t.prismaField({
    type: 'InboundEmail',
    nullable: true,
    args: { id: t.arg.id() },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.inboundEmail.findFirst({ ...query, where: { id: rowId(String(args.id), 'InboundEmail'), ...inboxWhere(ctx.viewer) } }),
  }),
);

builder.mutationField('updateEmailDraft', (t) =>
  t.prismaField({
    type: 'EmailDraft',
    description: 'Edits a pending draft.',
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], dataField: { name: 'draft' } },
    args: { id: t.arg.id(), to: t.arg.string({ required: false }), subject: t.arg.string({ required: false }), body: t.arg.string({ required: false }) },
    resolve: (_query, _root, args, ctx) => ctx.emailDrafts.edit(ctx.viewer, rowId(String(args.id), 'EmailDraft'), args),
  }),
);

builder.mutationField('sendEmailDraft', (t) =>
  t.prismaField({
    type: 'EmailDraft',
    description: 'Sends a pending draft as the reply to its email (threaded), over SMTP.',
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], dataField: { name: 'draft' } },
    args: { id: t.arg.id() },
    resolve: (_query, _root, args, ctx) => ctx.emailDrafts.send(ctx.viewer, rowId(String(args.id), 'EmailDraft')),
  }),
);

builder.mutationField('discardEmailDraft', (t) =>
  t.prismaField({
    type: 'EmailDraft',
    description: 'Discards a pending draft.',
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], dataField: { name: 'draft' } },
    args: { id: t.arg.id() },
    resolve: (_query, _root, args, ctx) => ctx.emailDrafts.discard(ctx.viewer, rowId(String(args.id), 'EmailDraft')),
  }),
);

builder.mutationField('resolveEmailEscalation', (t) =>
  t.prismaField({
    type: 'InboundEmail',
    description: 'Marks an escalated email handled (DONE), with an optional note in its trail (a `resolved` event).',
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], dataField: { name: 'email' } },
    args: { id: t.arg.id(), note: t.arg.string({ required: false }) },
    resolve: (_query, _root, args, ctx) => resolveEscalation(ctx.prisma, ctx.viewer, rowId(String(args.id), 'InboundEmail'), args.note),
  }),
);
