import { describe, expect, it } from 'vitest';
import { emptyParsedDoc } from '../../../src/search/mapping/document-parser.js';
import { InvertedIndex } from '../../../src/search/index/inverted-index.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { parseSettings } from '../../../src/search/engine/index-settings.js';
import { SearchContexts } from '../../../src/search/engine/open-contexts.js';
import type { SearchRequest } from '../../../src/search/requests/search-request.js';
import { newIndexState, type IndexState } from '../../../src/search/engine/index-state.js';

// The context registry on its own: ids, secrets, expiry, limits, and what a write pins.

function state(name: string, docs: number): IndexState {
  const index = new InvertedIndex();
  for (let i = 0; i < docs; i++) index.add(`d${i}`, emptyParsedDoc());
  return newIndexState(name, 'u', 0, parseSettings(undefined), Mappings.parse(undefined), [{ index, versions: [], seqNos: [], nextSeqNo: docs }]);
}

const REQ = { size: 10 } as SearchRequest;
const HITS = { shards: new Uint32Array(0), ords: new Int32Array(0), scores: new Float64Array(0), sortColumns: undefined };

function thrown(fn: () => unknown): { status: number; type: string; reason: string } {
  try {
    fn();
  } catch (e) {
    const err = e as { status: number; type: string; message: string; rootCauses?: { reason: string }[] };
    return { status: err.status, type: err.type, reason: err.rootCauses?.[0]?.reason ?? err.message };
  }
  throw new Error('no error');
}

describe('SearchContexts', () => {
  it('finds a scroll by its id only with the right secret, and not once expired', () => {
    const c = new SearchContexts();
    const s = state('a', 3);
    const ctx = c.openScroll([s], REQ, HITS, 0, 1000, 0);
    expect(c.scroll(ctx.id, 500)).toBe(ctx);
    // Same context number, another secret: as unknown as a freed one.
    const forged = Buffer.from(ctx.id, 'base64url');
    forged[forged.length - 1] = (forged[forged.length - 1] as number) ^ 1;
    expect(thrown(() => c.scroll(forged.toString('base64url'), 500))).toEqual({ status: 404, type: 'search_phase_execution_exception', reason: `No search context found for id [${ctx.num}]` });
    expect(thrown(() => c.scroll('%%%', 500)).reason).toBe('Cannot parse scroll id');
    // A point in time id is no scroll id.
    const pit = c.openPit([s], 1000, 0);
    expect(thrown(() => c.scroll(pit.id, 500)).reason).toBe('Cannot parse scroll id');
    expect(thrown(() => c.scroll(ctx.id, 1001)).status).toBe(404);
    expect(c.size).toBe(1);
  });

  it('limits open scrolls and frees expired ones before counting', () => {
    const c = new SearchContexts(2);
    const s = state('a', 1);
    c.openScroll([s], REQ, HITS, 0, 1000, 0);
    c.checkScrollRoom(0, 'a');
    c.openScroll([s], REQ, HITS, 0, 5000, 0);
    expect(thrown(() => c.checkScrollRoom(10, 'a')).status).toBe(429);
    c.checkScrollRoom(2000, 'a');
  });

  it('keeps the source of a retired document only while a context may show it', () => {
    const c = new SearchContexts();
    const s = state('a', 3);
    // Searches see the index as of its last refresh until the next one: that view may show it.
    c.beforeWrite(s, 1, () => '{"v":0}');
    expect(c.retiredSource(s, 1)).toBe('{"v":0}');
    expect(c.refreshed(s)).toBe(true);
    expect(c.retiredSource(s, 1)).toBeUndefined();
    expect(c.refreshed(s)).toBe(false);
    const ctx = c.openScroll([s], REQ, HITS, 0, 1000, 0);
    c.beforeWrite(s, 1, () => '{"v":1}');
    c.beforeWrite(s, 1, () => '{"v":2}');
    expect(c.retiredSource(s, 1)).toBe('{"v":1}');
    c.free(ctx);
    // The view of the last refresh still holds it, until the next refresh.
    expect(c.retiredSource(s, 1)).toBe('{"v":1}');
    c.refreshed(s);
    expect(c.retiredSource(s, 1)).toBeUndefined();
  });

  it('gives a point in time a frozen view of the index at the first write after it opened, shared by those opened in between', () => {
    const c = new SearchContexts();
    const s = state('a', 2);
    const p1 = c.openPit([s], 1000, 0);
    const p2 = c.openPit([s], 1000, 0);
    expect(p1.views[0]?.index).toBe(s.index);
    expect(p1.views[0]?.state().arena).toBe(s.arena);
    c.beforeWrite(s, undefined, () => undefined);
    // A frozen view searches with scratch memory of its own: the live index's arena would keep a
    // memo map for each of the view's posting stores after the view is gone.
    expect(p1.views[0]?.state().arena).not.toBe(s.arena);
    s.index.add('d2', emptyParsedDoc());
    const copy = p1.views[0]?.index;
    expect(copy).not.toBe(s.index);
    expect(p2.views[0]?.index).toBe(copy);
    expect(copy?.maxOrd).toBe(2);
    expect(s.index.maxOrd).toBe(3);
    // Until a refresh, a point in time opens on the index as of the last refresh: the same view.
    const p3 = c.openPit([s], 1000, 0);
    expect(p3.views[0]?.index).toBe(copy);
    c.refreshed(s);
    const p4 = c.openPit([s], 1000, 0);
    expect(p4.views[0]?.index).toBe(s.index);
  });

  it('refuses a keep-alive over the maximum as ES does', () => {
    expect(thrown(() => new SearchContexts().checkKeepAlive(2 * 86_400_000, 'a')).reason).toBe(
      'Keep alive for request (2d) is too large. It must be less than (1d). This limit can be set by changing the [search.max_keep_alive] cluster level setting.',
    );
  });
});
