import { NotFoundError } from '../../errors.js';
import { decodeNodeID } from '../../http/global-ids.js';
import { builder } from '../builder.js';
import { loadNodes } from '../node-loader.js';

/** A node id's type and row; null for a well-formed id that names nothing (another type, not a row id). */
function nodeIdOrNull(globalId: string): { typename: string; id: string } | null {
  try {
    return decodeNodeID(globalId);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

// Relay's contract: `node` answers null for an id it cannot resolve, so normalized caches (Apollo,
// Relay) can ask for any id they hold; a malformed id is still VALIDATION_FAILED.
builder.queryFields((t) => ({
  node: t.field({
    type: builder.nodeInterfaceRef(),
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx, info) => {
      const decoded = nodeIdOrNull(String(id));
      return decoded ? (await loadNodes([decoded], ctx, info))[0] : null;
    },
  }),
  nodes: t.field({
    type: [builder.nodeInterfaceRef()],
    nullable: { list: false, items: true },
    args: { ids: t.arg.idList({ required: true }) },
    resolve: async (_root, { ids }, ctx, info) => {
      const decoded = ids.map((id) => nodeIdOrNull(String(id)));
      const known = decoded.filter((d) => d !== null);
      const loaded = await loadNodes(known, ctx, info);
      let next = 0;
      return decoded.map((d) => (d ? loaded[next++] : null));
    },
  }),
}));
