import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  typeFromAST,
} from 'graphql';

/** A small seeded generator (mulberry32), so a failing run can be repeated from its seed. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (max: number) => Math.floor(next() * max),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
export type Random = ReturnType<typeof seededRandom>;

const STRINGS = ['', 'x', 'hello', 'a'.repeat(300), '\u0000', '"; DROP TABLE sessions; --', '../../etc/passwd', '{{7*7}}', '\ud83d\ude00', 'LOOKUP "x"', ' '];

/** A value of an input type: plausible when `random` is absent, otherwise random (valid for the type, often nonsense for the domain). */
export function valueFor(type: GraphQLInputType, random?: Random, depth = 0): unknown {
  if (isNonNullType(type)) return valueFor(type.ofType, random, depth);
  if (isListType(type)) {
    const length = random ? random.int(3) : 1;
    return Array.from({ length }, () => valueFor(type.ofType, random, depth + 1));
  }
  const named = getNamedType(type);
  if (isEnumType(named)) {
    const values = named.getValues();
    return (random ? random.pick(values) : values[0]!).name;
  }
  if (isInputObjectType(named)) {
    const object: Record<string, unknown> = {};
    for (const field of Object.values(named.getFields())) {
      if (isNonNullType(field.type) || (random && depth < 3 && random.chance(0.5))) object[field.name] = valueFor(field.type, random, depth + 1);
    }
    return object;
  }
  if (isScalarType(named)) return scalarValue(named.name, random);
  return null;
}

function scalarValue(name: string, random?: Random): unknown {
  switch (name) {
    case 'Int':
      return random ? random.pick([0, 1, -1, 2147483647, 50, 3]) : 1;
    case 'Float':
      return random ? random.pick([0, 0.5, -1, 1e9]) : 0.5;
    case 'Boolean':
      return random ? random.chance(0.5) : true;
    case 'ID':
      return random ? random.pick(['', 'x', Buffer.from('Session:00000000-0000-0000-0000-000000000000').toString('base64'), 'U2Vzc2lvbjox']) : 'U2Vzc2lvbjox';
    case 'DateTime':
      return random ? random.pick(['2026-01-01T00:00:00Z', 'yesterday']) : '2026-01-01T00:00:00Z';
    case 'JSON':
    case 'JSONObject':
      return random ? random.pick([{}, { a: [1, 2] }, { nested: { deep: 'x' } }]) : {};
    default:
      return random ? random.pick(STRINGS) : 'x';
  }
}

/** Variables for an operation: every declared variable gets a value of its type. */
export function variablesFor(schema: GraphQLSchema, operation: OperationDefinitionNode, random?: Random): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined;
    if (type) variables[definition.variable.name.value] = valueFor(type, random);
  }
  return variables;
}
