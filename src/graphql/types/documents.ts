import { addExactStringAnnotations, addAnnotations, listAnnotations } from '../../documents/annotations.js';
import { documentText } from '../../documents/document-text.js';
import { documentsWhere, documentTitle, getDocument } from '../../documents/documents.js';
import { addNote, listNotes, noteRevisions, updateNote } from '../../documents/notes.js';
import { searchPassages, type Passage } from '../../documents/search.js';
import { latestSummary, summaryDiff, summaryVersions, updateSummary } from '../../documents/summaries.js';
import { visibleTo } from '../../auth/scope.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { encodeGlobalID, rowId } from '../../http/global-ids.js';
import { FILE_CATEGORY } from '../../rem/ingest/ingest-file.js';
import { builder } from '../builder.js';
import { ResourceRef } from './rem.js';
import { pageSize } from '../pagination.js';

const optionalRowId = (value: string | number | null | undefined, typename: string, argName: string) =>
  value == null ? null : rowId(String(value), typename, argName);

export const DocumentRef = builder.prismaNode('Resource', {
  variant: 'Document',
  id: { field: 'id' },
  description: 'An ingested file (ingestFile, ingest_file): its resource, whose chunks hold its text and pages.',
  // Loaded by node(id) too: scoped like every read, and null (not an error) when not visible.
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer), category: FILE_CATEGORY }),
  nullable: true,
  fields: (t) => ({
    key: t.exposeString('key'),
    title: t.string({ resolve: (doc) => documentTitle(doc) }),
    resource: t.field({ type: ResourceRef, description: 'The file’s REM resource.', resolve: (doc) => doc }),
    pageCount: t.int({
      nullable: true,
      description: 'Pages of a PDF document; null for others.',
      resolve: async (doc, _args, ctx) => (await documentText(ctx.prisma, doc)).pageCount,
    }),
    length: t.int({ description: 'Characters of its plain text.', resolve: async (doc, _args, ctx) => (await documentText(ctx.prisma, doc)).text.length }),
    text: t.string({
      description: 'Its plain text, or the characters from `start` (inclusive) to `end` (exclusive), clamped to the text. Annotation offsets point into it.',
      args: { start: t.arg.int({ required: false }), end: t.arg.int({ required: false }) },
      resolve: async (doc, args, ctx) => (await documentText(ctx.prisma, doc)).text.slice(Math.max(0, args.start ?? 0), args.end ?? undefined),
    }),
    summary: t.string({
      nullable: true,
      description: 'The latest version of its markdown summary.',
      resolve: async (doc, _args, ctx) => (await latestSummary(ctx.prisma, ctx.viewer, doc.id))?.content ?? null,
    }),
    summaryVersions: t.field({ type: [SummaryVersionRef], resolve: (doc, _args, ctx) => summaryVersions(ctx.prisma, ctx.viewer, doc.id) }),
    summaryDiff: t.string({
      description: 'Unified diff from one summary version to another (NOT_FOUND for a version that does not exist).',
      args: { from: t.arg.int(), to: t.arg.int() },
      resolve: (doc, args, ctx) => summaryDiff(ctx.prisma, ctx.viewer, doc.id, args.from, args.to),
    }),
    notes: t.field({
      type: [NoteRef],
      description: 'Its notes within a corpus it is in.',
      args: { corpusId: t.arg.id() },
      resolve: (doc, args, ctx) => listNotes(ctx.prisma, ctx.viewer, { documentId: doc.id, corpusId: rowId(String(args.corpusId), 'Corpus', 'corpusId') }),
    }),
    annotations: t.field({
      type: [AnnotationRef],
      description: 'Its annotations, in text order: within one corpus (else all), of one label (else all).',
      args: { corpusId: t.arg.id({ required: false }), label: t.arg.string({ required: false }) },
      resolve: (doc, args, ctx) =>
        listAnnotations(ctx.prisma, ctx.viewer, doc.id, { corpusId: optionalRowId(args.corpusId, 'Corpus', 'corpusId'), label: args.label }),
    }),
  }),
});

