import { PayloadTooLargeError, ValidationError } from '../../errors.js';
import type { IngestProgress } from '../../events/pubsub.js';
import type { IngestFileResult } from '../../rem/ingest/ingest-file.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { ResourceRef } from './rem.js';

const IngestFileSuccess = builder.objectRef<IngestFileResult>('IngestFileSuccess').implement({
  fields: (t) => ({
    resource: t.field({
      type: ResourceRef,
      description: 'The file’s resource, with a `has_chunk` edge to each of its chunks: resources `<key>-chunk-<n>` with a `chunk_of` edge back.',
      resolve: (r) => r.resource,
    }),
    chunks: t.exposeInt('chunks'),
    unchanged: t.exposeBoolean('unchanged', { description: 'The same content (SHA-256) was already ingested under this key: nothing was written.' }),
    contentHash: t.exposeString('contentHash'),
  }),
});

const IngestStageEnum = builder.enumType('IngestStage', { values: ['EXTRACTING', 'EMBEDDING', 'STORING', 'DONE', 'FAILED'] as const });

const IngestProgressRef = builder.objectRef<IngestProgress>('IngestProgress').implement({
  fields: (t) => ({
    stage: t.field({ type: IngestStageEnum, resolve: (p) => p.stage.toUpperCase() as Uppercase<IngestProgress['stage']> }),
    chunks: t.exposeInt('chunks', { nullable: true, description: 'Chunks of the file, once known.' }),
  }),
});

/** Progress channels are the caller's own: another user naming the same id hears nothing. */
const progressChannel = (ctx: GraphQLContext, progressId: string) => `${ctx.viewer.tenantId}:${ctx.viewer.userId ?? ''}:${progressId}`;

builder.mutationField('ingestFile', (t) =>
  t.field({
    type: IngestFileSuccess,
    description:
      'Ingests a text, Markdown, HTML or PDF file (GraphQL multipart request; browsers add the x-graphql-yoga-csrf header) as chunked, embedded resources, searchable when this returns. The same key with new content replaces the chunks; with the same content nothing changes.',
    errors: { types: [ValidationError, PayloadTooLargeError], directResult: true },
    args: {
      file: t.arg({ type: 'File' }),
      key: t.arg.string({ required: false, description: 'Resource key of the file; defaults to its name.' }),
      tags: t.arg.stringList({ required: false }),
      progressId: t.arg.string({ required: false, description: 'Any id you choose: subscribe to ingestProgress(progressId) first to follow this ingestion.' }),
    },
    resolve: async (_root, args, ctx) => {
      const publish = args.progressId
        ? (progress: IngestProgress) => ctx.pubsub.publish('ingest:progress', progressChannel(ctx, args.progressId!), progress)
        : undefined;
      try {
        return await ctx.ingestFile(ctx.viewer, {
          filename: args.file.name,
          contentType: args.file.type || null,
          bytes: new Uint8Array(await args.file.arrayBuffer()),
          key: args.key,
          tags: args.tags,
          onProgress: publish,
        });
      } catch (error) {
        publish?.({ stage: 'failed', chunks: null });
        throw error;
      }
    },
  }),
);

builder.subscriptionField('ingestProgress', (t) =>
  t.field({
    type: IngestProgressRef,
    description:
      'Stages of the caller’s ingestFile call given this progressId: EXTRACTING, EMBEDDING (chunks known), STORING, then DONE or FAILED, where it completes.',
    args: { progressId: t.arg.string() },
    subscribe: async function* (_root, args, ctx) {
      for await (const progress of ctx.pubsub.subscribe('ingest:progress', progressChannel(ctx, args.progressId))) {
        yield progress;
        if (progress.stage === 'done' || progress.stage === 'failed') return;
      }
    },
    resolve: (progress: IngestProgress) => progress,
  }),
);
