/**
 * KV values as text and the editor's JSON/YAML/HCL views. Values are stored as bytes (base64 on the wire);
 * the views are renderings of the value parsed as JSON, never a second source of truth: edits are on text.
 */

export type ValueView = "text" | "json" | "yaml" | "hcl";

export type DecodedValue =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "binary"; readonly size: number };

/** Consul's base64 `Value` (null for a key with no value) as UTF-8 text, or binary when it is not UTF-8. */
export function decodeValue(base64: string | null | undefined): DecodedValue {
  if (!base64) return { kind: "text", text: "" };
  const raw = atob(base64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  try {
    return { kind: "text", text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { kind: "binary", size: bytes.length };
  }
}

export type Rendered =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: string };

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: `not valid JSON: ${(err as Error).message}` };
  }
}

/** The value shown in `view`; a JSON-based view of text that is not JSON says why. */
export function renderValue(text: string, view: ValueView): Rendered {
  if (view === "text") return { ok: true, text };
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  if (view === "json") return { ok: true, text: JSON.stringify(parsed.value, null, 2) };
  if (view === "yaml") return { ok: true, text: toYaml(parsed.value) };
  return { ok: true, text: toHcl(parsed.value) };
}

const YAML_PLAIN = /^[A-Za-z_/][A-Za-z0-9_./-]*$/;
const YAML_RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

function yamlScalar(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") {
    return YAML_PLAIN.test(value) && !YAML_RESERVED.test(value) ? value : JSON.stringify(value);
  }
  return String(value);
}

function yamlKey(key: string): string {
  return YAML_PLAIN.test(key) && !YAML_RESERVED.test(key) ? key : JSON.stringify(key);
}

function isCompound(value: unknown): value is object {
  if (Array.isArray(value)) return value.length > 0;
  return typeof value === "object" && value !== null && Object.keys(value).length > 0;
}

function yamlLines(value: unknown, indent: string): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item) => {
      if (!isCompound(item)) return [`${indent}- ${yamlInline(item)}`];
      const [first, ...rest] = yamlLines(item, `${indent}  `);
      return [`${indent}- ${(first ?? "").trimStart()}`, ...rest];
    });
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return [`${indent}{}`];
    return entries.flatMap(([k, v]) =>
      isCompound(v)
        ? [`${indent}${yamlKey(k)}:`, ...yamlLines(v, `${indent}  `)]
        : [`${indent}${yamlKey(k)}: ${yamlInline(v)}`],
    );
  }
  return [`${indent}${yamlScalar(value)}`];
}

function yamlInline(value: unknown): string {
  if (Array.isArray(value)) return "[]";
  if (typeof value === "object" && value !== null) return "{}";
  return yamlScalar(value);
}

/** A YAML rendering of a JSON value (block style; strings quoted whenever a plain scalar could misread). */
export function toYaml(value: unknown): string {
  return yamlLines(value, "").join("\n");
}

const HCL_IDENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function hclString(s: string): string {
  // `${` and `%{` start template sequences in HCL strings; doubled they are literal.
  return JSON.stringify(s)
    .replace(/\$\{/g, () => "$${")
    .replace(/%\{/g, "%%{");
}

function hclKey(key: string): string {
  return HCL_IDENT.test(key) ? key : hclString(key);
}

function hclExpr(value: unknown, indent: string): string {
  if (value === null) return "null";
  if (typeof value === "string") return hclString(value);
  if (typeof value !== "object") return String(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => `${inner}${hclExpr(v, inner)},`).join("\n")}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${inner}${hclKey(k)} = ${hclExpr(v, inner)}`).join("\n")}\n${indent}}`;
}

/** An HCL rendering of a JSON value: an object's members as top-level attributes, anything else as an expression. */
export function toHcl(value: unknown): string {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return Object.entries(value)
      .map(([k, v]) => `${hclKey(k)} = ${hclExpr(v, "")}`)
      .join("\n");
  }
  return hclExpr(value, "");
}
