import { describe, expect, it } from 'vitest';
import { Mappings } from '../../../src/search/mapping/mapping.js';

describe('Mappings', () => {
  it('shows date_detection: false in GET _mapping and keeps it through a save and load', () => {
    const m = Mappings.parse({ date_detection: false, properties: { t: { type: 'text' } } });
    expect(m.toJSON()).toEqual({ date_detection: false, properties: { t: { type: 'text' } } });
    const reloaded = Mappings.parse(JSON.parse(JSON.stringify(m.toJSON())));
    expect(reloaded.dateDetection).toBe(false);
    // The default (on) is not shown, as in Elasticsearch.
    expect(Mappings.parse({ properties: {} }).toJSON()).toEqual({ properties: {} });
  });
});
