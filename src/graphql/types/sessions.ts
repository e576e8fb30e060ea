import { visibleTo } from '../../auth/scope.js';
import { createSession, deleteSession, getSession, renameSession, sessionsWhere } from '../../sessions/sessions.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { builder } from '../builder.js';
import { rowId } from '../../http/global-ids.js';
import { pageSize } from '../pagination.js';

export const SessionRef = builder.prismaNode('Session', {
  id: { field: 'id' },
  // Loaded by node(id) too: scoped like every read, and null (not an error) when not visible.
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  fields: (t) => ({
    name: t.exposeString('name'),
    agent: t.exposeString('agent', { nullable: true, description: 'Agent the session talks to by default.' }),
    isEval: t.exposeBoolean('isEval', { description: 'Started by an evaluation run (X-Is-Eval).' }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    messages: t.relatedConnection('messages', {
      cursor: 'id',
      ...pageSize(50, 500),
      totalCount: true,
      query: { orderBy: { seq: 'asc' } },
    }),
  }),
});

const SessionFilterInput = builder.inputType('SessionFilter', {
  fields: (t) => ({
    nameContains: t.string({ required: false, description: 'Case-insensitive substring of the name.' }),
    agent: t.string({ required: false }),
    updatedAfter: t.field({ type: 'DateTime', required: false }),
    includeEval: t.boolean({ required: false, description: 'Include sessions started by evaluation runs (X-Is-Eval); left out by default.' }),
  }),
});

const CreateSessionInput = builder.inputType('CreateSessionInput', {
  fields: (t) => ({
    name: t.string({ required: false }),
    agent: t.string({ required: false }),
    routing: t.boolean({ required: false, description: 'Let the routing classifier pick the active agent when no routing rule matches.' }),
    metadata: t.field({ type: 'JSON', required: false }),
  }),
});

builder.queryFields((t) => ({
  session: t.prismaField({
    type: 'Session',
    nullable: true,
    description: 'A session of the caller (or shared in their tenant). NOT_FOUND otherwise.',
    args: { id: t.arg.id() },
    // The row alone: relations asked for (messages) are loaded by their own fields, batched.
    resolve: (_query, _root, args, ctx) => getSession(ctx, ctx.viewer, rowId(String(args.id), 'Session')),
  }),
  sessions: t.prismaConnection({
    type: 'Session',
    cursor: 'id',
    ...pageSize(20, 100),
    totalCount: (_root, args, ctx) => ctx.prisma.session.count({ where: sessionsWhere(ctx.viewer, args.filter) }),
    args: { filter: t.arg({ type: SessionFilterInput, required: false }) },
    description: 'The caller’s sessions, most recently updated first.',
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.session.findMany({
        ...query,
        where: sessionsWhere(ctx.viewer, args.filter),
        orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
      }),
  }),
}));

const mutationErrors = [ValidationError, NotFoundError, ForbiddenError];

builder.mutationFields((t) => ({
  createSession: t.field({
    type: SessionRef,
    errors: { types: mutationErrors, dataField: { name: 'session' } },
    args: { input: t.arg({ type: CreateSessionInput }) },
    resolve: (_root, args, ctx) =>
      createSession(ctx, ctx.viewer, {
        name: args.input.name ?? undefined,
        agent: args.input.agent ?? undefined,
        routing: args.input.routing ?? undefined,
        metadata: (args.input.metadata ?? undefined) as Record<string, unknown> | undefined,
      }),
  }),
  renameSession: t.field({
    type: SessionRef,
    errors: { types: mutationErrors, dataField: { name: 'session' } },
    args: { id: t.arg.id(), name: t.arg.string() },
    resolve: (_root, args, ctx) => renameSession(ctx, ctx.viewer, rowId(String(args.id), 'Session'), args.name),
  }),
  deleteSession: t.field({
    type: SessionRef,
    errors: { types: mutationErrors, dataField: { name: 'session', description: 'The session as it was before deletion.' } },
    args: { id: t.arg.id() },
    resolve: (_root, args, ctx) => deleteSession(ctx, ctx.viewer, rowId(String(args.id), 'Session')),
  }),
}));

builder.subscriptionFields((t) => ({
  sessionUpdated: t.field({
    type: SessionRef,
    description: 'Emits the session after each rename or new message; after a delete it emits the last state and completes.',
    args: { sessionId: t.arg.id() },
    subscribe: async function* (_root, args, ctx) {
      const id = rowId(String(args.sessionId), 'Session');
      await getSession(ctx, ctx.viewer, id);
      for await (const update of ctx.pubsub.subscribe('session:updated', id)) {
        yield update;
        if (update.deleted) return;
      }
    },
    resolve: (update) => update.session,
  }),
}));
