import { describe, expect, it } from 'vitest';
import type { GraphQLAbstractType } from 'graphql';
import { NotFoundError, ValidationError } from '../../src/errors.js';
import { decodeNodeID, NODE_TYPES } from '../../src/http/global-ids.js';
import { schema } from '../../src/graphql/schema.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('node IDs', () => {
  it('name exactly the schema’s Node types', () => {
    const nodeTypes = schema
      .getPossibleTypes(schema.getType('Node') as GraphQLAbstractType)
      .map((t) => t.name)
      .sort();
    expect([...NODE_TYPES].sort()).toEqual(nodeTypes);
  });

  it('decode to a type and row id, or fail as bad input / not found rather than in the database', () => {
    const id = '0b0e6b8e-4a55-4f4e-9b5e-2f7f3e0c1a2b';
    expect(decodeNodeID(b64(`Session:${id}`))).toEqual({ typename: 'Session', id });
    expect(() => decodeNodeID('%%%')).toThrow(ValidationError);
    expect(() => decodeNodeID(b64('Session:1'))).toThrow(NotFoundError);
    expect(() => decodeNodeID(b64(`Viewer:${id}`))).toThrow(NotFoundError);
    expect(() => decodeNodeID(b64(`Nope:${id}`))).toThrow(NotFoundError);
  });
});
