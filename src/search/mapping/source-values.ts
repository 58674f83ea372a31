/**
 * The scalar values at a dotted field path in a document's `_source`, through objects and arrays,
 * with the path written nested (`{"a":{"b":1}}`), as one dotted key (`{"a.b":1}`) or partly both,
 * as the document parser indexes them (document-parser.ts joins keys with dots). Nulls and objects
 * at the end of the path are no values.
 */
export function sourceValues(source: unknown, path: string): unknown[] {
  return valuesAt(source, path.split('.'));
}

function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return Array.isArray(value) ? value.flatMap((v) => valuesAt(v, path)) : value === null || typeof value === 'object' ? [] : [value];
  if (Array.isArray(value)) return value.flatMap((v) => valuesAt(v, path));
  if (value === null || typeof value !== 'object') return [];
  const obj = value as Record<string, unknown>;
  const out: unknown[] = [];
  for (let n = 1; n <= path.length; n++) {
    const key = path.slice(0, n).join('.');
    if (Object.hasOwn(obj, key)) out.push(...valuesAt(obj[key], path.slice(n)));
  }
  return out;
}