const SummaryVersionRef = builder.prismaObject('SummaryVersion', {
  fields: (t) => ({
    version: t.exposeInt('version'),
    content: t.exposeString('content'),
    authorId: t.exposeString('authorId', { nullable: true, description: 'The user who wrote it.' }),
    agentName: t.exposeString('agentName', { nullable: true, description: 'The agent that wrote it through a tool; null when a person did.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const NoteRef = builder.prismaNode('DocumentNote', {
  name: 'Note',
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  fields: (t) => ({
    title: t.exposeString('title'),
    content: t.exposeString('content'),
    documentId: t.id({ resolve: (note) => encodeGlobalID('Document', note.documentId) }),
    corpusId: t.id({ resolve: (note) => encodeGlobalID('Corpus', note.corpusId) }),
    revisions: t.field({
      type: [NoteRevisionRef],
      description: 'Every version, oldest first.',
      resolve: (note, _args, ctx) => noteRevisions(ctx.prisma, note.id),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const NoteRevisionRef = builder.prismaObject('NoteRevision', {
  fields: (t) => ({
    version: t.exposeInt('version'),
    title: t.exposeString('title'),
    content: t.exposeString('content'),
    authorId: t.exposeString('authorId', { nullable: true }),
    agentName: t.exposeString('agentName', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AnnotationRef = builder.prismaNode('Annotation', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  fields: (t) => ({
    label: t.exposeString('label'),
    start: t.exposeInt('start', { description: 'Offset of its first character in Document.text.' }),
    end: t.exposeInt('end', { description: 'Offset after its last character.' }),
    page: t.exposeInt('page', { nullable: true }),
    text: t.exposeString('text'),
    corpusId: t.id({ nullable: true, resolve: (a) => (a.corpusId ? encodeGlobalID('Corpus', a.corpusId) : null) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const PassageRef = builder.objectRef<Passage>('Passage').implement({
  description: 'A passage of a document found by similarity.',
  fields: (t) => ({
    document: t.field({ type: DocumentRef, resolve: (p, _args, ctx) => getDocument(ctx.prisma, ctx.viewer, p.documentId) }),
    corpusId: t.id({ nullable: true, resolve: (p) => (p.corpusId ? encodeGlobalID('Corpus', p.corpusId) : null) }),
    page: t.exposeInt('page', { nullable: true }),
    text: t.exposeString('text'),
    score: t.exposeFloat('score', { description: 'Cosine similarity to the query.' }),
    annotationLabel: t.exposeString('annotationLabel', { nullable: true }),
  }),
});

const DocumentSearchFilter = builder.inputType('DocumentSearchFilter', {
  fields: (t) => ({
    corpusId: t.id({ required: false, description: 'Only documents of this corpus.' }),
    documentId: t.id({ required: false, description: 'Only this document.' }),
    titleContains: t.string({ required: false, description: 'Only documents whose title holds this (case-insensitive).' }),
    contentContains: t.string({ required: false, description: 'Only passages that hold this (case-insensitive).' }),
    label: t.string({ required: false, description: 'Only documents with an annotation of this label (in the corpus, when one is given).' }),
  }),
});

const AddDocumentNoteInput = builder.inputType('AddDocumentNoteInput', {
  fields: (t) => ({ documentId: t.id(), corpusId: t.id(), title: t.string(), content: t.string() }),
});

const AnnotateDocumentInput = builder.inputType('AnnotateDocumentInput', {
  fields: (t) => ({
    documentId: t.id(),
    corpusId: t.id({ required: false }),
    label: t.string(),
    strings: t.stringList({ required: false, description: 'Label every occurrence of each exact string.' }),
    spans: t.field({ type: [builder.inputType('SpanInput', { fields: (f) => ({ start: f.int(), end: f.int() }) })], required: false }),
  }),
});

const AnnotationsPayload = builder.objectRef<Awaited<ReturnType<typeof addAnnotations>>>('AnnotationsPayload').implement({
  fields: (t) => ({ annotations: t.field({ type: [AnnotationRef], resolve: (rows) => rows }) }),
});

builder.prismaObjectField('Session', 'document', (t) =>
  t.field({
    type: DocumentRef,
    nullable: true,
    description: 'The document the session’s turns are bound to (null when none, or no longer visible to you).',
    resolve: (session, _args, ctx) =>
      session.documentId ? ctx.prisma.resource.findFirst({ where: { id: session.documentId, ...documentsWhere(ctx.viewer) } }) : null,
  }),
);

builder.queryFields((t) => ({
  documents: t.prismaConnection({
    type: DocumentRef,
    cursor: 'id',
    ...pageSize(20, 100),
    args: { corpusId: t.arg.id({ required: false, description: 'Only the documents of this corpus.' }) },
    description: 'The documents (ingested files) you can see, newest first.',
    totalCount: (_root, args, ctx) => ctx.prisma.resource.count({ where: documentsWhere(ctx.viewer, optionalRowId(args.corpusId, 'Corpus', 'corpusId')) }),
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.resource.findMany({
        ...query,
        where: documentsWhere(ctx.viewer, optionalRowId(args.corpusId, 'Corpus', 'corpusId')),
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      }),
  }),
  document: t.prismaField({
    type: DocumentRef,
    description: 'A document you can see. NOT_FOUND otherwise.',
    args: { id: t.arg.id() },
    resolve: (_query, _root, args, ctx) => getDocument(ctx.prisma, ctx.viewer, rowId(String(args.id), 'Document')),
  }),
  searchDocuments: t.field({
    type: [PassageRef],
    description: 'Passages of documents most similar to the query, best first, with the seed’s filters.',
    args: { query: t.arg.string(), k: t.arg.int({ required: false }), filter: t.arg({ type: DocumentSearchFilter, required: false }) },
    resolve: (_root, args, ctx) =>
      searchPassages(ctx, ctx.viewer, {
        query: args.query,
        k: args.k,
        corpusId: optionalRowId(args.filter?.corpusId, 'Corpus', 'corpusId'),
        documentId: optionalRowId(args.filter?.documentId, 'Document', 'documentId'),
        titleContains: args.filter?.titleContains,
        contentContains: args.filter?.contentContains,
        label: args.filter?.label,
      }),
  }),
}));

const mutationErrors = [ValidationError, NotFoundError, ForbiddenError];

builder.mutationFields((t) => ({
  updateDocumentSummary: t.field({
    type: SummaryVersionRef,
    description: 'A new version of a document’s markdown summary.',
    errors: { types: mutationErrors, union: { name: 'UpdateSummaryResult' }, result: { name: 'UpdateSummarySuccess' }, dataField: { name: 'version' } },
    args: { documentId: t.arg.id(), markdown: t.arg.string() },
    resolve: (_root, args, ctx) => updateSummary(ctx.prisma, ctx.viewer, rowId(String(args.documentId), 'Document', 'documentId'), args.markdown),
  }),
  addDocumentNote: t.field({
    type: NoteRef,
    description: 'A new note on a document within a corpus it is in (revision 1).',
    errors: { types: mutationErrors, dataField: { name: 'note' } },
    args: { input: t.arg({ type: AddDocumentNoteInput }) },
    resolve: (_root, { input }, ctx) =>
      addNote(
        ctx.prisma,
        ctx.viewer,
        { documentId: rowId(String(input.documentId), 'Document', 'documentId'), corpusId: rowId(String(input.corpusId), 'Corpus', 'corpusId') },
        { title: input.title, content: input.content },
      ),
  }),
  updateDocumentNote: t.field({
    type: NoteRef,
    description: 'Changes one of your notes: a new revision.',
    errors: { types: mutationErrors, dataField: { name: 'note' } },
    args: { id: t.arg.id(), content: t.arg.string(), title: t.arg.string({ required: false }) },
    resolve: (_root, args, ctx) => updateNote(ctx.prisma, ctx.viewer, rowId(String(args.id), 'Note'), { content: args.content, title: args.title }),
  }),
  annotateDocument: t.field({
    type: AnnotationsPayload,
    description:
      'Labels spans of a document’s text: every occurrence of exact strings, or character ranges. Overlapping or out-of-range spans are refused and nothing is written.',
    errors: { types: mutationErrors, directResult: true },
    args: { input: t.arg({ type: AnnotateDocumentInput }) },
    resolve: (_root, { input }, ctx) => {
      const scope = { documentId: rowId(String(input.documentId), 'Document', 'documentId'), corpusId: optionalRowId(input.corpusId, 'Corpus', 'corpusId') };
      if (input.strings && input.spans)
        throw new ValidationError('input: give strings or spans, not both', [{ path: ['input'], message: 'strings or spans, not both' }]);
      return input.strings
        ? addExactStringAnnotations(ctx.prisma, ctx.viewer, scope, { label: input.label, strings: input.strings })
        : addAnnotations(ctx.prisma, ctx.viewer, scope, { label: input.label, spans: input.spans ?? [] });
    },
  }),
}));
