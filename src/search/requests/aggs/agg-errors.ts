import type { SearchError} from '../../errors.js';
import { errors, type EsCause } from '../../errors.js';
import { LocatedQueryError } from '../query-error.js';

/** The errors of aggregation parsing, each placed in the request text at its JSON path (see LocatedQueryError). */

type Path = (string | number)[];

type Place = { line: number; col: number } | undefined;

/** An error placed in the request text at `path` (see LocatedQueryError): `make` gets the value's and the key's places, and the value's last character's. */
export function located(path: Path, make: (value: Place, key: Place, end: Place) => SearchError): LocatedQueryError {
  return new LocatedQueryError(make, path);
}

/** ES's parsing_exception placed at the value `path` names. */
export function parsingAt(path: Path, reason: string, atKey = false): LocatedQueryError {
  return located(path, (v, k) => {
    const p = atKey ? k : v;
    return errors.parsing(reason, p?.line, p?.col);
  });
}

/** An ObjectParser's "[type] unknown field [key]" (x_content_parse_exception at the key). */
export function unknownOption(type: string, key: string, path: Path): LocatedQueryError {
  return located(path, (_v, k) => (k === undefined ? errors.xContentParse(1, 1, `[${type}] unknown field [${key}]`) : errors.xContentParse(k.line, k.col, `[${type}] unknown field [${key}]`)));
}

/** An ObjectParser's "[type] failed to parse field [key]" at the value, caused by `cause`. */
export function badOption(type: string, key: string, path: Path, cause: EsCause): LocatedQueryError {
  return located(path, (v) => errors.fieldParse(v?.line ?? 1, v?.col ?? 1, type, key, cause));
}

/** A refusal of something ES does that Portico does not (an option or a type it does not compute). */
export function notComputed(path: Path, what: string): LocatedQueryError {
  return located(path, () => errors.contextUnsupported(what));
}

