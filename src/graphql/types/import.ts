import { ForbiddenError, PayloadTooLargeError, ValidationError } from '../../errors.js';
import { builder } from '../builder.js';
import { JobRef } from './jobs.js';

builder.mutationField('importFile', (t) =>
  t.field({
    type: JobRef,
    description:
      'Bulk-imports a JSONL file (GraphQL multipart request; browsers add the x-graphql-yoga-csrf header): one item a line, ' +
      'in the shape of `ingest`’s items ({"entity": {...}}, {"resource": {...}} or {"moment": {...}}), as the caller’s rows. ' +
      'Every line is checked first (a bad one is refused, naming it, and nothing is written); the import then runs as a job ' +
      'whose progress is {stage: loading|indexing, total, done, rows} (lines of the file, lines done, rows written); ' +
      'follow it live with the jobProgress(id) subscription (or poll job(id)); its rows are searchable once the job is DONE, ' +
      'and the stored file is dropped once the job is DONE or FAILED. `remgraph import` does the same from the command line.',
    errors: { types: [ValidationError, PayloadTooLargeError, ForbiddenError], dataField: { name: 'job' } },
    args: { file: t.arg({ type: 'File' }) },
    resolve: async (_root, args, ctx) => ctx.importFile(ctx.viewer, { name: args.file.name, bytes: new Uint8Array(await args.file.arrayBuffer()) }),
  }),
);
