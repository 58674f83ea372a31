import type { ParsedDoc } from './document-parser.js';
import { Mappings } from './mapping.js';

/**
 * A document's custom routing (`?routing=`, a bulk item's `routing`) is indexed as the keyword
 * field `_routing` (docs only, no norms, as ES's RoutingFieldMapper indexes it): `term`, `terms`,
 * `exists`, `prefix`, `wildcard`, `regexp`, `fuzzy` and `match` on `_routing` run on it as on a
 * keyword field (ROUTING_MAPPINGS), and hits read a document's routing back from it. It is not in
 * the index's mappings, so GET `_mapping`, `fields: ["*"]` and aggregations never see it (ES
 * refuses aggregations and sorts on `_routing`: metadata-fields.ts).
 */
export const ROUTING_FIELD = '_routing';

export function addRouting(doc: ParsedDoc, routing: string): void {
  doc.keyword.add(ROUTING_FIELD, [routing]);
}

/**
 * The mapping a query on `_routing` runs under: `_routing` as an indexed keyword field, whose type
 * is named `_routing` in errors, as ES's RoutingFieldType names it.
 */
export const ROUTING_MAPPINGS: Mappings = routingMappings();

function routingMappings(): Mappings {
  const m = Mappings.parse({ properties: { [ROUTING_FIELD]: { type: 'keyword' } } }, true);
  const def = m.field(ROUTING_FIELD);
  // A table of this module's own, built here: only the type's name differs from a keyword's.
  if (def !== undefined) (m.fields as Map<string, typeof def>).set(ROUTING_FIELD, { ...def, esType: ROUTING_FIELD });
  return m;
}
