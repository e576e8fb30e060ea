import { PayloadTooLargeError, ValidationError } from '../../errors.js';
import { builder } from '../builder.js';
import { ResourceRef } from './rem.js';

const IngestFileSuccess = builder.objectRef<{ resource: unknown; chunks: number; unchanged: boolean; contentHash: string }>('IngestFileSuccess').implement({
  fields: (t) => ({
    resource: t.field({ type: ResourceRef, description: 'The file’s resource; its chunks are resources `<key>-chunk-<n>` with a `chunk_of` edge to it.', resolve: (r) => r.resource as never }),
    chunks: t.exposeInt('chunks'),
    unchanged: t.exposeBoolean('unchanged', { description: 'The same content (SHA-256) was already ingested under this key: nothing was written.' }),
    contentHash: t.exposeString('contentHash'),
  }),
});

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
    },
    resolve: async (_root, args, ctx) =>
      ctx.ingestFile(ctx.viewer, {
        filename: args.file.name,
        contentType: args.file.type || null,
        bytes: new Uint8Array(await args.file.arrayBuffer()),
        key: args.key,
        tags: args.tags,
      }),
  }),
);
