/**
 * Which nodes a run may use, as the user says it: NODE_SELECTOR (a label selector), NODES (names)
 * and TOLERATIONS (taints the suite's pods tolerate beyond their own). Parsed here, matched
 * against the Node objects in node-usability.ts.
 */

/** A toleration as the pod spec takes it (`spec.tolerations[]`). */
export interface Toleration {
  key?: string;
  operator?: 'Equal' | 'Exists';
  value?: string;
  effect?: TaintEffect;
}

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export const TAINT_EFFECTS: readonly TaintEffect[] = [
  'NoSchedule',
  'PreferNoSchedule',
  'NoExecute',
];

/** One requirement of a label selector. */
export type SelectorTerm =
  { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | 'absent' };

/** The user's choice of nodes; empty: every node. */
export interface NodeFilter {
  /** NODE_SELECTOR, as written, and parsed. */
  selector?: { text: string; terms: SelectorTerm[] };
  /** NODES: node names. */
  names?: string[];
}

/** A value the parsers cannot use; the caller names the setting. */
export class NodeFilterSyntaxError extends Error {
  override readonly name = 'NodeFilterSyntaxError';
}

// Label keys and values as Kubernetes validates them (an optional DNS-subdomain prefix and a name).
// https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set
const NAME = '[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
const KEY = new RegExp(`^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?${NAME}$`);
const VALUE = new RegExp(`^(${NAME})?$`);
const NODE_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function key(text: string, what: string): string {
  if (!KEY.test(text)) throw new NodeFilterSyntaxError(`${what}: "${text}" is not a label key`);
  return text;
}

function value(text: string, what: string): string {
  if (!VALUE.test(text)) throw new NodeFilterSyntaxError(`${what}: "${text}" is not a label value`);
  return text;
}

/** Splits at commas outside parentheses (`a in (x,y),b` is two terms). */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    if (text[i] === ')') depth--;
    if (text[i] === ',' && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms.map((t) => t.trim());
}

/**
 * A label selector as kubectl's `-l` takes it: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`,
 * `k notin (a,b)`, comma-separated (all must hold).
 */
export function parseSelector(text: string): SelectorTerm[] {
  return splitTerms(text).map((term) => {
    if (term === '') throw new NodeFilterSyntaxError(`an empty requirement in "${text}"`);
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (set !== null) {
      const values = set[3]!.split(',').map((v) => value(v.trim(), term));
      return { key: key(set[1]!, term), op: set[2] as 'in' | 'notin', values };
    }
    const equality = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (equality !== null) {
      const op = equality[2] === '!=' ? 'notin' : 'in';
      return { key: key(equality[1]!, term), op, values: [value(equality[3]!, term)] };
    }
    if (term.startsWith('!')) return { key: key(term.slice(1).trim(), term), op: 'absent' };
    return { key: key(term, term), op: 'exists' };
  });
}

/** Whether `labels` satisfy every term. */
export function selects(terms: readonly SelectorTerm[], labels: Readonly<Record<string, string>>) {
  return terms.every((term) => {
    const has = Object.hasOwn(labels, term.key);
    switch (term.op) {
      case 'exists':
        return has;
      case 'absent':
        return !has;
      case 'in':
        return has && term.values.includes(labels[term.key]!);
      case 'notin':
        return !has || !term.values.includes(labels[term.key]!);
    }
  });
}

/** NODES: node names, comma-separated. */
export function parseNodeNames(text: string): string[] {
  const names = text.split(',').map((n) => n.trim());
  const bad = names.find((n) => !NODE_NAME.test(n));
  if (bad !== undefined) throw new NodeFilterSyntaxError(`"${bad}" is not a node name`);
  return [...new Set(names)];
}

/**
 * TOLERATIONS as `kubectl taint` writes taints: `key=value:Effect` (Equal), `key:Effect`
 * (Exists), `key=value` or `key` (any effect), comma-separated.
 */
export function parseTolerations(text: string): Toleration[] {
  return text.split(',').map((item) => {
    const entry = item.trim();
    const match = /^([^=:]+)(?:=([^:]*))?(?::(.+))?$/.exec(entry);
    if (match === null) throw new NodeFilterSyntaxError(`"${entry}" is not key[=value][:Effect]`);
    const [, k, v, effect] = match;
    if (effect !== undefined && !TAINT_EFFECTS.includes(effect as TaintEffect)) {
      throw new NodeFilterSyntaxError(
        `"${entry}": the effect must be one of ${TAINT_EFFECTS.join(', ')}, got "${effect}"`,
      );
    }
    return {
      key: key(k!.trim(), entry),
      ...(v === undefined
        ? { operator: 'Exists' as const }
        : { operator: 'Equal' as const, value: value(v, entry) }),
      ...(effect === undefined ? {} : { effect: effect as TaintEffect }),
    };
  });
}

/** A taint as `kubectl taint` writes it: `key=value:Effect`. */
export function taintText(taint: { key: string; value?: string; effect: string }): string {
  return `${taint.key}${taint.value === undefined || taint.value === '' ? '' : `=${taint.value}`}:${taint.effect}`;
}

/** Whether `toleration` tolerates `taint`, as the scheduler decides it. */
export function tolerates(
  toleration: Toleration,
  taint: { key: string; value?: string; effect: string },
): boolean {
  if (toleration.effect !== undefined && toleration.effect !== taint.effect) return false;
  // An empty key with Exists tolerates everything.
  if (toleration.key === undefined || toleration.key === '')
    return toleration.operator === 'Exists';
  if (toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}
