// Decision W13: the certified state tree of the HTTP interface (interface specification, "Certification"
// and "The system state tree"). A read builds only the parts its paths ask for, as a nested map of
// labels, then the hash tree: labeled children sorted by label under balanced forks, so an agent's
// lookup tells a missing label (Absent) from one it cannot see.
import { createHash } from 'node:crypto';
import { domain } from './hash.ts';

export type HashTree = [0] | [1, HashTree, HashTree] | [2, Uint8Array, HashTree] | [3, Uint8Array];

/** A part of the state: a value, or labels (as bytes, keyed by their hex) leading to more. */
export type StateNode = Uint8Array | Map<string, { label: Uint8Array; node: StateNode }>;

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

export function rootHash(t: HashTree): Uint8Array {
  switch (t[0]) {
    case 0:
      return sha256(domain('ic-hashtree-empty'));
    case 1:
      return sha256(domain('ic-hashtree-fork'), rootHash(t[1]), rootHash(t[2]));
    case 2:
      return sha256(domain('ic-hashtree-labeled'), t[1], rootHash(t[2]));
    default:
      return sha256(domain('ic-hashtree-leaf'), t[1]);
  }
}

const bytes = (label: string | Uint8Array) => (typeof label === 'string' ? new Uint8Array(Buffer.from(label)) : label);

/** Puts `value` at `path` in `root`, making the labels on the way. */
export function put(root: StateNode, path: Array<string | Uint8Array>, value: StateNode): void {
  if (!(root instanceof Map)) throw new Error('a value has no labels below it');
  const [first, ...rest] = path;
  const label = bytes(first!);
  const key = Buffer.from(label).toString('hex');
  if (rest.length === 0) {
    root.set(key, { label, node: value });
    return;
  }
  let child = root.get(key);
  if (!child || !(child.node instanceof Map)) root.set(key, (child = { label, node: new Map() }));
  put(child.node, rest, value);
}

export const labels = (): StateNode => new Map();

export function hashTree(node: StateNode): HashTree {
  if (!(node instanceof Map)) return [3, node];
  const children = [...node.values()]
    .sort((a, b) => Buffer.compare(a.label, b.label))
    .map((c): HashTree => [2, c.label, hashTree(c.node)]);
  const fork = (from: number, to: number): HashTree => {
    if (to - from === 0) return [0];
    if (to - from === 1) return children[from]!;
    const mid = from + Math.ceil((to - from) / 2);
    return [1, fork(from, mid), fork(mid, to)];
  };
  return fork(0, children.length);
}
