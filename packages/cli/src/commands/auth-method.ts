// `cairn acl auth-method create|read|update|delete|list`, flag for flag as `consul acl auth-method`.
import { boolFlag, durationFlag, stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import type { HttpClient } from "../http.js";
import { isObject, type JsonValue, parseJson } from "../json.js";
import { flagValue, outputFormatFlag, prettyAuthMethod, print } from "./auth-method-output.js";
import { withRepeatedFlags } from "./catalog-repeated-flags.js";

const methodFlags = {
  "display-name": stringFlag("An optional name to use instead of the name when displaying this auth method."),
  description: stringFlag("A description of the auth method."),
  "max-token-ttl": durationFlag(
    "Duration of time all tokens created by this auth method should be valid for.",
  ),
  "token-locality": stringFlag(
    "Defines the kind of token that this auth method should produce: local or global.",
  ),
  config: stringFlag(
    "The configuration for the auth method. Must be JSON. May be prefixed with '@' to indicate that the value " +
      "is a file path to load the config from.",
  ),
  "kubernetes-host": stringFlag("Address of the Kubernetes API server (type kubernetes)."),
  "kubernetes-ca-cert": stringFlag("PEM encoded CA cert for the Kubernetes API server; '@' reads a file."),
  "kubernetes-service-account-jwt": stringFlag(
    "A Kubernetes service account JWT used to access the TokenReview API.",
  ),
  "namespace-rule-selector": stringFlag("Selector of a namespace rule (repeatable, paired in order)."),
  "namespace-rule-bind-namespace": stringFlag("Namespace of a namespace rule (repeatable, paired in order)."),
  format: outputFormatFlag,
};

const RULE_FLAGS = ["namespace-rule-selector", "namespace-rule-bind-namespace"];

type Values = { [K in keyof typeof methodFlags]: K extends "max-token-ttl" ? number : string };

/** The body fields the flags set (only those given, so an update can merge). */
async function bodyFromFlags(
  f: Values,
  given: ReadonlySet<string>,
  repeated: Readonly<Record<string, readonly string[]>>,
  type: string,
): Promise<Record<string, JsonValue>> {
  const body: Record<string, JsonValue> = {};
  if (given.has("display-name")) body.DisplayName = f["display-name"];
  if (given.has("description")) body.Description = f.description;
  if (given.has("max-token-ttl")) body.MaxTokenTTL = `${f["max-token-ttl"]}ms`;
  if (given.has("token-locality")) body.TokenLocality = f["token-locality"];
  if (f.config !== "") {
    const config = parseJson(await flagValue(f.config));
    if (!isObject(config)) throw new Error("The -config flag must be a JSON object");
    body.Config = config;
  }
  if (
    type === "kubernetes" &&
    (f["kubernetes-host"] || f["kubernetes-ca-cert"] || f["kubernetes-service-account-jwt"])
  ) {
    body.Config = {
      ...(isObject(body.Config) ? body.Config : {}),
      Host: f["kubernetes-host"],
      CACert: await flagValue(f["kubernetes-ca-cert"]),
      ServiceAccountJWT: f["kubernetes-service-account-jwt"],
    };
  }
  const selectors = repeated["namespace-rule-selector"] ?? [];
  const targets = repeated["namespace-rule-bind-namespace"] ?? [];
  if (selectors.length !== targets.length) {
    throw new Error(
      "Must specify the same number of -namespace-rule-selector and -namespace-rule-bind-namespace flags",
    );
  }
  if (targets.length > 0) {
    body.NamespaceRules = targets.map((t, i) => ({ Selector: selectors[i] ?? "", BindNamespace: t }));
  }
  return body;
}

const path = (name: string) => `/v1/acl/auth-method/${encodeURIComponent(name)}`;

async function readMethod(client: HttpClient, name: string): Promise<JsonValue | undefined> {
  const res = await client.request("GET", path(name), { read: true, accept: [404] });
  if (res.status === 404) {
    res.discard();
    return undefined;
  }
  return parseJson(await res.text());
}

const create = withRepeatedFlags(RULE_FLAGS, [], (repeated) =>
  defineCommand({
    synopsis: "Create an ACL auth method",
    usage: `
Usage: cairn acl auth-method create -name NAME -type TYPE [options]

  Create a new auth method:

    $ cairn acl auth-method create -type "kubernetes" -name "my-k8s" \\
        -kubernetes-host "https://apiserver.example.com:8443" \\
        -kubernetes-ca-cert @/path/to/kube.ca.crt \\
        -kubernetes-service-account-jwt "JWT_CONTENTS"`,
    http: true,
    flags: {
      type: stringFlag("The new auth method's type."),
      name: stringFlag("The new auth method's name."),
      ...methodFlags,
    },
    async run({ values: f, given }, { io, client }) {
      if (f.type === "") {
        io.err("Missing required '-type' flag");
        return 1;
      }
      if (f.name === "") {
        io.err("Missing required '-name' flag");
        return 1;
      }
      try {
        const body = { Name: f.name, Type: f.type, ...(await bodyFromFlags(f, given, repeated, f.type)) };
        const out = await client().json("PUT", "/v1/acl/auth-method", { body: JSON.stringify(body) });
        return print(io, f.format, out, prettyAuthMethod);
      } catch (err) {
        io.err(`Failed to create new auth method: ${errorText(err)}`);
        return 1;
      }
    },
  }),
);

const read = defineCommand({
  synopsis: "Read an ACL auth method",
  usage: `
Usage: cairn acl auth-method read -name NAME [options]

  Read an auth method:

    $ cairn acl auth-method read -name my-k8s`,
  http: true,
  flags: { name: stringFlag("The name of the auth method to read."), format: outputFormatFlag },
  async run({ values: f }, { io, client }) {
    if (f.name === "") {
      io.err("Must specify the -name parameter");
      return 1;
    }
    try {
      const method = await readMethod(client(), f.name);
      if (method === undefined) {
        io.err(`Auth method not found with name "${f.name}"`);
        return 1;
      }
      return print(io, f.format, method, prettyAuthMethod);
    } catch (err) {
      io.err(`Error reading auth method "${f.name}": ${errorText(err)}`);
      return 1;
    }
  },
});

const update = withRepeatedFlags(RULE_FLAGS, ["no-merge"], (repeated) =>
  defineCommand({
    synopsis: "Update an ACL auth method",
    usage: `
Usage: cairn acl auth-method update -name NAME [options]

  Updates an auth method. By default the flags given are merged into the current method; with -no-merge
  the method is replaced by what the flags say.

    $ cairn acl auth-method update -name my-k8s -description "new description"`,
    http: true,
    flags: {
      name: stringFlag("The auth method name."),
      "no-merge": boolFlag(
        "Do not merge the current auth method information with what is provided to the command.",
      ),
      ...methodFlags,
    },
    async run({ values: f, given }, { io, client }) {
      if (f.name === "") {
        io.err("Cannot update an auth method without specifying the -name parameter");
        return 1;
      }
      try {
        const current = await readMethod(client(), f.name);
        if (!isObject(current)) {
          io.err(`Auth method not found with name "${f.name}"`);
          return 1;
        }
        const type = String(current.Type ?? "");
        const changes = await bodyFromFlags(f, given, repeated, type);
        const base: Record<string, JsonValue> = f["no-merge"] ? { Name: f.name, Type: type } : { ...current };
        const out = await client().json("PUT", path(f.name), {
          body: JSON.stringify({ ...base, ...changes }),
        });
        return print(io, f.format, out, prettyAuthMethod);
      } catch (err) {
        io.err(`Error updating auth method "${f.name}": ${errorText(err)}`);
        return 1;
      }
    },
  }),
);

const del = defineCommand({
  synopsis: "Delete an ACL auth method",
  usage: `
Usage: cairn acl auth-method delete -name NAME [options]

  Deletes an auth method (with its binding rules and the tokens it created):

    $ cairn acl auth-method delete -name my-k8s`,
  http: true,
  flags: { name: stringFlag("The name of the auth method to delete.") },
  async run({ values: f }, { io, client }) {
    if (f.name === "") {
      io.err("Must specify the -name parameter");
      return 1;
    }
    try {
      await client().json("DELETE", path(f.name));
    } catch (err) {
      io.err(`Error deleting auth method "${f.name}": ${errorText(err)}`);
      return 1;
    }
    io.out(`Auth-method "${f.name}" deleted successfully`);
    return 0;
  },
});

const list = defineCommand({
  synopsis: "Lists ACL auth methods",
  usage: `
Usage: cairn acl auth-method list [options]

  Lists all the ACL auth methods:

    $ cairn acl auth-method list`,
  http: true,
  flags: { format: outputFormatFlag },
  async run({ values: f }, { io, client }) {
    try {
      const out = await client().json("GET", "/v1/acl/auth-methods", { read: true });
      return print(io, f.format, out, prettyAuthMethod);
    } catch (err) {
      io.err(`Failed to retrieve the auth method list: ${errorText(err)}`);
      return 1;
    }
  },
});

export const aclAuthMethodCommand: Command = commandGroup(
  "Manage Cairn's ACL auth methods",
  `
Usage: cairn acl auth-method <subcommand> [options] [args]

  This command has subcommands for managing Cairn's ACL auth methods.

    $ cairn acl auth-method list
    $ cairn acl auth-method read -name my-k8s`,
  { create, read, update, delete: del, list },
);
