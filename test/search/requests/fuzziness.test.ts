import { describe, expect, it } from 'vitest';
import { editsFor, parseFuzziness } from '../../../src/search/requests/fuzziness.js';

describe("Elasticsearch's fuzziness", () => {
  it('reads AUTO, AUTO:low,high and edit counts as ES does', () => {
    const auto = parseFuzziness('AUTO');
    expect([editsFor(auto, 'ab'), editsFor(auto, 'abc'), editsFor(auto, 'abcde'), editsFor(auto, 'abcdef')]).toEqual([0, 1, 1, 2]);
    const custom = parseFuzziness('auto:2,4');
    expect([editsFor(custom, 'a'), editsFor(custom, 'ab'), editsFor(custom, 'abcd')]).toEqual([0, 1, 2]);
    expect(editsFor(parseFuzziness(3), 'abcdef')).toBe(2);
    expect(editsFor(parseFuzziness('1.5'), 'abcdef')).toBe(1);
  });

  it("refuses bad values with ES's errors", () => {
    expect(() => parseFuzziness('abc')).toThrow('Invalid fuzziness value: abc');
    expect(() => parseFuzziness(-1)).toThrow('Invalid fuzziness value: -1');
    expect(() => parseFuzziness('AUTO:2,x')).toThrow('failed to parse [AUTO:2,x] as a "auto:int,int"');
    expect(() => parseFuzziness('AUTO:5,2')).toThrow('fuzziness wrongly configured');
  });
});
