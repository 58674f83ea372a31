import { errors, SearchError } from '../errors.js';
import { DateMathError, DateMathParser, zoneOf } from './date-math.js';
import { compileDateFormat, joda } from './date-format.js';

/**
 * Date-math index names, as ES's DateMathExpressionResolver reads them: `<static{math{format|zone}}>`,
 * e.g. `<logs-{now/d}>` (today in UTC as `uuuu.MM.dd`: `logs-2024.03.22`), `<logs-{now/M{yyyy.MM}}>`,
 * `<logs-{now/d{yyyy.MM.dd|+12:00}}>`. A name not between `<` and `>` is left as it is. `{` and `}`
 * outside a placeholder must be escaped with `\`. Errors are ES's `parse_exception`.
 */

const DEFAULT_FORMAT = 'uuuu.MM.dd';

const parser = new DateMathParser();

/** One placeholder's text (`now/d{yyyy.MM|+01:00}`) resolved at `nowMs`. */
function placeholder(text: string, nowMs: number): string {
  const left = text.indexOf('{');
  let math = text;
  let pattern = DEFAULT_FORMAT;
  let zone: string | undefined;
  if (left >= 0) {
    if (text.lastIndexOf('}') !== text.length - 1) throw errors.parse(`invalid dynamic name expression [${text}]. missing closing \`}\` for date math format`);
    if (left === text.length - 2) throw errors.parse(`invalid dynamic name expression [${text}]. missing date format`);
    math = text.slice(0, left);
    const patternAndZone = text.slice(left + 1, -1);
    const bar = patternAndZone.indexOf('|');
    pattern = bar < 0 ? patternAndZone : patternAndZone.slice(0, bar);
    zone = bar < 0 ? undefined : patternAndZone.slice(bar + 1);
  }
  if (zone !== undefined) {
    try {
      zoneOf(zone);
    } catch {
      // DateUtils.of lets java.time's ZoneRulesException through: ES answers it as a 500.
      throw new SearchError(500, { type: 'zone_rules_exception', reason: `Unknown time-zone ID: ${zone}` });
    }
  }
  let ms: number;
  let offsetMs = 0;
  try {
    ms = parser.parse(math, { format: pattern, now: nowMs, roundUp: false, timeZone: zone });
    if (zone !== undefined) {
      const { Instant, ZonedDateTime } = joda();
      offsetMs = ZonedDateTime.ofInstant(Instant.ofEpochMilli(ms), zoneOf(zone)).offset().totalSeconds() * 1000;
    }
  } catch (e) {
    if (e instanceof DateMathError) throw errors.parse(e.message);
    throw e;
  }
  let printed: string | undefined;
  try {
    // The format writes the wall-clock time of the zone: the instant shifted by the zone's offset, written as UTC.
    printed = compileDateFormat(pattern).print(ms + offsetMs);
  } catch (e) {
    throw errors.illegalArgument((e as Error).message);
  }
  if (printed === undefined) throw errors.parse(`invalid dynamic name expression [${text}]`);
  return printed;
}

/** The index name `expression` stands for at `nowMs` (epoch ms); the expression itself when it is no date-math name. */
export function resolveDateMathName(expression: string, nowMs: number): string {
  if (!expression.startsWith('<') || !expression.endsWith('>') || expression.length < 2) return expression;
  const inner = expression.slice(1, -1);
  let out = '';
  let held = '';
  let escape = false;
  let inPlaceholder = false;
  let inFormat = false;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    const escaped = escape;
    escape = false;
    if (c === '\\') {
      if (escaped) out += c;
      else escape = true;
      continue;
    }
    if (inPlaceholder) {
      if (c === '{') {
        if (inFormat && escaped) held += c;
        else if (!inFormat) {
          inFormat = true;
          held += c;
        } else throw errors.parse(`invalid dynamic name expression [${inner}]. invalid character in placeholder at position [${i + 1}]`);
      } else if (c === '}') {
        if (inFormat) {
          inFormat = escaped;
          held += c;
        } else {
          out += placeholder(held, nowMs);
          held = '';
          inPlaceholder = false;
        }
      } else held += c;
      continue;
    }
    if (c === '{' && !escaped) inPlaceholder = true;
    else if (c === '}' && !escaped) {
      throw errors.parse(
        `invalid dynamic name expression [${inner}]. invalid character at position [${i + 1}]. \`{\` and \`}\` are reserved characters and should be escaped when used as part of the index name using \`\\\` (e.g. \`\\{text\\}\`)`,
      );
    } else out += c;
  }
  if (inPlaceholder) throw errors.parse(`invalid dynamic name expression [${inner}]. date math placeholder is open ended`);
  if (out === '') throw errors.parse('nothing captured');
  return out;
}

/** An index expression (names joined by commas) with each date-math name resolved. */
export function resolveDateMathExpression(expression: string, nowMs: number): string {
  if (!expression.includes('<')) return expression;
  return expression.split(',').map((part) => resolveDateMathName(part, nowMs)).join(',');
}
