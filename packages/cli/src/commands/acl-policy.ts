// `cairn acl policy ...` and `cairn acl role ...`, as `consul acl policy` and `consul acl role`.
import { stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText, type Io } from "../command.js";
import { ApiError, type HttpClient } from "../http.js";
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

/** The record named by -id or -name. A missing role is a bare 404, worded here as Consul's CLI does. */
async function lookup(client: HttpClient, kind: Kind, id: string, name: string): Promise<JsonValue> {
  const path =
    id !== ""
      ? `/v1/acl/${kind.noun}/${encodeURIComponent(id)}`
      : `/v1/acl/${kind.noun}/name/${encodeURIComponent(name)}`;
  try {
    return await client.json("GET", path, { read: true });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      const by = id !== "" ? `ID ${JSON.stringify(id)}` : `name ${JSON.stringify(name)}`;
      throw new Error(`${kind.noun === "role" ? "Role" : "Policy"} not found with ${by}`);
    }
    throw err;
  }
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

/** What sets a policy apart from a role when writing one: its list flags and the body fields they fill. */
interface WriteSpec {
  readonly kind: Kind;
  readonly repeated: readonly string[];
  readonly flags: Record<string, ReturnType<typeof stringFlag>>;
  readonly createUsage: string;
  readonly updateUsage: string;
  /** Body fields from the flags; an undefined field keeps the current record's value (or null). */
  fields(
    repeated: Readonly<Record<string, readonly string[]>>,
    values: Record<string, string>,
    given: ReadonlySet<string>,
    io: Io,
  ): Promise<Record<string, JsonValue | undefined>>;
}

const POLICY_WRITE: WriteSpec = {
  kind: POLICY,
  repeated: ["valid-datacenter"],
  flags: {
    rules: stringFlag(
      "The policy rules. May be prefixed with '@' to indicate that the value is a file path to load the rules from. '-' may also be given to indicate that the rules are available on stdin",
    ),
    "valid-datacenter": stringFlag(
      "Datacenter that the policy should be valid within. May be specified multiple times.",
    ),
  },
  createUsage: `
Usage: cairn acl policy create -name NAME [options]

      $ cairn acl policy create -name "kv-read" -rules @rules.hcl`,
  updateUsage: `
Usage: cairn acl policy update [options] -id ID

  Updates a policy; options not given keep their values.`,
  async fields(repeated, values, given, io) {
    const dcs = repeated["valid-datacenter"] ?? [];
    return {
      Rules: given.has("rules") ? await readRules(io, values.rules ?? "") : undefined,
      Datacenters: dcs.length > 0 ? [...dcs] : undefined,
    };
  },
};

const ROLE_WRITE: WriteSpec = {
  kind: ROLE,
  repeated: ["policy-id", "policy-name", "service-identity"],
  flags: {
    "policy-id": stringFlag("ID of a policy to use for this role. May be specified multiple times."),
    "policy-name": stringFlag("Name of a policy to use for this role. May be specified multiple times."),
    "service-identity": stringFlag(
      "Name of a service identity to use for this role. May be specified multiple times.",
    ),
  },
  createUsage: `
Usage: cairn acl role create -name NAME [options]`,
  updateUsage: `
Usage: cairn acl role update -id ID [options]`,
  async fields(repeated) {
    const policies = linkFlags(repeated["policy-id"] ?? [], repeated["policy-name"] ?? []);
    const identities = (repeated["service-identity"] ?? []).map(serviceIdentity);
    return {
      Policies: policies.length > 0 ? policies : undefined,
      ServiceIdentities: identities.length > 0 ? identities : undefined,
    };
  },
};

/** create (no -id) or update (-id of an existing record; -name on update is the new name). */
function writeCommand(spec: WriteSpec, update: boolean): Command {
  const { noun } = spec.kind;
  const label = noun[0]!.toUpperCase() + noun.slice(1);
  return withRepeatedFlags(spec.repeated, [], (repeated) =>
    defineCommand({
      synopsis: `${update ? "Update" : "Create"} an ACL ${noun}`,
      usage: update ? spec.updateUsage : spec.createUsage,
      http: true,
      flags: {
        ...(update ? { id: stringFlag(`The ID of the ${noun} to update.`) } : {}),
        name: stringFlag(
          update ? `The new name of the ${noun}.` : `The new ${noun}'s name. This flag is required.`,
        ),
        description: stringFlag(`A description of the ${noun}`),
        ...spec.flags,
        format: formatFlag,
      },
      async run({ values: f, given }, { io, client }) {
        const values = f as unknown as Record<string, string>;
        const id = values.id ?? "";
        if (update ? id === "" : f.name === "") {
          io.err(
            update
              ? `Cannot update a ${noun} without specifying the -id parameter`
              : "Missing required '-name' flag",
          );
          return 1;
        }
        try {
          const current = update ? await lookup(client(), spec.kind, id, "") : {};
          const base = isObject(current) ? current : {};
          const fields = await spec.fields(repeated, values, given, io);
          const body: Record<string, JsonValue> = {
            Name: given.has("name") ? f.name : (field(base, "Name") ?? ""),
            Description: given.has("description") ? f.description : (field(base, "Description") ?? ""),
          };
          for (const [key, value] of Object.entries(fields)) {
            body[key] = value ?? field(base, key) ?? (key === "Rules" ? "" : null);
          }
          const path = update ? `/v1/acl/${noun}/${encodeURIComponent(id)}` : `/v1/acl/${noun}`;
          const out = await client().json("PUT", path, { body: JSON.stringify(body) });
          if (update) io.out(`${label} updated successfully`);
          return show(io, f.format, out, spec.kind.pretty);
        } catch (err) {
          io.err(`Failed to ${update ? "update" : "create new"} ${noun}: ${errorText(err)}`);
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
    create: writeCommand(POLICY_WRITE, false),
    read: readCommand(POLICY),
    update: writeCommand(POLICY_WRITE, true),
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
    create: writeCommand(ROLE_WRITE, false),
    read: readCommand(ROLE),
    update: writeCommand(ROLE_WRITE, true),
    delete: deleteCommand(ROLE),
    list: listCommand(ROLE),
  },
);
