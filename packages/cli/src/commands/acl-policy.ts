// `cairn acl policy ...` and `cairn acl role ...`, as `consul acl policy` and `consul acl role`.
import { stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import type { HttpClient } from "../http.js";
import { field, isObject, type JsonValue } from "../json.js";
import {
  formatFlag,
  linkFlags,
  prettyPolicy,
  prettyRole,
  readRules,
  serviceIdentity,
  show,
} from "./acl-format.js";
import { withRepeatedFlags } from "./catalog-repeated-flags.js";

interface Kind {
  /** policy | role */
  readonly noun: "policy" | "role";
  readonly plural: string;
  readonly pretty: (o: { [key: string]: JsonValue }) => string;
}

const POLICY: Kind = { noun: "policy", plural: "policies", pretty: prettyPolicy };
const ROLE: Kind = { noun: "role", plural: "roles", pretty: prettyRole };

/** The record named by -id or -name. */
async function lookup(client: HttpClient, kind: Kind, id: string, name: string): Promise<JsonValue> {
  const path =
    id !== ""
      ? `/v1/acl/${kind.noun}/${encodeURIComponent(id)}`
      : `/v1/acl/${kind.noun}/name/${encodeURIComponent(name)}`;
  return client.json("GET", path, { read: true });
}

function readCommand(kind: Kind): Command {
  return defineCommand({
    synopsis: `Read an ACL ${kind.noun}`,
    usage: `
Usage: cairn acl ${kind.noun} read [options] -id ID | -name NAME`,
    http: true,
    flags: {
      id: stringFlag(`The ID of the ${kind.noun} to read.`),
      name: stringFlag(`The name of the ${kind.noun} to read.`),
      format: formatFlag,
    },
    async run({ values: f }, { io, client }) {
      if (f.id === "" && f.name === "") {
        io.err(`Must specify either the -id or -name parameters`);
        return 1;
      }
      try {
        return show(io, f.format, await lookup(client(), kind, f.id, f.name), kind.pretty);
      } catch (err) {
        io.err(`Error reading ${kind.noun}: ${errorText(err)}`);
        return 1;
      }
    },
  });
}

function deleteCommand(kind: Kind): Command {
  return defineCommand({
    synopsis: `Delete an ACL ${kind.noun}`,
    usage: `
Usage: cairn acl ${kind.noun} delete [options] -id ID | -name NAME`,
    http: true,
    flags: {
      id: stringFlag(`The ID of the ${kind.noun} to delete.`),
      name: stringFlag(`The name of the ${kind.noun} to delete.`),
    },
    async run({ values: f }, { io, client }) {
      if (f.id === "" && f.name === "") {
        io.err(`Must specify either the -id or -name parameters`);
        return 1;
      }
      try {
        const found = await lookup(client(), kind, f.id, f.name);
        const id = isObject(found) ? String(field(found, "ID") ?? "") : "";
        await client().json("DELETE", `/v1/acl/${kind.noun}/${encodeURIComponent(id)}`);
        const label = kind.noun[0]!.toUpperCase() + kind.noun.slice(1);
        io.out(`${label} "${id}" deleted successfully`);
        return 0;
      } catch (err) {
        io.err(`Error deleting ${kind.noun}: ${errorText(err)}`);
        return 1;
      }
    },
  });
}

function listCommand(kind: Kind): Command {
  return defineCommand({
    synopsis: `List ACL ${kind.plural}`,
    usage: `
Usage: cairn acl ${kind.noun} list [options]`,
    http: true,
    flags: { format: formatFlag },
    async run({ values: f }, { io, client }) {
      try {
        return show(
          io,
          f.format,
          await client().json("GET", `/v1/acl/${kind.plural}`, { read: true }),
          kind.pretty,
        );
      } catch (err) {
        io.err(`Failed to retrieve the ${kind.noun} list: ${errorText(err)}`);
        return 1;
      }
    },
  });
}

/** create (no -id) or update (-id or -name of an existing policy; -name on update is the new name). */
function policyWrite(update: boolean): Command {
  return withRepeatedFlags(["valid-datacenter"], [], (repeated) =>
    defineCommand({
      synopsis: update ? "Update an ACL policy" : "Create an ACL policy",
      usage: update
        ? `
Usage: cairn acl policy update [options] -id ID

  Updates a policy; options not given keep their values.`
        : `
Usage: cairn acl policy create -name NAME [options]

      $ cairn acl policy create -name "kv-read" -rules @rules.hcl`,
      http: true,
      flags: {
        ...(update ? { id: stringFlag("The ID of the policy to update.") } : {}),
        name: stringFlag(
          update ? "The new name of the policy." : "The new policy's name. This flag is required.",
        ),
        description: stringFlag("A description of the policy"),
        rules: stringFlag(
          "The policy rules. May be prefixed with '@' to indicate that the value is a file path to load the rules from. '-' may also be given to indicate that the rules are available on stdin",
        ),
        "valid-datacenter": stringFlag(
          "Datacenter that the policy should be valid within. May be specified multiple times.",
        ),
        format: formatFlag,
      },
      async run({ values: f, given }, { io, client }) {
        const id = (f as { id?: string }).id ?? "";
        if (update ? id === "" : f.name === "") {
          io.err(
            update
              ? "Cannot update a policy without specifying the -id parameter"
              : "Missing required '-name' flag",
          );
          return 1;
        }
        try {
          const current = update ? await lookup(client(), POLICY, id, "") : {};
          const base = isObject(current) ? current : {};
          const dcs = repeated["valid-datacenter"] ?? [];
          const body: Record<string, JsonValue> = {
            Name: given.has("name") ? f.name : (field(base, "Name") ?? ""),
            Description: given.has("description") ? f.description : (field(base, "Description") ?? ""),
            Rules: given.has("rules") ? await readRules(io, f.rules) : (field(base, "Rules") ?? ""),
            Datacenters: dcs.length > 0 ? [...dcs] : (field(base, "Datacenters") ?? null),
          };
          const path = update ? `/v1/acl/policy/${encodeURIComponent(id)}` : "/v1/acl/policy";
          const out = await client().json("PUT", path, { body: JSON.stringify(body) });
          if (update) io.out("Policy updated successfully");
          return show(io, f.format, out, prettyPolicy);
        } catch (err) {
          io.err(`Failed to ${update ? "update" : "create new"} policy: ${errorText(err)}`);
          return 1;
        }
      },
    }),
  );
}

function roleWrite(update: boolean): Command {
  return withRepeatedFlags(["policy-id", "policy-name", "service-identity"], [], (repeated) =>
    defineCommand({
      synopsis: update ? "Update an ACL role" : "Create an ACL role",
      usage: `
Usage: cairn acl role ${update ? "update -id ID" : "create -name NAME"} [options]`,
      http: true,
      flags: {
        ...(update ? { id: stringFlag("The ID of the role to update.") } : {}),
        name: stringFlag(
          update ? "The new name of the role." : "The new role's name. This flag is required.",
        ),
        description: stringFlag("A description of the role"),
        "policy-id": stringFlag("ID of a policy to use for this role. May be specified multiple times."),
        "policy-name": stringFlag("Name of a policy to use for this role. May be specified multiple times."),
        "service-identity": stringFlag(
          "Name of a service identity to use for this role. May be specified multiple times.",
        ),
        format: formatFlag,
      },
      async run({ values: f, given }, { io, client }) {
        const id = (f as { id?: string }).id ?? "";
        if (update ? id === "" : f.name === "") {
          io.err(
            update
              ? "Cannot update a role without specifying the -id parameter"
              : "Missing required '-name' flag",
          );
          return 1;
        }
        try {
          const current = update ? await lookup(client(), ROLE, id, "") : {};
          const base = isObject(current) ? current : {};
          const policies = linkFlags(repeated["policy-id"] ?? [], repeated["policy-name"] ?? []);
          const identities = (repeated["service-identity"] ?? []).map(serviceIdentity);
          const body: Record<string, JsonValue> = {
            Name: given.has("name") ? f.name : (field(base, "Name") ?? ""),
            Description: given.has("description") ? f.description : (field(base, "Description") ?? ""),
            Policies: policies.length > 0 ? policies : (field(base, "Policies") ?? null),
            ServiceIdentities:
              identities.length > 0 ? identities : (field(base, "ServiceIdentities") ?? null),
          };
          const path = update ? `/v1/acl/role/${encodeURIComponent(id)}` : "/v1/acl/role";
          const out = await client().json("PUT", path, { body: JSON.stringify(body) });
          if (update) io.out("Role updated successfully");
          return show(io, f.format, out, prettyRole);
        } catch (err) {
          io.err(`Failed to ${update ? "update" : "create new"} role: ${errorText(err)}`);
          return 1;
        }
      },
    }),
  );
}

export const aclPolicyCommand: Command = commandGroup(
  "Manage ACL policies",
  `
Usage: cairn acl policy <subcommand> [options] [args]

  Create, read, update, delete and list ACL policies.`,
  {
    create: policyWrite(false),
    read: readCommand(POLICY),
    update: policyWrite(true),
    delete: deleteCommand(POLICY),
    list: listCommand(POLICY),
  },
);

export const aclRoleCommand: Command = commandGroup(
  "Manage ACL roles",
  `
Usage: cairn acl role <subcommand> [options] [args]

  Create, read, update, delete and list ACL roles.`,
  {
    create: roleWrite(false),
    read: readCommand(ROLE),
    update: roleWrite(true),
    delete: deleteCommand(ROLE),
    list: listCommand(ROLE),
  },
);
