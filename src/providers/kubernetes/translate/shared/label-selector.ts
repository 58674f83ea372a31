/**
 * Kubernetes label selectors in their string form (`app=web,tier!=db,env in (a,b),!legacy`).
 * The API server filters watches with them; the translation applies the same selector again so a
 * cache filled any other way (tests, a resync) gives the same records.
 */

export type Requirement =
  | { readonly op: 'eq' | 'neq'; readonly key: string; readonly value: string }
  | { readonly op: 'in' | 'notin'; readonly key: string; readonly values: readonly string[] }
  | { readonly op: 'exists' | 'notexists'; readonly key: string };

export type LabelSelector = readonly Requirement[];

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z.]*[a-z0-9A-Z])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?)$/;

export class LabelSelectorError extends Error {
  override readonly name = 'LabelSelectorError';
}

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((t) => t.trim()).filter((t) => t.length > 0);
}

function checkKey(key: string, selector: string): string {
  if (!KEY.test(key)) throw new LabelSelectorError(`label selector "${selector}": "${key}" is not a valid label key`);
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!VALUE.test(value) || value.length > 63) throw new LabelSelectorError(`label selector "${selector}": "${value}" is not a valid label value`);
  return value;
}

/** Parses a selector; '' is the empty selector, which matches everything. */
export function parseLabelSelector(selector: string): LabelSelector {
  const out: Requirement[] = [];
  for (const term of splitTerms(selector)) {
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (set) {
      const values = (set[3] ?? '').split(',').map((v) => checkValue(v.trim(), selector));
      out.push({ op: set[2] as 'in' | 'notin', key: checkKey(set[1] as string, selector), values });
      continue;
    }
    const cmp = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (cmp) {
      out.push({ op: cmp[2] === '!=' ? 'neq' : 'eq', key: checkKey(cmp[1] as string, selector), value: checkValue(cmp[3] ?? '', selector) });
      continue;
    }
    if (term.startsWith('!')) {
      out.push({ op: 'notexists', key: checkKey(term.slice(1).trim(), selector) });
      continue;
    }
    out.push({ op: 'exists', key: checkKey(term, selector) });
  }
  return out;
}

export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const l = labels ?? {};
  for (const r of selector) {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = l[r.key];
    switch (r.op) {
      case 'eq': if (v !== r.value) return false; break;
      case 'neq': if (v === r.value) return false; break;
      case 'in': if (v === undefined || !r.values.includes(v)) return false; break;
      case 'notin': if (v !== undefined && r.values.includes(v)) return false; break;
      case 'exists': if (!has) return false; break;
      case 'notexists': if (has) return false; break;
    }
  }
  return true;
}
