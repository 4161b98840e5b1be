// `cairn namespace create|read|update|delete|list`, as `consul namespace`.
import { stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import { field, isObject, type JsonValue } from "../json.js";
import { formatFlag, linkFlags, prettyNamespace, show } from "./acl-format.js";
import { keyValues, withRepeatedFlags } from "./catalog-repeated-flags.js";

const REPEATED = ["meta", "default-policy-id", "default-policy-name", "default-role-id", "default-role-name"];

function write(update: boolean): Command {
  return withRepeatedFlags(REPEATED, [], (repeated) =>
    defineCommand({
      synopsis: update ? "Update a namespace" : "Create a namespace",
      usage: `
Usage: cairn namespace ${update ? "update" : "create"} -name NAME [options]

      $ cairn namespace ${update ? "update" : "create"} -name team -description "the team" -meta owner=ops`,
      http: true,
      flags: {
        name: stringFlag("The namespace's name. This flag is required."),
        description: stringFlag("A description of the namespace"),
        meta: stringFlag("Metadata as key=value. May be specified multiple times."),
        "default-policy-id": stringFlag("ID of a default policy. May be specified multiple times."),
        "default-policy-name": stringFlag("Name of a default policy. May be specified multiple times."),
        "default-role-id": stringFlag("ID of a default role. May be specified multiple times."),
        "default-role-name": stringFlag("Name of a default role. May be specified multiple times."),
        format: formatFlag,
      },
      async run({ values: f, given }, { io, client }) {
        if (f.name === "") {
          io.err("Missing required '-name' flag");
          return 1;
        }
        const path = `/v1/namespace/${encodeURIComponent(f.name)}`;
        try {
          const current = update ? await client().json("GET", path) : {};
          const base = isObject(current) ? current : {};
          const policies = linkFlags(
            repeated["default-policy-id"] ?? [],
            repeated["default-policy-name"] ?? [],
          );
          const roles = linkFlags(repeated["default-role-id"] ?? [], repeated["default-role-name"] ?? []);
          const acls = field(base, "ACLs");
          const body: Record<string, JsonValue> = {
            Name: f.name,
            Description: given.has("description") ? f.description : (field(base, "Description") ?? ""),
            Meta:
              (repeated.meta ?? []).length > 0
                ? keyValues("meta", repeated.meta ?? [])
                : (field(base, "Meta") ?? null),
          };
          if (policies.length > 0 || roles.length > 0) {
            body.ACLs = { PolicyDefaults: policies, RoleDefaults: roles };
          } else if (acls !== undefined) body.ACLs = acls;
          const out = await client().json("PUT", update ? path : "/v1/namespace", {
            body: JSON.stringify(body),
          });
          return show(io, f.format, out, prettyNamespace);
        } catch (err) {
          io.err(`Failed to ${update ? "update" : "create"} namespace: ${errorText(err)}`);
          return 1;
        }
      },
    }),
  );
}

const read: Command = defineCommand({
  synopsis: "Read a namespace",
  usage: `
Usage: cairn namespace read [options] NAME`,
  http: true,
  flags: { format: formatFlag },
  async run({ values: f, positionals }, { io, client }) {
    const name = positionals[0] ?? "";
    if (name === "") {
      io.err("Must specify the namespace name to read");
      return 1;
    }
    try {
      const ns = await client().json("GET", `/v1/namespace/${encodeURIComponent(name)}`, { read: true });
      return show(io, f.format, ns, prettyNamespace);
    } catch (err) {
      io.err(`Error reading namespace "${name}": ${errorText(err)}`);
      return 1;
    }
  },
});

const del: Command = defineCommand({
  synopsis: "Delete a namespace",
  usage: `
Usage: cairn namespace delete [options] NAME`,
  http: true,
  flags: {},
  async run({ positionals }, { io, client }) {
    const name = positionals[0] ?? "";
    if (name === "") {
      io.err("Must specify the namespace name to delete");
      return 1;
    }
    try {
      (await client().request("DELETE", `/v1/namespace/${encodeURIComponent(name)}`)).discard();
      io.out(`Namespace "${name}" has been deleted`);
      return 0;
    } catch (err) {
      io.err(`Error deleting namespace "${name}": ${errorText(err)}`);
      return 1;
    }
  },
});

const list: Command = defineCommand({
  synopsis: "List namespaces",
  usage: `
Usage: cairn namespace list [options]`,
  http: true,
  flags: { format: formatFlag },
  async run({ values: f }, { io, client }) {
    try {
      return show(
        io,
        f.format,
        await client().json("GET", "/v1/namespaces", { read: true }),
        prettyNamespace,
      );
    } catch (err) {
      io.err(`Failed to list namespaces: ${errorText(err)}`);
      return 1;
    }
  },
});

export const namespaceCommand: Command = commandGroup(
  "Interact with namespaces",
  `
Usage: cairn namespace <subcommand> [options] [args]

  Create, read, update, delete and list namespaces.`,
  { create: write(false), read, update: write(true), delete: del, list },
);
