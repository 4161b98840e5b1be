// Output of the `cairn acl` and `cairn namespace` commands: consul's "pretty" text, or `-format json`.
import { readFile } from "node:fs/promises";
import { stringFlag } from "../args.js";
import type { Io } from "../command.js";
import { asString, field, isObject, type JsonValue, stringifyGo } from "../json.js";

export const formatFlag = stringFlag("Output format {pretty|json}", "pretty");

type Obj = { [key: string]: JsonValue };

const str = (o: Obj, name: string) => asString(field(o, name) ?? "");

function links(o: Obj, name: string): string[] {
  const list = field(o, name);
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((l) => `   ${str(l, "ID")} - ${str(l, "Name")}`);
}

function identities(o: Obj): string[] {
  const list = field(o, "ServiceIdentities");
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((si) => {
    const dcs = field(si, "Datacenters");
    const where = Array.isArray(dcs) && dcs.length > 0 ? dcs.map(String).join(", ") : "all";
    return `   ${str(si, "ServiceName")} (Datacenters: ${where})`;
  });
}

function section(title: string, lines: string[]): string[] {
  return lines.length === 0 ? [] : [`${title}:`, ...lines];
}

export function prettyToken(t: Obj): string {
  const lines = [`AccessorID:       ${str(t, "AccessorID")}`, `SecretID:         ${str(t, "SecretID")}`];
  if (str(t, "Namespace") !== "") lines.push(`Namespace:        ${str(t, "Namespace")}`);
  lines.push(
    `Description:      ${str(t, "Description")}`,
    `Local:            ${String(field(t, "Local") ?? false)}`,
    `Create Time:      ${str(t, "CreateTime")}`,
  );
  if (str(t, "ExpirationTime") !== "") lines.push(`Expiration Time:  ${str(t, "ExpirationTime")}`);
  lines.push(
    ...section("Policies", links(t, "Policies")),
    ...section("Roles", links(t, "Roles")),
    ...section("Service Identities", identities(t)),
  );
  return lines.join("\n");
}

export function prettyPolicy(p: Obj): string {
  const dcs = field(p, "Datacenters");
  return [
    `ID:           ${str(p, "ID")}`,
    `Name:         ${str(p, "Name")}`,
    ...(str(p, "Namespace") !== "" ? [`Namespace:    ${str(p, "Namespace")}`] : []),
    `Description:  ${str(p, "Description")}`,
    `Datacenters:  ${Array.isArray(dcs) ? dcs.map(String).join(", ") : ""}`,
    ...(field(p, "Rules") === undefined ? [] : ["Rules:", str(p, "Rules")]),
  ].join("\n");
}

export function prettyRole(r: Obj): string {
  return [
    `ID:           ${str(r, "ID")}`,
    `Name:         ${str(r, "Name")}`,
    ...(str(r, "Namespace") !== "" ? [`Namespace:    ${str(r, "Namespace")}`] : []),
    `Description:  ${str(r, "Description")}`,
    ...section("Policies", links(r, "Policies")),
    ...section("Service Identities", identities(r)),
  ].join("\n");
}

export function prettyNamespace(n: Obj): string {
  const lines = [`Name: ${str(n, "Name")}`, `Description: ${str(n, "Description")}`];
  const acls = field(n, "ACLs");
  if (isObject(acls)) {
    lines.push(...section("Default Policies", links(acls, "PolicyDefaults")));
    lines.push(...section("Default Roles", links(acls, "RoleDefaults")));
  }
  const meta = field(n, "Meta");
  if (isObject(meta)) lines.push("Meta:", ...Object.entries(meta).map(([k, v]) => `   ${k}: ${asString(v)}`));
  if (str(n, "DeletedAt") !== "") lines.push(`Deleted At: ${str(n, "DeletedAt")}`);
  return lines.join("\n");
}

/** Prints one record, or a list with a blank line between records. */
export function show(io: Io, format: string, value: JsonValue, pretty: (o: Obj) => string): number {
  if (format === "json") {
    io.out(stringifyGo(value, "    "));
    return 0;
  }
  if (format !== "pretty") {
    io.err(`Invalid format: ${format}`);
    return 1;
  }
  const items = Array.isArray(value) ? value : [value];
  io.out(items.filter(isObject).map(pretty).join("\n\n"));
  return 0;
}

/** consul's `-rules`: `@file` reads a file, `-` reads stdin, anything else is the rules. */
export async function readRules(io: Io, value: string): Promise<string> {
  if (value.startsWith("@")) return readFile(value.slice(1), "utf8");
  if (value === "-") return (await io.readStdin()).toString("utf8");
  return value;
}

/** `-service-identity name[:dc1,dc2]`. */
export function serviceIdentity(spec: string): { ServiceName: string; Datacenters?: string[] } {
  const colon = spec.indexOf(":");
  if (colon < 0) return { ServiceName: spec };
  return {
    ServiceName: spec.slice(0, colon),
    Datacenters: spec
      .slice(colon + 1)
      .split(",")
      .filter(Boolean),
  };
}

/** Policy or role links from repeated `-x-id` and `-x-name` flags. */
export function linkFlags(
  ids: readonly string[],
  names: readonly string[],
): Array<{ ID?: string; Name?: string }> {
  return [...ids.map((ID) => ({ ID })), ...names.map((Name) => ({ Name }))];
}
