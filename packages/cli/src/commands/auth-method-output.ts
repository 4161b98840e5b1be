// Output of `cairn acl auth-method` and `cairn acl binding-rule`: consul's pretty text or `-format json`.
import { readFile } from "node:fs/promises";
import { stringFlag } from "../args.js";
import type { Io } from "../command.js";
import { asString, field, isObject, type JsonValue, stringifyGo } from "../json.js";

export const outputFormatFlag = stringFlag("Output format {pretty|json}", "pretty");

type Obj = { [key: string]: JsonValue };

const text = (o: Obj, name: string) => asString(field(o, name) ?? "");

export function prettyAuthMethod(m: Obj): string {
  const lines = [`Name:          ${text(m, "Name")}`, `Type:          ${text(m, "Type")}`];
  if (text(m, "Namespace") !== "") lines.push(`Namespace:     ${text(m, "Namespace")}`);
  if (text(m, "DisplayName") !== "") lines.push(`DisplayName:   ${text(m, "DisplayName")}`);
  lines.push(`Description:   ${text(m, "Description")}`);
  if (text(m, "MaxTokenTTL") !== "") lines.push(`MaxTokenTTL:   ${text(m, "MaxTokenTTL")}`);
  if (text(m, "TokenLocality") !== "") lines.push(`TokenLocality: ${text(m, "TokenLocality")}`);
  const rules = field(m, "NamespaceRules");
  if (Array.isArray(rules) && rules.length > 0) {
    lines.push("NamespaceRules:");
    for (const r of rules.filter(isObject)) {
      lines.push(`   Selector:      ${text(r, "Selector")}`, `   BindNamespace: ${text(r, "BindNamespace")}`);
    }
  }
  const config = field(m, "Config");
  if (config !== undefined) lines.push("Config:", stringifyGo(config, "  "));
  return lines.join("\n");
}

export function prettyBindingRule(r: Obj): string {
  const lines = [`ID:           ${text(r, "ID")}`];
  if (text(r, "Namespace") !== "") lines.push(`Namespace:    ${text(r, "Namespace")}`);
  lines.push(
    `AuthMethod:   ${text(r, "AuthMethod")}`,
    `Description:  ${text(r, "Description")}`,
    `BindType:     ${text(r, "BindType")}`,
    `BindName:     ${text(r, "BindName")}`,
    `Selector:     ${text(r, "Selector")}`,
  );
  return lines.join("\n");
}

/** Prints one record (or a list of them) in the chosen format; 1 on an unknown format. */
export function print(io: Io, format: string, value: JsonValue, pretty: (o: Obj) => string): number {
  if (format === "json") {
    io.out(stringifyGo(value, "    "));
    return 0;
  }
  if (format !== "pretty") {
    io.err(`Invalid format: ${format}`);
    return 1;
  }
  if (Array.isArray(value)) io.out(value.filter(isObject).map(pretty).join("\n\n"));
  else if (isObject(value)) io.out(pretty(value));
  return 0;
}

/** consul's `@file` convention: a flag value starting with `@` is read from that file. */
export async function flagValue(raw: string): Promise<string> {
  return raw.startsWith("@") ? readFile(raw.slice(1), "utf8") : raw;
}
