import type { HclKeyNode, HclNode, HclObjectNode } from "./ast.js";
import { HclParseError, type HclPosition } from "./error.js";
import { quote } from "./source.js";

/** A plain JSON-compatible value, as Consul's JSON configuration would spell the same content. */
export type HclValue = string | number | boolean | HclValue[] | HclObject;
export interface HclObject {
  [key: string]: HclValue;
}

/** A path into a decoded value: object keys and array indexes, e.g. `["service", 1, "port"]`. */
export type HclPath = readonly (string | number)[];

/** One definition of a key within a body, with the labels still to be applied. */
interface Entry {
  readonly name: string;
  readonly position: HclPosition;
  readonly labels: readonly HclKeyNode[];
  readonly node: HclNode;
}

type Shape = "block" | "list" | "value";

function shapeOf(node: HclNode): Shape {
  return node.kind === "object" ? "block" : node.kind === "list" ? "list" : "value";
}

const SHAPE_NAMES: Readonly<Record<Shape, string>> = {
  block: "a block or object",
  list: "a list",
  value: "a single value",
};

/**
 * Turns a syntax tree into the JSON shape, following HCL1's JSON-equivalent decoding:
 * - `key = value` → `{key: value}`; a repeated scalar key keeps its last value; repeated lists concatenate.
 * - `name { ... }` (or `name = { ... }`) → `{name: {...}}`; the same block repeated → `{name: [{...}, {...}]}`.
 * - labelled blocks nest by label and merge: `key_prefix "a/" { policy = "read" }` plus
 *   `key_prefix "b/" { ... }` → `{key_prefix: {"a/": {policy: "read"}, "b/": {...}}}`; the same labels
 *   repeated become an array at the innermost level, like an unlabelled block repeated.
 * - a key given as a block in one place and a value, list or labelled block in another is an error.
 */
export class Decoder {
  constructor(private readonly positions?: Map<string, HclPosition>) {}

  file(node: HclObjectNode): HclObject {
    const path = this.positions ? [] : undefined;
    this.record(path, node.position);
    return this.object(node, path);
  }

  /** `path` is tracked only when positions are recorded; otherwise it stays undefined to spare allocations. */
  private value(node: HclNode, path: HclPath | undefined): HclValue {
    switch (node.kind) {
      case "literal":
        return node.value;
      case "object":
        return this.object(node, path);
      case "list":
        return node.items.map((item, index) => {
          const itemPath = extend(path, index);
          this.record(itemPath, item.position);
          return this.value(item, itemPath);
        });
    }
  }

  private object(node: HclObjectNode, path: HclPath | undefined): HclObject {
    const entries = node.items.map(
      (item): Entry => ({
        name: item.keys[0]!.name,
        position: item.keys[0]!.position,
        labels: item.keys.slice(1),
        node: item.value,
      }),
    );
    return this.entries(entries, path);
  }

  private entries(entries: readonly Entry[], path: HclPath | undefined): HclObject {
    const groups = new Map<string, Entry[]>();
    for (const entry of entries) {
      const group = groups.get(entry.name);
      if (group) group.push(entry);
      else groups.set(entry.name, [entry]);
    }
    const result: HclObject = {};
    for (const [name, group] of groups) {
      const value = this.group(group, extend(path, name));
      // Plain assignment to "__proto__" would replace the prototype instead of adding a key.
      if (name === "__proto__") {
        Object.defineProperty(result, name, { value, enumerable: true, writable: true, configurable: true });
      } else {
        result[name] = value;
      }
    }
    return result;
  }

  private group(entries: readonly Entry[], path: HclPath | undefined): HclValue {
    const first = entries[0]!;
    const labelled = first.labels.length > 0;
    const odd = entries.find((entry) => entry.labels.length > 0 !== labelled);
    if (odd) {
      throw new HclParseError(
        odd.position,
        `${quote(first.name)} is used both as a labelled block and without labels (first at ${at(first.position)})`,
      );
    }
    this.record(path, first.position);
    if (labelled) {
      return this.entries(
        entries.map((entry) => ({
          name: entry.labels[0]!.name,
          position: entry.labels[0]!.position,
          labels: entry.labels.slice(1),
          node: entry.node,
        })),
        path,
      );
    }
    const shape = shapeOf(first.node);
    const clash = entries.find((entry) => shapeOf(entry.node) !== shape);
    if (clash) {
      throw new HclParseError(
        clash.position,
        `${quote(first.name)} is ${SHAPE_NAMES[shape]} at ${at(first.position)} and cannot also be ${SHAPE_NAMES[shapeOf(clash.node)]}`,
      );
    }
    if (entries.length === 1) return this.value(first.node, path);
    switch (shape) {
      case "value":
        return this.value(entries[entries.length - 1]!.node, path);
      case "block":
        return entries.map((entry, index) => {
          const itemPath = extend(path, index);
          this.record(itemPath, entry.position);
          return this.value(entry.node, itemPath);
        });
      case "list": {
        const items = entries.flatMap((entry) => (entry.node.kind === "list" ? entry.node.items : []));
        return this.value({ kind: "list", items, position: first.node.position }, path);
      }
    }
  }

  private record(path: HclPath | undefined, position: HclPosition): void {
    if (path) this.positions?.set(pathKey(path), position);
  }
}

function extend(path: HclPath | undefined, step: string | number): HclPath | undefined {
  return path ? [...path, step] : undefined;
}

export function pathKey(path: HclPath): string {
  return JSON.stringify(path);
}

function at(position: HclPosition): string {
  return `line ${position.line}, column ${position.column}`;
}
