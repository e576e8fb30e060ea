import {
  getNamedType,
  isAbstractType,
  isCompositeType,
  isObjectType,
  isInterfaceType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { valueFor, type Random } from './schema-values.js';

export interface FuzzOperation {
  query: string;
  variables: Record<string, unknown>;
  /** Root fields it calls, e.g. ["upsertEntity", "upsertEntity"]. */
  fields: string[];
}

/**
 * A random operation that is valid against the schema more often than not: random root fields
 * (aliased, sometimes repeated), random arguments through variables (sometimes of the wrong type),
 * nested selections of random depth, fragments on union and interface members.
 */
export function randomOperation(schema: GraphQLSchema, random: Random, kind: 'query' | 'mutation', exclude: ReadonlySet<string> = new Set()): FuzzOperation {
  const root = (kind === 'query' ? schema.getQueryType() : schema.getMutationType())!;
  const fields = Object.values(root.getFields()).filter((f) => !exclude.has(f.name));
  const builder = new Builder(schema, random);
  const chosen = Array.from({ length: 1 + random.int(3) }, () => random.pick(fields));
  const selections = chosen.map((field, i) => builder.field(field, 0, `f${i}`)).join(' ');
  const definitions = builder.definitions.length ? `(${builder.definitions.join(', ')})` : '';
  return { query: `${kind} Fuzz${definitions} { ${selections} }`, variables: builder.variables, fields: chosen.map((f) => f.name) };
}

class Builder {
  readonly definitions: string[] = [];
  readonly variables: Record<string, unknown> = {};

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly random: Random,
  ) {}

  field(field: GraphQLField<unknown, unknown>, depth: number, alias?: string): string {
    const name = alias ?? (this.random.chance(0.15) ? `a${this.random.int(1000)}: ${field.name}` : field.name);
    const prefix = alias ? `${alias}: ${field.name}` : name;
    const args = field.args.filter((arg) => String(arg.type).endsWith('!') || this.random.chance(0.5)).map((arg) => `${arg.name}: ${this.variable(arg.type)}`);
    const argList = args.length ? `(${args.join(', ')})` : '';
    const type = getNamedType(field.type);
    return `${prefix}${argList}${isCompositeType(type) ? ` { ${this.selection(type, depth + 1)} }` : ''}`;
  }

  private variable(type: GraphQLInputType): string {
    const name = `v${this.definitions.length}`;
    this.definitions.push(`$${name}: ${String(type)}`);
    // Now and then a value of another type: the server must refuse it cleanly.
    this.variables[name] = this.random.chance(0.08) ? this.random.pick([42, 'x', [], {}, null, true, 'y'.repeat(2000)]) : valueFor(type, this.random);
    return `$${name}`;
  }

  private selection(type: GraphQLNamedType, depth: number): string {
    if (isAbstractType(type)) {
      const members = this.schema.getPossibleTypes(type);
      const picked = Array.from({ length: 1 + this.random.int(2) }, () => this.random.pick(members));
      return ['__typename', ...new Set(picked)].map((m) => (typeof m === 'string' ? m : `... on ${m.name} { ${this.objectFields(m, depth)} }`)).join(' ');
    }
    if (isObjectType(type) || isInterfaceType(type)) return this.objectFields(type, depth);
    return '__typename';
  }

  private objectFields(type: GraphQLObjectType | GraphQLInterfaceType, depth: number): string {
    const all = Object.values(type.getFields());
    // Deep down, prefer leaves so that most operations stay within the limits (some do not, on purpose).
    const candidates = depth > 3 + this.random.int(4) ? all.filter((f) => !isCompositeType(getNamedType(f.type))) : all;
    const pool = candidates.length ? candidates : all;
    const picked = new Set(Array.from({ length: 1 + this.random.int(3) }, () => this.random.pick(pool)));
    return ['__typename', ...[...picked].map((f) => this.field(f, depth))].join(' ');
  }
}
