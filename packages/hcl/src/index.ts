import { Decoder, type HclObject, type HclPath, pathKey } from "./decode.js";
import type { HclPosition } from "./error.js";
import { parseJsonForm } from "./json.js";
import { parseHclSyntax } from "./parser.js";

export type { HclItemNode, HclKeyNode, HclListNode, HclLiteralNode, HclNode, HclObjectNode } from "./ast.js";
export type { HclObject, HclPath, HclValue } from "./decode.js";
export { HclParseError, type HclPosition } from "./error.js";
export { MAX_NESTING, parseHclSyntax } from "./parser.js";

/**
 * Parses HCL1 (Consul's configuration, config entries and ACL rules) into the plain value Consul's JSON form
 * would give. See Decoder for how blocks, labels and repeated keys map. As HCL1 does, text whose first
 * non-blank character is `{` is read as JSON. Throws HclParseError only.
 */
export function parseHcl(text: string): HclObject {
  return parseJsonForm(text) ?? new Decoder().file(parseHclSyntax(text));
}

export interface HclDocument {
  readonly value: HclObject;
  /** Where the value at `path` was defined (its key, or the list element), if it exists. */
  positionOf(path: HclPath): HclPosition | undefined;
}

/**
 * Like parseHcl, and also remembers where each value was defined, for error messages about the content
 * (positions are not tracked for the JSON form).
 */
export function parseHclWithPositions(text: string): HclDocument {
  const positions = new Map<string, HclPosition>();
  const value = parseJsonForm(text) ?? new Decoder(positions).file(parseHclSyntax(text));
  return { value, positionOf: (path) => positions.get(pathKey(path)) };
}
