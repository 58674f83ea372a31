import { SearchError, type EsCause } from '../errors.js';
import { objectMembers, textLocation, valueEndOffset, valueOffset } from '../syntax/json-members.js';

/**
 * A query's parse error as ES words it once the request text is known. ES's parser reads the text
 * and reports places in it (`[1:19]`), and every `bool` around the failing query, parsed by an
 * ObjectParser, wraps the error in x_content_parse_exception "[line:col] [bool] failed to parse
 * field [must]", all at the place where the parser stopped. The query parser here reads parsed
 * JSON, so it records the path to that place instead; `locatedIn(text)` gives ES's whole answer.
 * Until then (a caller without the text) the error is the bare inner one.
 */

type Place = { readonly line: number; readonly col: number };

/**
 * Builds the innermost error: `at` the value where the parser stopped, `key` the key before it,
 * `end` the last character of that value (a closing brace: Jackson's END_OBJECT), each undefined
 * without the text.
 */
type Make = (at: Place | undefined, key: Place | undefined, end: Place | undefined) => SearchError;

export class LocatedQueryError extends SearchError {
  /**
   * Each ObjectParser around the failing value, innermost first, and its field the value is in:
   * a bool's clause (must, filter, …), a rescorer's `rescore_query`.
   */
  readonly wrappers: { readonly parser: string; readonly field: string }[] = [];

  constructor(
    private readonly make: Make,
    /** The JSON path from where the path is known so far down to the value where the parser stopped. */
    readonly path: (string | number)[],
  ) {
    const bare = make(undefined, undefined, undefined);
    super(bare.status, bare.cause_, bare.rootCauses);
  }

  /** An error thrown without a place: located at the body of the query that threw it. */
  static around(e: SearchError, path: (string | number)[]): LocatedQueryError {
    return new LocatedQueryError(() => e, path);
  }

  /** Prefixes the path with `steps`, and records the clause of an enclosing bool. */
  within(steps: readonly (string | number)[], boolClause?: string): this {
    this.path.unshift(...steps);
    if (boolClause !== undefined) this.wrappers.push({ parser: 'bool', field: boolClause });
    return this;
  }

  /** Records an enclosing ObjectParser `parser` whose field `field` held the failing value. */
  wrappedIn(parser: string, field: string): this {
    this.wrappers.push({ parser, field });
    return this;
  }

  /** ES's answer for the request body `text`, once `path` runs from its root. */
  locatedIn(text: string): SearchError {
    const at = valueOffset(text, this.path);
    const place = at === undefined ? undefined : textLocation(text, at);
    const parent = valueOffset(text, this.path.slice(0, -1));
    const last = this.path[this.path.length - 1];
    const member = parent === undefined ? undefined : objectMembers(text, parent).findLast((m) => m.key === last);
    const end = at === undefined ? undefined : textLocation(text, valueEndOffset(text, at) - 1);
    const inner = this.make(place, member === undefined ? undefined : textLocation(text, member.keyAt), end);
    if (this.wrappers.length === 0) return inner;
    const where = place === undefined ? '' : `[${place.line}:${place.col}] `;
    let cause: EsCause = inner.cause_;
    for (const w of this.wrappers) {
      cause = { type: 'x_content_parse_exception', reason: `${where}[${w.parser}] failed to parse field [${w.field}]`, causedBy: cause };
    }
    // ES's root cause is the inner error when it is one of its own exceptions (parsing_exception,
    // an inner x_content_parse_exception); below a Java exception (illegal_argument_exception) it
    // stops at the innermost wrapper.
    const first = this.wrappers[0];
    const innermost: EsCause = { type: 'x_content_parse_exception', reason: `${where}[${first?.parser ?? ''}] failed to parse field [${first?.field ?? ''}]` };
    const roots = inner.type === 'illegal_argument_exception' ? [innermost] : (inner.rootCauses ?? [inner.cause_]);
    return new SearchError(inner.status, cause, roots);
  }
}

const at = (p: Place | undefined): string => (p === undefined ? '' : `[${p.line}:${p.col}] `);

/**
 * An unknown key of a query that ES parses with an ObjectParser: `bool` answers its
 * x_content_parse_exception "[1:19] [bool] unknown field [nope]" as is; `ids` and `match_all` wrap
 * it in a parsing_exception with the same reason (placed at the value). `path` runs from the query
 * object to the key.
 */
export function unknownField(query: string, key: string, path: (string | number)[], wrapped: boolean): LocatedQueryError {
  return new LocatedQueryError((value, keyAt) => {
    const reason = `${at(keyAt)}[${query}] unknown field [${key}]`;
    const parse: EsCause = { type: 'x_content_parse_exception', reason };
    if (!wrapped) return new SearchError(400, parse);
    const meta = value === undefined ? undefined : { line: value.line, col: value.col };
    const outer: EsCause = { type: 'parsing_exception', reason, meta, causedBy: parse };
    return new SearchError(400, outer, [{ type: 'parsing_exception', reason, meta }]);
  }, path);
}
