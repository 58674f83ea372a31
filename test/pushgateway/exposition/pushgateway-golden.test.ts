/**
 * A /metrics page and its protobuf twin captured from Pushgateway 1.5.1 (after pushing
 * python-client.txt and a body of edge cases): our text encoder must reproduce the page byte for
 * byte from what our parser reads, and the protobuf decoder must read the same families.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProtobufDelimited } from '../../../src/pushgateway/exposition/protobuf.js';
import { renderFamiliesText } from '../../../src/pushgateway/exposition/text-encoder.js';
import { parseText } from '../../../src/pushgateway/exposition/text-parser.js';
import { normalizeForText } from './arbitraries.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`../../fixtures/pushgateway/${name}`, import.meta.url));

describe('Pushgateway 1.5.1 golden exposition', () => {
  const page = fixture('pushgateway-1.5.1-metrics.txt');
  const proto = fixture('pushgateway-1.5.1-metrics.pb');

  it('renders the captured page byte for byte', () => {
    expect(renderFamiliesText(parseText(page))).toBe(page.toString('utf8'));
  });

  it('reads the same families from the protobuf capture', () => {
    // go_* and process_* values moved between the two captures.
    const stable = (name: string): boolean => !name.startsWith('go_') && !name.startsWith('process_');
    const fromProto = parseProtobufDelimited(proto).filter((f) => stable(f.name));
    const fromText = parseText(page).filter((f) => stable(f.name));
    expect(fromProto.map(normalizeForText)).toEqual(fromText);
    expect(fromProto.length).toBeGreaterThan(10);
  });
});
