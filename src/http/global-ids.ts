import { NotFoundError, ValidationError } from '../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64 = /^(?:[\d+/A-Za-z]{4})*(?:[\d+/A-Za-z]{2}==|[\d+/A-Za-z]{3}=)?$/;
const TYPENAME = /^[A-Z_a-z]\w*$/;

/**
 * A Relay global ID: base64 of `Type:id`. The format of Pothos' relay plugin, which the schema
 * builder is told to use this for too, so the IDs handed out before keep working.
 */
export function encodeGlobalID(typename: string, id: string | number | bigint): string {
  return Buffer.from(`${typename}:${id}`).toString('base64');
}

/** The type and id of a Relay global ID (the id may contain `:`); undefined when the value is not one. */
function decodeGlobalID(globalId: string): { typename: string; id: string } | undefined {
  if (!BASE64.test(globalId)) return undefined;
  const [typename, ...rest] = Buffer.from(globalId, 'base64').toString().split(':');
  if (!typename || !rest[0] || !TYPENAME.test(typename)) return undefined;
  return { typename, id: rest.join(':') };
}

/**
 * Turns a Relay global ID into the row id of the expected type. A malformed ID is a validation
 * error; an ID of another type is simply not found (it cannot name a row of this type).
 */
export function rowId(globalId: string, typename: string, argName = 'id'): string {
  const decoded = decodeGlobalID(globalId);
  if (!decoded) throw new ValidationError(`${argName}: not a valid ID`, [{ path: [argName], message: 'not a valid ID' }]);
  if (decoded.typename !== typename || !UUID.test(decoded.id)) throw new NotFoundError(typename, globalId);
  return decoded.id;
}

/** The types `node(id:)` and `nodes(ids:)` can load (a unit test keeps this in step with the schema). */
export const NODE_TYPES: ReadonlySet<string> = new Set([
  'Annotation',
  'Approval',
  'Corpus',
  'Dataset',
  'Document',
  'EmailDraft',
  'Entity',
  'Experiment',
  'InboundEmail',
  'Job',
  'Message',
  'Moment',
  'Note',
  'Resource',
  'Session',
  'Turn',
]);

/**
 * Decodes the ID given to `node` / `nodes`: a malformed ID is a validation error, one that cannot
 * name a row (another type, not a row id) is not found, rather than a database error.
 */
export function decodeNodeID(globalId: string): { typename: string; id: string } {
  const decoded = decodeGlobalID(globalId);
  if (!decoded) throw new ValidationError('id: not a valid ID', [{ path: ['id'], message: 'not a valid ID' }]);
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
  const decoded = decodeGlobalID(value);
  return decoded?.typename === typename && UUID.test(decoded.id) ? decoded.id : null;
}
