import { encodeGlobalID } from '../../http/global-ids.js';
import type { AgentContext } from '../../auth/agent-context.js';
import { visibleTo } from '../../auth/scope.js';
import type { Entity, PrismaClient } from '../../db/generated/client.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { deleteMemory } from '../../rem/memory/delete.js';
import { ingest, type IngestResult } from '../../rem/memory/ingest.js';
import type { StoredEdge } from '../../rem/memory/inputs.js';
import type { MemoryDeps } from '../../rem/memory/kinds.js';
import { memoryWhere } from '../../rem/memory/list-filter.js';
import { reembed, type ReembedResult } from '../../rem/memory/reembed.js';
import { upsertEntity, upsertMoment, upsertResource } from '../../rem/memory/upsert.js';
import { normalizeKey } from '../../rem/keys.js';
import { REM_DIALECT } from '../../rem/dialect.js';
import { REM_MODES } from '../../rem/parser.js';
import type { RemHit, RemResult } from '../../rem/service.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { rowId } from '../../http/global-ids.js';
import { pageSize } from '../pagination.js';

const memoryDeps = (ctx: GraphQLContext): MemoryDeps => ({ prisma: ctx.prisma, embedder: ctx.rem.embedder, stats: ctx.rem.tableStats });

/** The entity each key names for this caller: their own row over the tenant's shared one; null when none. */
async function entitiesByKey(prisma: PrismaClient, viewer: AgentContext, keys: readonly string[]): Promise<(Entity | null)[]> {
  const rows = await prisma.entity.findMany({ where: { key: { in: [...keys] }, ...visibleTo(viewer) } });
  const byKey = new Map<string, Entity>();
  for (const row of rows) if (!byKey.has(row.key) || row.userId !== null) byKey.set(row.key, row);
  return keys.map((key) => byKey.get(key) ?? null);
}

const GraphEdgeRef = builder.objectRef<StoredEdge>('GraphEdge');
const DEFAULT_EDGES = 20;
const MAX_EDGES = 100;

function edgesOf(value: unknown): StoredEdge[] {
  return Array.isArray(value) ? (value as StoredEdge[]) : [];
}

