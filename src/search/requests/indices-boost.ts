import { errors } from '../errors.js';
import { jsonToken } from '../syntax/json-members.js';

/**
 * `indices_boost`: `[{"<index or pattern>": <boost>}, …]`, as ES 8's SearchSourceBuilder reads it
 * (the object form of ES 7 is "Unknown key for a START_OBJECT in [indices_boost]." there, refused
 * with the other keys by BODY_KEYS). Each entry is one object of one name and a number (a string
 * is not coerced); a boost is a float. The names resolve against the request's indices when the
 * search runs (SearchService.indexBoosts); the first entry naming an index gives its boost, which
 * multiplies the scores of its shards' hits (ES wraps the shard's query in a BoostQuery).
 */

export interface IndexBoost {
  readonly index: string;
  /** A float (Math.fround). */
  readonly boost: number;
}

/** The entries of an `indices_boost` array, checked as ES's IndexBoost parser checks them. */
export function parseIndicesBoost(v: readonly unknown[]): IndexBoost[] {
  return v.map((entry) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      // Inside the array the parser has no current field name.
      throw errors.parsing(`Expected [START_OBJECT] in [null] but found [${jsonToken(entry)}]`);
    }
    const members = Object.entries(entry as Record<string, unknown>);
    const [first, second] = members;
    if (first === undefined) throw errors.parsing('Expected [FIELD_NAME] in [indices_boost] but found [END_OBJECT]');
    const [index, value] = first;
    if (typeof value !== 'number') throw errors.parsing(`Expected [VALUE_NUMBER] in [indices_boost] but found [${jsonToken(value)}]`);
    if (second !== undefined) throw errors.parsing('Expected [END_OBJECT] in [indices_boost] but found [FIELD_NAME]');
    return { index, boost: Math.fround(value) };
  });
}
