import { decodeGlobalID } from '@pothos/plugin-relay';
import { NotFoundError, ValidationError } from '../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Turns a Relay global ID into the row id of the expected type. A malformed ID is a validation
 * error; an ID of another type is simply not found (it cannot name a row of this type).
 */
export function rowId(globalId: string, typename: string, argName = 'id'): string {
  let decoded: { typename: string; id: string };
  try {
    decoded = decodeGlobalID(globalId);
  } catch {
    throw new ValidationError(`${argName}: not a valid ID`, [{ path: [argName], message: 'not a valid ID' }]);
  }
  if (decoded.typename !== typename || !UUID.test(decoded.id)) throw new NotFoundError(typename, globalId);
  return decoded.id;
}

/** The types `node(id:)` and `nodes(ids:)` can load (a unit test keeps this in step with the schema). */
export const NODE_TYPES: ReadonlySet<string> = new Set(['Approval', 'Dataset', 'Entity', 'Experiment', 'Job', 'Message', 'Moment', 'Resource', 'Session', 'Turn']);

/**
 * Decodes the ID given to `node` / `nodes`: a malformed ID is a validation error, one that cannot
 * name a row (another type, not a row id) is not found, rather than a database error.
 */
export function decodeNodeID(globalId: string): { typename: string; id: string } {
  let decoded: { typename: string; id: string };
  try {
    decoded = decodeGlobalID(globalId);
  } catch {
    throw new ValidationError('id: not a valid ID', [{ path: ['id'], message: 'not a valid ID' }]);
  }
  if (!NODE_TYPES.has(decoded.typename) || !UUID.test(decoded.id)) throw new NotFoundError('Node', globalId);
  return decoded;
}

/** A session id from a header: a Relay global ID, or the bare UUID that clients of other REM servers send. */
export function sessionIdOf(value: string, argName: string): string {
  return UUID.test(value) ? value.toLowerCase() : rowId(value, 'Session', argName);
}

/** The row id named by a Relay global ID of the given type or by the bare UUID; null when the value is neither. */
export function rowIdOrUuid(value: string, typename: string): string | null {
  if (UUID.test(value)) return value;
  try {
    const { typename: type, id } = decodeGlobalID(value);
    return type === typename && UUID.test(id) ? id : null;
  } catch {
    return null;
  }
}
