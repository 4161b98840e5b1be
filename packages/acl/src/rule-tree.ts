import type { Level } from "./access.js";

/** The rules sharing one label: an exact rule and a prefix rule may both exist (`key "a"` and `key_prefix "a"`). */
export interface RuleLeaf {
  exact?: Level;
  prefix?: Level;
}

class RadixNode {
  leaf: RuleLeaf | undefined;
  readonly children = new Map<number, RadixNode>();
  constructor(public label: string) {}
}

/**
 * The rules of one resource type, compiled once per policy set: a radix tree for Consul's lookup (an exact
 * rule for the whole name wins; otherwise the longest prefix rule), walked one edge at a time without
 * allocating, and the labels in sorted order for "every rule under this prefix" (KeyWritePrefix).
 */
export class RuleTree {
  private readonly root = new RadixNode("");
  private sorted: { name: string; leaf: RuleLeaf }[] | undefined;

  /** The leaf for `name`, created empty if absent. Only while compiling. */
  leafFor(name: string): RuleLeaf {
    this.sorted = undefined;
    let node = this.root;
    let pos = 0;
    while (pos < name.length) {
      const first = name.charCodeAt(pos);
      const child = node.children.get(first);
      if (child === undefined) {
        const created = new RadixNode(name.slice(pos));
        node.children.set(first, created);
        node = created;
        break;
      }
      const common = commonLength(child.label, name, pos);
      if (common < child.label.length) {
        const middle = new RadixNode(child.label.slice(0, common));
        child.label = child.label.slice(common);
        middle.children.set(child.label.charCodeAt(0), child);
        node.children.set(first, middle);
        node = middle;
      } else {
        node = child;
      }
      pos += common;
    }
    node.leaf ??= {};
    return node.leaf;
  }

  /** The leaf whose label is exactly `name`, if any. */
  leafAt(name: string): RuleLeaf | undefined {
    let node = this.root;
    let pos = 0;
    while (pos < name.length) {
      const child = node.children.get(name.charCodeAt(pos));
      if (child === undefined || !name.startsWith(child.label, pos)) return undefined;
      pos += child.label.length;
      node = child;
    }
    return node.leaf;
  }

  /** Consul's getPolicy: exact match on the whole name first, else the longest prefix rule. */
  lookup(name: string): Level | undefined {
    let node = this.root;
    let pos = 0;
    let found: Level | undefined;
    for (;;) {
      const leaf = node.leaf;
      if (leaf !== undefined) {
        if (pos === name.length && leaf.exact !== undefined) return leaf.exact;
        if (leaf.prefix !== undefined) found = leaf.prefix;
      }
      if (pos === name.length) return found;
      const child = node.children.get(name.charCodeAt(pos));
      if (child === undefined || !name.startsWith(child.label, pos)) return found;
      pos += child.label.length;
      node = child;
    }
  }

  /** The longest prefix rule whose label starts `name` (exact rules ignored). */
  longestPrefixRule(name: string): Level | undefined {
    let node = this.root;
    let pos = 0;
    let found: Level | undefined;
    for (;;) {
      if (node.leaf?.prefix !== undefined) found = node.leaf.prefix;
      if (pos === name.length) return found;
      const child = node.children.get(name.charCodeAt(pos));
      if (child === undefined || !name.startsWith(child.label, pos)) return found;
      pos += child.label.length;
      node = child;
    }
  }

  /** Every rule whose label starts with `prefix` (the label `prefix` itself included). */
  under(prefix: string): { name: string; leaf: RuleLeaf }[] {
    if (this.sorted === undefined) this.sorted = this.collect();
    const sorted = this.sorted;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]!.name < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: { name: string; leaf: RuleLeaf }[] = [];
    for (let i = lo; i < sorted.length && sorted[i]!.name.startsWith(prefix); i++) out.push(sorted[i]!);
    return out;
  }

  private collect(): { name: string; leaf: RuleLeaf }[] {
    const out: { name: string; leaf: RuleLeaf }[] = [];
    const visit = (node: RadixNode, path: string) => {
      if (node.leaf) out.push({ name: path, leaf: node.leaf });
      for (const child of node.children.values()) visit(child, path + child.label);
    };
    visit(this.root, "");
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

function commonLength(label: string, name: string, pos: number): number {
  const max = Math.min(label.length, name.length - pos);
  let i = 0;
  while (i < max && label.charCodeAt(i) === name.charCodeAt(pos + i)) i++;
  return i;
}
