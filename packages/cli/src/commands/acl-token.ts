// `cairn acl token create|read|update|delete|list`, flag for flag as `consul acl token`.
import { boolFlag, stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import { field, isObject, type JsonValue } from "../json.js";
import { formatFlag, linkFlags, prettyToken, serviceIdentity, show } from "./acl-format.js";
import { type Repeated, withRepeatedFlags } from "./catalog-repeated-flags.js";

const LINK_FLAGS = ["policy-id", "policy-name", "role-id", "role-name", "service-identity"];
const list = (r: Repeated, name: string) => r[name] ?? [];

function linkBody(r: Repeated): Record<string, JsonValue> {
  const body: Record<string, JsonValue> = {};
  const policies = linkFlags(list(r, "policy-id"), list(r, "policy-name"));
  const roles = linkFlags(list(r, "role-id"), list(r, "role-name"));
  const identities = list(r, "service-identity").map(serviceIdentity);
  if (policies.length > 0) body.Policies = policies;
  if (roles.length > 0) body.Roles = roles;
  if (identities.length > 0) body.ServiceIdentities = identities;
  return body;
}

const linkUsage = {
  "policy-id": stringFlag("ID of a policy to use for this token. May be specified multiple times."),
  "policy-name": stringFlag("Name of a policy to use for this token. May be specified multiple times."),
  "role-id": stringFlag("ID of a role to use for this token. May be specified multiple times."),
  "role-name": stringFlag("Name of a role to use for this token. May be specified multiple times."),
  "service-identity": stringFlag(
    "Name of a service identity to use for this token, as name or name:dc1,dc2. May be specified multiple times.",
  ),
};

const create: Command = withRepeatedFlags(LINK_FLAGS, ["local"], (repeated) =>
  defineCommand({
    synopsis: "Create an ACL token",
    usage: `
Usage: cairn acl token create [options]

  Creates a new token with the given policies, roles and service identities.

      $ cairn acl token create -description "web" -policy-name web -expires-ttl 1h`,
    http: true,
    flags: {
      ...linkUsage,
      description: stringFlag("A description of the token"),
      accessor: stringFlag("Create the token with this Accessor ID"),
      secret: stringFlag("Create the token with this Secret ID"),
      local: boolFlag("Create this as a datacenter local token"),
      "expires-ttl": stringFlag("Duration of time this token should be valid for"),
      format: formatFlag,
    },
    async run({ values: f }, { io, client }) {
      const body: Record<string, JsonValue> = {
        ...linkBody(repeated),
        Description: f.description,
        Local: f.local,
      };
      if (f.accessor !== "") body.AccessorID = f.accessor;
      if (f.secret !== "") body.SecretID = f.secret;
      if (f["expires-ttl"] !== "") body.ExpirationTTL = f["expires-ttl"];
      try {
        const token = await client().json("PUT", "/v1/acl/token", { body: JSON.stringify(body) });
        return show(io, f.format, token, prettyToken);
      } catch (err) {
        io.err(`Failed to create new token: ${errorText(err)}`);
        return 1;
      }
    },
  }),
);

const read: Command = defineCommand({
  synopsis: "Read an ACL token",
  usage: `
Usage: cairn acl token read [options] -id TOKENID

  Shows one token (its SecretID only to a caller that may write ACLs), or with -self the token in use.`,
  http: true,
  flags: {
    id: stringFlag("The Accessor ID of the token to read."),
    self: boolFlag(
      "Indicates that the current HTTP token should be read by secret ID instead of expecting a -id option",
    ),
    format: formatFlag,
  },
  async run({ values: f }, { io, client }) {
    if (!f.self && f.id === "") {
      io.err("Must specify the -id parameter");
      return 1;
    }
    const path = f.self ? "/v1/acl/token/self" : `/v1/acl/token/${encodeURIComponent(f.id)}`;
    try {
      return show(io, f.format, await client().json("GET", path, { read: true }), prettyToken);
    } catch (err) {
      io.err(`Error reading token: ${errorText(err)}`);
      return 1;
    }
  },
});

const update: Command = withRepeatedFlags(LINK_FLAGS, [], (repeated) =>
  defineCommand({
    synopsis: "Update an ACL token",
    usage: `
Usage: cairn acl token update [options] -id TOKENID

  Updates a token. Policies, roles and service identities given replace the
  token's; a kind not given is kept.`,
    http: true,
    flags: {
      ...linkUsage,
      id: stringFlag("The Accessor ID of the token to update."),
      description: stringFlag("A description of the token"),
      format: formatFlag,
    },
    async run({ values: f, given }, { io, client }) {
      if (f.id === "") {
        io.err("Cannot update a token without specifying the -id parameter");
        return 1;
      }
      const path = `/v1/acl/token/${encodeURIComponent(f.id)}`;
      try {
        const current = await client().json("GET", path);
        if (!isObject(current)) throw new Error("unexpected token shape");
        const body: Record<string, JsonValue> = {
          Description: given.has("description") ? f.description : (field(current, "Description") ?? ""),
          Policies: field(current, "Policies") ?? null,
          Roles: field(current, "Roles") ?? null,
          ServiceIdentities: field(current, "ServiceIdentities") ?? null,
          ...linkBody(repeated),
        };
        const token = await client().json("PUT", path, { body: JSON.stringify(body) });
        io.out("Token updated successfully.");
        return show(io, f.format, token, prettyToken);
      } catch (err) {
        io.err(`Failed to update token ${f.id}: ${errorText(err)}`);
        return 1;
      }
    },
  }),
);

const del: Command = defineCommand({
  synopsis: "Delete an ACL token",
  usage: `
Usage: cairn acl token delete [options] -id TOKENID`,
  http: true,
  flags: { id: stringFlag("The Accessor ID of the token to delete.") },
  async run({ values: f }, { io, client }) {
    if (f.id === "") {
      io.err("Must specify the -id parameter");
      return 1;
    }
    try {
      await client().json("DELETE", `/v1/acl/token/${encodeURIComponent(f.id)}`);
      io.out(`Token "${f.id}" deleted successfully`);
      return 0;
    } catch (err) {
      io.err(`Error deleting token "${f.id}": ${errorText(err)}`);
      return 1;
    }
  },
});

const listCommand: Command = defineCommand({
  synopsis: "List ACL tokens",
  usage: `
Usage: cairn acl token list [options]

  Lists every token (without secrets).`,
  http: true,
  flags: { format: formatFlag },
  async run({ values: f }, { io, client }) {
    try {
      return show(io, f.format, await client().json("GET", "/v1/acl/tokens", { read: true }), prettyToken);
    } catch (err) {
      io.err(`Failed to retrieve the token list: ${errorText(err)}`);
      return 1;
    }
  },
});

export const aclTokenCommand: Command = commandGroup(
  "Manage ACL tokens",
  `
Usage: cairn acl token <subcommand> [options] [args]

  Create, read, update, delete and list ACL tokens.`,
  { create, read, update, delete: del, list: listCommand },
);
