import { ownedBy } from '../../auth/scope.js';
import { JobStatus } from '../../db/generated/enums.js';
import { requestDream } from '../../dreaming/dream.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import type { JobChange } from '../../events/pubsub.js';
import { requestReembed } from '../../rem/reembed-job.js';
import type { Job } from '../../db/generated/client.js';
import { builder } from '../builder.js';
import { rowId } from '../../http/global-ids.js';
import { EntityRef, MomentRef, ResourceRef } from './rem.js';

const JobStatusEnum = builder.enumType(JobStatus, { name: 'JobStatus' });

export const JobRef = builder.prismaNode('Job', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...ownedBy(ctx.viewer) }),
  nullable: true,
  description:
    'Background work: a dream, an experiment, a re-embed or an import. Survives restarts; retried with backoff when it fails. ' +
    'A caller sees their own jobs; admins also the tenant’s (a whole-tenant re-embed).',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: '`dream`, `experiment`, `reembed`, `import`, or inbound email’s `agent_process`, `classify` and `draft`.' }),
    status: t.expose('status', { type: JobStatusEnum }),
    attempts: t.exposeInt('attempts'),
    result: t.expose('result', {
      type: 'JSON',
      nullable: true,
      description:
        'What the job did (a dream: the session ranges it consolidated and the keys it wrote; a re-embed: {model, dimension, embedded}; an import: {rows, entities, resources, moments, total, skipped, reindexed}).',
    }),
    error: t.expose('error', { type: 'JSON', nullable: true, description: '{code, message} of the last failed attempt.' }),
    progress: t.expose('progress', {
      type: 'JSON',
      nullable: true,
      description:
        'How far a running job has got; for reembed {table, scanned, embedded}, for import {stage, total, done, rows} (counted over all attempts, written after every batch). jobProgress(id) streams it.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

for (const ref of [EntityRef, MomentRef, ResourceRef]) {
  builder.objectFields(ref, (t) => ({
    sourceJob: t.loadable({
      type: JobRef,
      nullable: true,
      description: 'The background job (dreaming) that last wrote this row.',
      load: async (ids: string[], ctx) => {
        const jobs = await ctx.prisma.job.findMany({ where: { id: { in: ids }, ...ownedBy({ ...ctx.viewer, isAdmin: false }) } });
        return ids.map((id) => jobs.find((job) => job.id === id) ?? null);
      },
      resolve: (row) => (row as { sourceJobId: string | null }).sourceJobId,
    }),
  }));
}

const DreamInput = builder.inputType('DreamInput', {
  fields: (t) => ({ sessionId: t.id({ required: false, description: 'Only this session; omit for all of the caller’s sessions.' }) }),
});

builder.queryField('job', (t) =>
  t.prismaField({
    type: 'Job',
    nullable: true,
    description: 'One of the caller’s jobs (admins: or one of the tenant’s).',
    args: { id: t.arg.id() },
    resolve: async (query, _root, args, ctx) => {
      const job = await ctx.prisma.job.findFirst({ ...query, where: { id: rowId(String(args.id), 'Job'), ...ownedBy(ctx.viewer) } });
      if (!job) throw new NotFoundError('Job');
      return job;
    },
  }),
);

builder.subscriptionField('jobProgress', (t) =>
  t.field({
    type: JobRef,
    description:
      'One of the caller’s jobs (as `job(id)`: the user who queued it, admins also the tenant’s; anyone else gets NOT_FOUND): the job now, then after each change ' +
      '(claimed by a worker, every progress update — an import’s after each batch: {stage, total, done, rows} — a failed attempt queued again); ' +
      'completes once it is DONE or FAILED (a finished job: its final state once). Works across server instances sharing REDIS_URL.',
    args: { id: t.arg.id() },
    subscribe: async function* (_root, args, ctx) {
      const id = rowId(String(args.id), 'Job');
      // Subscribed before the read, so no change between the two is missed; changes up to the read's revision are skipped.
      const changes = ctx.pubsub.subscribe('job:changed', id);
      try {
        let job: Omit<Job, 'payload'> | null = await ctx.prisma.job.findFirst({ where: { id, ...ownedBy(ctx.viewer) }, omit: { payload: true } });
        if (!job) throw new NotFoundError('Job');
        yield job;
        while (job.status !== 'DONE' && job.status !== 'FAILED') {
          const next = await changes.next();
          if (next.done) return;
          if (next.value.revision <= job.revision) continue;
          job = applyChange(job, next.value);
          yield job;
        }
      } finally {
        await changes.return?.();
      }
    },
    resolve: (job) => job as Job,
  }),
);

function applyChange(job: Omit<Job, 'payload'>, { startedAt, finishedAt, ...change }: JobChange): Omit<Job, 'payload'> {
  return { ...job, ...change, startedAt: startedAt ? new Date(startedAt) : null, finishedAt: finishedAt ? new Date(finishedAt) : null } as Omit<Job, 'payload'>;
}

builder.mutationField('dream', (t) =>
  t.field({
    type: JobRef,
    description:
      'Queues a dream: the caller’s conversation not yet consolidated (in one session, or all) becomes moments, entities and edges in their memory. Returns the job (an open dream of the same scope, if one is queued or running).',
    errors: { types: [ValidationError, NotFoundError], dataField: { name: 'job' } },
    args: { input: t.arg({ type: DreamInput, required: false }) },
    resolve: (_root, args, ctx) =>
      requestDream(
        { prisma: ctx.prisma, queue: ctx.queue },
        ctx.viewer,
        args.input?.sessionId ? rowId(String(args.input.sessionId), 'Session', 'input.sessionId') : null,
      ),
  }),
);

builder.mutationField('queueReembed', (t) =>
  t.field({
    type: JobRef,
    description:
      'Queues a re-embed in the background: rows without a vector of the configured embedding model get one (after changing EMBEDDING_MODEL). ' +
      'Admins re-embed the whole tenant, other callers their own rows. Returns the job, whose progress shows how far it has got ' +
      '(an open re-embed of the same scope, if one is queued or running). `reembed` does the same within the request.',
    errors: { types: [ForbiddenError], dataField: { name: 'job' } },
    resolve: (_root, _args, ctx) => requestReembed(ctx.queue, ctx.viewer),
  }),
);
