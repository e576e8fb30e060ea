import {
  addDocumentsToCorpus,
  corporaWhere,
  createCorpus,
  deleteCorpus,
  descriptionVersions,
  getCorpus,
  removeDocumentsFromCorpus,
  updateCorpusDescription,
} from '../../documents/corpora.js';
import { documentsWhere } from '../../documents/documents.js';
import { visibleTo } from '../../auth/scope.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { rowId } from '../../http/global-ids.js';
import { builder } from '../builder.js';
import { pageSize } from '../pagination.js';
import { DocumentRef } from './documents.js';

const CorpusRef = builder.prismaNode('Corpus', {
  id: { field: 'id' },
  description: 'A named collection of documents with a markdown description (versioned).',
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  fields: (t) => ({
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true, description: 'The latest version of its markdown description.' }),
    descriptionVersions: t.field({
      type: [DescriptionVersionRef],
      description: 'Every version of the description, oldest first.',
      resolve: (corpus, _args, ctx) => descriptionVersions(ctx.prisma, corpus.id),
    }),
    documents: t.prismaConnection({
      type: DocumentRef,
      cursor: 'id',
      ...pageSize(20, 100),
      description: 'Its documents that you can see, newest first.',
      totalCount: (corpus, _args, ctx) => ctx.prisma.resource.count({ where: documentsWhere(ctx.viewer, corpus.id) }),
      resolve: (query, corpus, _args, ctx) =>
        ctx.prisma.resource.findMany({ ...query, where: documentsWhere(ctx.viewer, corpus.id), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const DescriptionVersionRef = builder.prismaObject('CorpusDescriptionVersion', {
  fields: (t) => ({
    version: t.exposeInt('version'),
    content: t.exposeString('content'),
    authorId: t.exposeString('authorId', { nullable: true }),
    agentName: t.exposeString('agentName', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const CreateCorpusInput = builder.inputType('CreateCorpusInput', {
  fields: (t) => ({ name: t.string(), description: t.string({ required: false, description: 'Markdown; its version 1.' }) }),
});

builder.prismaObjectField('Session', 'corpus', (t) =>
  t.field({
    type: CorpusRef,
    nullable: true,
    description: 'The corpus the session’s turns are bound to (null when none, or no longer visible to you).',
    resolve: (session, _args, ctx) => (session.corpusId ? ctx.prisma.corpus.findFirst({ where: { id: session.corpusId, ...corporaWhere(ctx.viewer) } }) : null),
  }),
);

builder.queryFields((t) => ({
  corpora: t.prismaConnection({
    type: CorpusRef,
    cursor: 'id',
    ...pageSize(20, 100),
    description: 'Your corpora and your tenant’s shared ones, newest first.',
    totalCount: (_root, _args, ctx) => ctx.prisma.corpus.count({ where: corporaWhere(ctx.viewer) }),
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.corpus.findMany({ ...query, where: corporaWhere(ctx.viewer), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  }),
  corpus: t.prismaField({
    type: CorpusRef,
    description: 'A corpus you can see. NOT_FOUND otherwise.',
    args: { id: t.arg.id() },
    resolve: (_query, _root, args, ctx) => getCorpus(ctx.prisma, ctx.viewer, rowId(String(args.id), 'Corpus')),
  }),
}));

const mutationErrors = [ValidationError, NotFoundError, ForbiddenError];
const documentIds = (ids: readonly (string | number)[]) => ids.map((id, i) => rowId(String(id), 'Document', `documentIds.${i}`));

builder.mutationFields((t) => ({
  createCorpus: t.field({
    type: CorpusRef,
    errors: { types: mutationErrors, dataField: { name: 'corpus' } },
    args: { input: t.arg({ type: CreateCorpusInput }) },
    resolve: (_root, { input }, ctx) => createCorpus(ctx.prisma, ctx.viewer, { name: input.name, description: input.description }),
  }),
  addDocumentsToCorpus: t.field({
    type: CorpusRef,
    description: 'Adds documents you can see to your corpus (all or nothing).',
    errors: { types: mutationErrors, union: { name: 'AddDocumentsResult' }, result: { name: 'AddDocumentsSuccess' }, dataField: { name: 'corpus' } },
    args: { corpusId: t.arg.id(), documentIds: t.arg.idList() },
    resolve: (_root, args, ctx) =>
      addDocumentsToCorpus(ctx.prisma, ctx.viewer, rowId(String(args.corpusId), 'Corpus', 'corpusId'), documentIds(args.documentIds)),
  }),
  removeDocumentsFromCorpus: t.field({
    type: CorpusRef,
    description: 'Takes documents out of your corpus; one that is not in it is refused and nothing changes.',
    errors: { types: mutationErrors, dataField: { name: 'corpus' } },
    args: { corpusId: t.arg.id(), documentIds: t.arg.idList() },
    resolve: (_root, args, ctx) =>
      removeDocumentsFromCorpus(ctx.prisma, ctx.viewer, rowId(String(args.corpusId), 'Corpus', 'corpusId'), documentIds(args.documentIds)),
  }),
  updateCorpusDescription: t.field({
    type: CorpusRef,
    description: 'A new version of your corpus’s markdown description.',
    errors: { types: mutationErrors, dataField: { name: 'corpus' } },
    args: { corpusId: t.arg.id(), description: t.arg.string() },
    resolve: (_root, args, ctx) => updateCorpusDescription(ctx.prisma, ctx.viewer, rowId(String(args.corpusId), 'Corpus', 'corpusId'), args.description),
  }),
  deleteCorpus: t.field({
    type: CorpusRef,
    description: 'Deletes your corpus with its notes and annotations; its documents stay.',
    errors: { types: mutationErrors, dataField: { name: 'corpus', description: 'The corpus as it was before deletion.' } },
    args: { id: t.arg.id() },
    resolve: (_root, args, ctx) => deleteCorpus(ctx.prisma, ctx.viewer, rowId(String(args.id), 'Corpus')),
  }),
}));
