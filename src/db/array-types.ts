import { types, type PGlite } from '@electric-sql/pglite';

/** An array type and the type of its elements. */
export interface ArrayType {
  oid: number;
  typarray: number;
}

/** PGlite's own query for the array types it parses and serializes (its _initArrayTypes). */
export const ARRAY_TYPES_SQL = `SELECT b.oid, b.typarray FROM pg_catalog.pg_type a
  LEFT JOIN pg_catalog.pg_type b ON b.oid = a.typelem WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray ORDER BY b.oid`;

/** What PGlite's _initArrayTypes does with the rows of ARRAY_TYPES_SQL: each array type parsed and serialized by its elements'. */
export function addArrayTypes(db: Pick<PGlite, 'parsers' | 'serializers'>, arrayTypes: ArrayType[]): void {
  for (const { oid, typarray } of arrayTypes) {
    db.serializers[typarray] = (value) => types.arraySerializer(value, db.serializers[oid], typarray);
    db.parsers[typarray] = (value) => types.arrayParser(value, db.parsers[oid]!, typarray);
  }
}
