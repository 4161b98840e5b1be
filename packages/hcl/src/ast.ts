import type { HclPosition } from "./error.js";

/** The syntax tree, with a position on every node (used for error messages about the content). */
export type HclNode = HclLiteralNode | HclListNode | HclObjectNode;

export interface HclLiteralNode {
  readonly kind: "literal";
  /** Strings and heredocs are strings; numbers (ints, floats, hex, octal) are numbers. */
  readonly value: string | number | boolean;
  readonly position: HclPosition;
}

export interface HclListNode {
  readonly kind: "list";
  readonly items: readonly HclNode[];
  readonly position: HclPosition;
}

/** A `{ ... }` body: a block's body, an object value, or the whole file. */
export interface HclObjectNode {
  readonly kind: "object";
  readonly items: readonly HclItemNode[];
  readonly position: HclPosition;
}

/**
 * One `key = value` or `key "label" ... { body }`. `keys[0]` is the key; the remaining keys are the block's
 * labels (only blocks have labels).
 */
export interface HclItemNode {
  readonly keys: readonly HclKeyNode[];
  readonly value: HclNode;
}

export interface HclKeyNode {
  readonly name: string;
  readonly position: HclPosition;
}