/** What resources, entities and moments have in common. */
interface MemoryRow {
  key: string;
  name: string | null;
  summary: string | null;
  content: string | null;
  tags: string[];
  graphEdges: unknown;
  metadata: unknown;
  userId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const MemoryItemRef = builder.interfaceRef<MemoryRow>('MemoryItem').implement({
  description: 'Fields shared by resources, entities and moments.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Normalised kebab-case key, unique per owner within the tenant.' }),
    name: t.exposeString('name', { nullable: true }),
    summary: t.exposeString('summary', { nullable: true }),
    content: t.exposeString('content', { nullable: true }),
    tags: t.exposeStringList('tags'),
    graphEdges: t.field({
      type: [GraphEdgeRef],
      description: `The first edges, at most ${MAX_EDGES} (graphEdges → target → graphEdges multiplies the operation's cost by \`first\` per level).`,
      args: { first: t.arg.int({ defaultValue: DEFAULT_EDGES }) },
      extensions: { complexity: (args: { first?: number | null }) => ({ field: 1, multiplier: args.first ?? DEFAULT_EDGES }) },
      resolve: (row, { first }) => {
        const count = first ?? DEFAULT_EDGES;
        if (count < 0 || count > MAX_EDGES)
          throw new ValidationError(`first: between 0 and ${MAX_EDGES}`, [{ path: ['first'], message: `between 0 and ${MAX_EDGES}` }]);
        return edgesOf(row.graphEdges).slice(0, count);
      },
    }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    shared: t.boolean({ description: 'Shared with the whole tenant (no owner).', resolve: (row) => row.userId === null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const EntityRef = builder.prismaNode('Entity', {
  id: { field: 'id' },
  interfaces: [MemoryItemRef],
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  description: 'An ontology entity: structured knowledge under a natural-language key.',
  fields: (t) => ({
    entityType: t.exposeString('entityType', { nullable: true }),
    uri: t.exposeString('uri', { nullable: true }),
    extractedData: t.expose('extractedData', { type: 'JSON', nullable: true }),
  }),
});

export const ResourceRef = builder.prismaNode('Resource', {
  id: { field: 'id' },
  interfaces: [MemoryItemRef],
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  description: 'Ingested content: a document, conversation or artifact.',
  fields: (t) => ({
    uri: t.exposeString('uri', { nullable: true }),
    category: t.exposeString('category', { nullable: true }),
  }),
});

export const MomentRef = builder.prismaNode('Moment', {
  id: { field: 'id' },
  interfaces: [MemoryItemRef],
  findUnique: (id, ctx) => ({ id, ...visibleTo(ctx.viewer) }),
  nullable: true,
  description: 'A time-bounded episode.',
  fields: (t) => ({
    momentType: t.exposeString('momentType', { nullable: true }),
    startsAt: t.expose('startsAt', { type: 'DateTime', nullable: true }),
    endsAt: t.expose('endsAt', { type: 'DateTime', nullable: true }),
    sessionId: t.id({ nullable: true, resolve: (m) => (m.sessionId ? encodeGlobalID('Session', m.sessionId) : null) }),
  }),
});

GraphEdgeRef.implement({
  description: 'A labelled, weighted link from a memory row to an entity key.',
  fields: (t) => ({
    dst: t.exposeString('dst', { description: 'Key of the target.' }),
    relType: t.string({ resolve: (e) => e.rel_type }),
    weight: t.float({ resolve: (e) => e.weight ?? 1 }),
    properties: t.field({ type: 'JSON', nullable: true, resolve: (e) => e.properties ?? null }),
    target: t.loadable({
      type: EntityRef,
      nullable: true,
      description: 'The entity the key names, if the caller can see one (batched per request).',
      load: (keys: string[], ctx) => entitiesByKey(ctx.prisma, ctx.viewer, keys),
      resolve: (e) => e.dst,
    }),
  }),
});

const MemoryFilterInput = builder.inputType('MemoryFilter', {
  fields: (t) => ({
    tags: t.stringList({ required: false, description: 'Rows with any of these tags.' }),
    type: t.string({ required: false, description: 'entityType, resource category or momentType.' }),
    text: t.string({ required: false, description: 'Case-insensitive substring of key, name, summary or content.' }),
  }),
});

const RemModeEnum = builder.enumType('RemMode', { values: REM_MODES });

const TYPENAME: Record<string, string> = { entities: 'Entity', resources: 'Resource', moments: 'Moment', messages: 'Message' };

const RemHitRef = builder.objectRef<RemHit>('RemHit').implement({
  description: 'One result of LOOKUP, FUZZY, SEARCH or TRAVERSE.',
  fields: (t) => ({
    id: t.id({ description: 'Global ID of the row (node(id) loads it).', resolve: (h) => encodeGlobalID(TYPENAME[h.entityType] ?? h.entityType, h.id) }),
    key: t.exposeString('key'),
    entityType: t.exposeString('entityType', { description: 'Table of the row: entities, resources, moments or messages.' }),
    name: t.exposeString('name', { nullable: true }),
    summary: t.exposeString('summary', { nullable: true }),
    content: t.exposeString('content', { nullable: true, description: 'Full stored content (LOOKUP only).' }),
    score: t.exposeFloat('score', {
      nullable: true,
      description: 'LOOKUP 1, FUZZY trigram similarity, SEARCH cosine similarity, TRAVERSE product of edge weights.',
    }),
    edges: t.field({ type: [GraphEdgeRef], resolve: (h) => h.edges }),
    path: t.exposeStringList('path', { nullable: true, description: 'TRAVERSE: keys from the start to this hit.' }),
    relType: t.exposeString('relType', { nullable: true, description: 'TRAVERSE: relation of the last step.' }),
    depth: t.exposeInt('depth', { nullable: true }),
    page: t.exposeInt('page', { nullable: true, description: 'SEARCH: the page of a PDF chunk.' }),
  }),
});

const RemResultRef = builder.objectRef<RemResult>('RemResult').implement({
  fields: (t) => ({
    mode: t.field({ type: RemModeEnum, resolve: (r) => r.mode }),
    hits: t.field({ type: [RemHitRef], resolve: (r) => r.hits }),
    rows: t.field({ type: 'JSON', nullable: true, description: 'SQL mode: result rows as JSON objects.', resolve: (r) => r.rows }),
    truncated: t.exposeBoolean('truncated', { description: 'SQL mode: more rows matched than the row cap or the byte cap let through.' }),
    tookMs: t.exposeFloat('tookMs'),
  }),
});

builder.queryFields((t) => ({
  remQuery: t.field({
    type: RemResultRef,
    description: `${REM_DIALECT} Errors: QUERY_SYNTAX (with position), FORBIDDEN (refused SQL), LIMIT_EXCEEDED (SQL past its time limit), VALIDATION_FAILED.`,
    args: { query: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.rem.query(ctx.viewer, args.query),
  }),
  entity: t.prismaField({
    type: 'Entity',
    nullable: true,
    description: 'The caller’s entity with this key (normalised), else the tenant’s shared one; null when there is none.',
    args: { key: t.arg.string() },
    resolve: async (query, _root, args, ctx) => {
      const key = normalizeKey(args.key);
      if (key === '') return null;
      const rows = await ctx.prisma.entity.findMany({ ...query, where: { key, ...visibleTo(ctx.viewer) }, take: 2 });
      return rows.find((r) => r.userId !== null) ?? rows[0] ?? null;
    },
  }),
  entities: t.prismaConnection({
    type: 'Entity',
    cursor: 'id',
    ...pageSize(20, 100),
    args: { filter: t.arg({ type: MemoryFilterInput, required: false }) },
    totalCount: (_root, args, ctx) => ctx.prisma.entity.count({ where: memoryWhere(ctx.viewer, 'entity', args.filter) }),
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.entity.findMany({ ...query, where: memoryWhere(ctx.viewer, 'entity', args.filter), orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }] }),
  }),
  resources: t.prismaConnection({
    type: 'Resource',
    cursor: 'id',
    ...pageSize(20, 100),
    args: { filter: t.arg({ type: MemoryFilterInput, required: false }) },
    totalCount: (_root, args, ctx) => ctx.prisma.resource.count({ where: memoryWhere(ctx.viewer, 'resource', args.filter) }),
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.resource.findMany({ ...query, where: memoryWhere(ctx.viewer, 'resource', args.filter), orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }] }),
  }),
  moments: t.prismaConnection({
    type: 'Moment',
    cursor: 'id',
    ...pageSize(20, 100),
    args: { filter: t.arg({ type: MemoryFilterInput, required: false }) },
    totalCount: (_root, args, ctx) => ctx.prisma.moment.count({ where: memoryWhere(ctx.viewer, 'moment', args.filter) }),
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.moment.findMany({
        ...query,
        where: memoryWhere(ctx.viewer, 'moment', args.filter),
        orderBy: [{ startsAt: { sort: 'desc', nulls: 'last' } }, { id: 'desc' }],
      }),
  }),
}));

const GraphEdgeInput = builder.inputType('GraphEdgeInput', {
  fields: (t) => ({
    dst: t.string({ description: 'Key of the target entity (normalised).' }),
    relType: t.string(),
    weight: t.float({ required: false, description: '0..1, default 1 (1.0 primary, 0.5 secondary).' }),
    properties: t.field({ type: 'JSON', required: false }),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const commonInputFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => ({
  key: t.string({ description: 'Natural-language label; stored normalised to kebab-case ("Sarah Chen" -> sarah-chen).' }),
  name: t.string({ required: false }),
  summary: t.string({ required: false }),
  content: t.string({ required: false, description: 'Text that is embedded for SEARCH (with name and summary).' }),
  tags: t.stringList({ required: false }),
  graphEdges: t.field({ type: [GraphEdgeInput], required: false }),
  metadata: t.field({ type: 'JSON', required: false }),
  shared: t.boolean({ required: false, description: 'Write the tenant’s shared row (user_id NULL): admins only.' }),
});

const EntityInput = builder.inputType('EntityInput', {
  description: 'Omitted fields keep their stored value on update; null clears them.',
  fields: (t) => ({
    ...commonInputFields(t),
    entityType: t.string({ required: false }),
    uri: t.string({ required: false }),
    extractedData: t.field({ type: 'JSON', required: false }),
  }),
});
const ResourceInput = builder.inputType('ResourceInput', {
  fields: (t) => ({ ...commonInputFields(t), uri: t.string({ required: false }), category: t.string({ required: false }) }),
});
const MomentInput = builder.inputType('MomentInput', {
  fields: (t) => ({
    ...commonInputFields(t),
    momentType: t.string({ required: false }),
    startsAt: t.field({ type: 'DateTime', required: false }),
    endsAt: t.field({ type: 'DateTime', required: false }),
    sessionId: t.id({ required: false }),
  }),
});
const MemoryItemInput = builder.inputType('MemoryItemInput', {
  description: 'Exactly one of entity, resource or moment.',
  fields: (t) => ({
    entity: t.field({ type: EntityInput, required: false }),
    resource: t.field({ type: ResourceInput, required: false }),
    moment: t.field({ type: MomentInput, required: false }),
  }),
});

const IngestSuccessRef = builder.objectRef<IngestResult>('IngestSuccess').implement({
  fields: (t) => ({
    entities: t.field({ type: [EntityRef], resolve: (r) => r.entities }),
    resources: t.field({ type: [ResourceRef], resolve: (r) => r.resources }),
    moments: t.field({ type: [MomentRef], resolve: (r) => r.moments }),
    count: t.int({ resolve: (r) => r.entities.length + r.resources.length + r.moments.length }),
  }),
});

const ReembedSuccessRef = builder.objectRef<ReembedResult>('ReembedSuccess').implement({
  fields: (t) => ({
    model: t.exposeString('model'),
    dimension: t.exposeInt('dimension'),
    embedded: t.exposeInt('embedded', { description: 'Rows that got a vector for the current model.' }),
  }),
});

const writeErrors = [ValidationError, ForbiddenError, NotFoundError];
const deleteErrors = [ValidationError, ForbiddenError, NotFoundError];

/** GraphQL moment input: the session is a global ID. */
function momentInput<T extends { sessionId?: string | number | null }>(input: T) {
  return { ...input, sessionId: input.sessionId == null ? input.sessionId : rowId(String(input.sessionId), 'Session', 'sessionId') };
}

builder.mutationFields((t) => ({
  upsertEntity: t.field({
    type: EntityRef,
    errors: { types: writeErrors, dataField: { name: 'entity' } },
    args: { input: t.arg({ type: EntityInput }) },
    resolve: (_root, args, ctx) => upsertEntity(memoryDeps(ctx), ctx.viewer, args.input),
  }),
  upsertResource: t.field({
    type: ResourceRef,
    errors: { types: writeErrors, dataField: { name: 'resource' } },
    args: { input: t.arg({ type: ResourceInput }) },
    resolve: (_root, args, ctx) => upsertResource(memoryDeps(ctx), ctx.viewer, args.input),
  }),
  upsertMoment: t.field({
    type: MomentRef,
    errors: { types: writeErrors, dataField: { name: 'moment' } },
    args: { input: t.arg({ type: MomentInput }) },
    resolve: (_root, args, ctx) => upsertMoment(memoryDeps(ctx), ctx.viewer, momentInput(args.input)),
  }),
  ingest: t.field({
    type: IngestSuccessRef,
    description: 'Upserts every item in one transaction: all are written, or none (the first invalid item is reported).',
    errors: { types: writeErrors, directResult: true },
    args: { items: t.arg({ type: [MemoryItemInput] }) },
    resolve: (_root, args, ctx) =>
      ingest(
        memoryDeps(ctx),
        ctx.viewer,
        args.items.map((item) => ({ ...item, moment: item.moment ? momentInput(item.moment) : item.moment })),
      ),
  }),
  deleteEntity: t.field({
    type: EntityRef,
    errors: { types: deleteErrors, dataField: { name: 'entity', description: 'The entity as it was before deletion.' } },
    args: { key: t.arg.string(), shared: t.arg.boolean({ required: false }) },
    resolve: (_root, args, ctx) => deleteMemory(ctx, ctx.viewer, 'entity', args.key, args.shared ?? false),
  }),
  deleteResource: t.field({
    type: ResourceRef,
    errors: { types: deleteErrors, dataField: { name: 'resource' } },
    args: { key: t.arg.string(), shared: t.arg.boolean({ required: false }) },
    resolve: (_root, args, ctx) => deleteMemory(ctx, ctx.viewer, 'resource', args.key, args.shared ?? false),
  }),
  deleteMoment: t.field({
    type: MomentRef,
    errors: { types: deleteErrors, dataField: { name: 'moment' } },
    args: { key: t.arg.string(), shared: t.arg.boolean({ required: false }) },
    resolve: (_root, args, ctx) => deleteMemory(ctx, ctx.viewer, 'moment', args.key, args.shared ?? false),
  }),
  reembed: t.field({
    type: ReembedSuccessRef,
    description:
      'Computes vectors of the configured embedding model for rows that have none (after changing EMBEDDING_MODEL). ' +
      'Admins re-embed the whole tenant, other callers their own rows. SEARCH only ever compares vectors of the configured model. ' +
      'The request lasts as long as the work: queueReembed runs it as a job whose progress can be followed.',
    errors: { types: [ForbiddenError], directResult: true },
    resolve: (_root, _args, ctx) => reembed(memoryDeps(ctx), ctx.viewer),
  }),
}));
