import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type PrismaTypes from '../db/generated/pothos-types.js';
import { getDatamodel } from '../db/generated/pothos-types.js';
import { ForbiddenError } from '../errors.js';
import type { GraphQLContext } from './context.js';
import { decodeNodeID, encodeGlobalID } from '../http/global-ids.js';

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: { admin: boolean };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: true;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
    File: { Input: File; Output: never };
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin, ErrorsPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  defaultInputFieldRequiredness: true,
  scopeAuth: {
    authScopes: (ctx) => ({ admin: ctx.viewer.isAdmin }),
    unauthorizedError: () => new ForbiddenError('This operation needs the admin role'),
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    encodeGlobalID,
    decodeGlobalID: decodeNodeID,
    // node and nodes are declared in types/node.ts: an id naming nothing answers null there, not NOT_FOUND.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
  errors: {
    defaultUnionOptions: { name: ({ fieldName }) => `${upperFirst(fieldName)}Result` },
    defaultResultOptions: { name: ({ fieldName }) => `${upperFirst(fieldName)}Success` },
  },
});
