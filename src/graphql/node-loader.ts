import { brandWithType, type SchemaTypes } from '@pothos/core';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { isObjectType, type GraphQLResolveInfo } from 'graphql';
import { visibleTo } from '../auth/scope.js';
import type { GraphQLContext } from './context.js';
import { FILE_CATEGORY } from '../rem/ingest/ingest-file.js';

/** Node types that are some of their model's rows (a Document is a file's resource, not a chunk's). */
const NODE_ROWS: Partial<Record<string, object>> = { Document: { category: FILE_CATEGORY } };

/**
 * Who sees a type's rows, where it is not the owner rule: inbound email belongs to the tenant's
 * shared inbox, which only its admins see (anyone else gets null, as for a missing row).
 */
const NODE_SCOPES: Partial<Record<string, (viewer: GraphQLContext['viewer']) => object | null>> = {
  InboundEmail: (viewer) => (viewer.isAdmin ? { tenantId: viewer.tenantId } : null),
  EmailDraft: (viewer) => (viewer.isAdmin ? { email: { tenantId: viewer.tenantId } } : null),
};

/** Brands by any type's name: the typename is only known at run time (prismaModelOf found it in the schema). */
type ByName = SchemaTypes & { outputShapes: Record<string, unknown> };

interface FindMany {
  findMany(args: object): Promise<{ id: string }[]>;
}

/**
 * Resolves `node(id:)` and `nodes(ids:)` with one query per type instead of one per id (the Relay plugin calls a
 * prismaNode's loader once per id). Every Node is a scoped Prisma row, so the caller's
 * `visibleTo` filter (or the type's NODE_SCOPES rule) is the same one each type's own query applies: an id the caller may
 * not see is null, indistinguishable from a missing row (decodeNodeID has already refused ids of
 * other types and ids that are not row ids).
 */
export async function loadNodes(ids: readonly { typename: string; id: string }[], ctx: GraphQLContext, info: GraphQLResolveInfo): Promise<unknown[]> {
  const byType = new Map<string, Set<string>>();
  for (const { typename, id } of ids) {
    const set = byType.get(typename) ?? new Set<string>();
    byType.set(typename, set.add(id.toLowerCase()));
  }
  const found = new Map<string, unknown>();
  await Promise.all(
    [...byType].map(async ([typename, rowIds]) => {
      const model = prismaModelOf(info, typename);
      const scope = NODE_SCOPES[typename] ? NODE_SCOPES[typename](ctx.viewer) : visibleTo(ctx.viewer);
      if (!model || !scope) return;
      const delegate = (ctx.prisma as unknown as Record<string, FindMany>)[model.charAt(0).toLowerCase() + model.slice(1)]!;
      const query = await queryFromInfo({ context: ctx, info, typeName: typename, awaitSelections: true });
      const rows = await delegate.findMany({ ...query, where: { id: { in: [...rowIds] }, ...scope, ...NODE_ROWS[typename] } });
      for (const row of rows) {
        brandWithType<ByName>(row, typename);
        found.set(`${typename}:${row.id}`, row);
      }
    }),
  );
  return ids.map(({ typename, id }) => found.get(`${typename}:${id.toLowerCase()}`) ?? null);
}

/** The Prisma model behind a Node type of the schema; undefined for any other name. */
function prismaModelOf(info: GraphQLResolveInfo, typename: string): string | undefined {
  const type = info.schema.getType(typename);
  if (!isObjectType(type) || !type.getInterfaces().some((i) => i.name === 'Node')) return undefined;
  return type.extensions.pothosPrismaModel as string | undefined;
}
