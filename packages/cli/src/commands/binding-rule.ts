// `cairn acl binding-rule create|read|update|delete|list`, flag for flag as `consul acl binding-rule`.
import { boolFlag, stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import type { HttpClient } from "../http.js";
import { isObject, type JsonValue, parseJson } from "../json.js";
import { outputFormatFlag, prettyBindingRule, print } from "./auth-method-output.js";

const ruleFlags = {
  description: stringFlag("A description of the binding rule."),
  selector: stringFlag("Selector is an expression that matches against verified identity attributes."),
  "bind-type": stringFlag("Type of binding to perform (service, node, role or policy).", "service"),
  "bind-name": stringFlag("Name to bind on match. Can use $" + "{var} interpolation."),
  format: outputFormatFlag,
};

const path = (id: string) => `/v1/acl/binding-rule/${encodeURIComponent(id)}`;

async function readRule(client: HttpClient, id: string): Promise<JsonValue | undefined> {
  const res = await client.request("GET", path(id), { read: true, accept: [404] });
  if (res.status === 404) {
    res.discard();
    return undefined;
  }
  return parseJson(await res.text());
}

const create = defineCommand({
  synopsis: "Create an ACL binding rule",
  usage: `
Usage: cairn acl binding-rule create [options]

  Create a new binding rule:

    $ cairn acl binding-rule create -method=minikube -bind-type=service \\
        -bind-name='k8s-\${serviceaccount.name}' -selector='serviceaccount.namespace==default'`,
  http: true,
  flags: { method: stringFlag("The auth method's name for which this binding rule applies."), ...ruleFlags },
  async run({ values: f }, { io, client }) {
    if (f.method === "") {
      io.err("Missing required '-method' flag");
      return 1;
    }
    if (f["bind-name"] === "") {
      io.err("Missing required '-bind-name' flag");
      return 1;
    }
    const body = {
      AuthMethod: f.method,
      Description: f.description,
      Selector: f.selector,
      BindType: f["bind-type"],
      BindName: f["bind-name"],
    };
    try {
      const out = await client().json("PUT", "/v1/acl/binding-rule", { body: JSON.stringify(body) });
      return print(io, f.format, out, prettyBindingRule);
    } catch (err) {
      io.err(`Failed to create new binding rule: ${errorText(err)}`);
      return 1;
    }
  },
});

const read = defineCommand({
  synopsis: "Read an ACL binding rule",
  usage: `
Usage: cairn acl binding-rule read -id ID [options]

    $ cairn acl binding-rule read -id fdabbcb5-9de5-4b1a-961f-77214ae88cba`,
  http: true,
  flags: { id: stringFlag("The ID of the binding rule to read."), format: outputFormatFlag },
  async run({ values: f }, { io, client }) {
    if (f.id === "") {
      io.err("Must specify the -id parameter");
      return 1;
    }
    try {
      const rule = await readRule(client(), f.id);
      if (rule === undefined) {
        io.err(`Binding rule not found with ID "${f.id}"`);
        return 1;
      }
      return print(io, f.format, rule, prettyBindingRule);
    } catch (err) {
      io.err(`Error reading binding rule "${f.id}": ${errorText(err)}`);
      return 1;
    }
  },
});

const update = defineCommand({
  synopsis: "Update an ACL binding rule",
  usage: `
Usage: cairn acl binding-rule update -id ID [options]

  Updates a binding rule. The flags given are merged into the current rule unless -no-merge is set.

    $ cairn acl binding-rule update -id ID -description "new description"`,
  http: true,
  flags: {
    id: stringFlag("The ID of the binding rule to update."),
    "no-merge": boolFlag(
      "Do not merge the current binding rule information with what is provided to the command.",
    ),
    ...ruleFlags,
  },
  async run({ values: f, given }, { io, client }) {
    if (f.id === "") {
      io.err("Cannot update a binding rule without specifying the -id parameter");
      return 1;
    }
    try {
      const current = await readRule(client(), f.id);
      if (!isObject(current)) {
        io.err(`Binding rule not found with ID "${f.id}"`);
        return 1;
      }
      const body: Record<string, JsonValue> = f["no-merge"]
        ? {
            ID: f.id,
            AuthMethod: current.AuthMethod ?? "",
            Description: f.description,
            Selector: f.selector,
            BindType: f["bind-type"],
            BindName: f["bind-name"],
          }
        : { ...current };
      if (!f["no-merge"]) {
        if (given.has("description")) body.Description = f.description;
        if (given.has("selector")) body.Selector = f.selector;
        if (given.has("bind-type")) body.BindType = f["bind-type"];
        if (given.has("bind-name")) body.BindName = f["bind-name"];
      }
      const out = await client().json("PUT", path(f.id), { body: JSON.stringify(body) });
      return print(io, f.format, out, prettyBindingRule);
    } catch (err) {
      io.err(`Error updating binding rule "${f.id}": ${errorText(err)}`);
      return 1;
    }
  },
});

const del = defineCommand({
  synopsis: "Delete an ACL binding rule",
  usage: `
Usage: cairn acl binding-rule delete -id ID [options]

    $ cairn acl binding-rule delete -id fdabbcb5-9de5-4b1a-961f-77214ae88cba`,
  http: true,
  flags: { id: stringFlag("The ID of the binding rule to delete.") },
  async run({ values: f }, { io, client }) {
    if (f.id === "") {
      io.err("Must specify the -id parameter");
      return 1;
    }
    try {
      await client().json("DELETE", path(f.id));
    } catch (err) {
      io.err(`Error deleting binding rule "${f.id}": ${errorText(err)}`);
      return 1;
    }
    io.out(`Binding rule "${f.id}" deleted successfully`);
    return 0;
  },
});

const list = defineCommand({
  synopsis: "Lists ACL binding rules",
  usage: `
Usage: cairn acl binding-rule list [options]

    $ cairn acl binding-rule list -method my-k8s`,
  http: true,
  flags: {
    method: stringFlag("Only show rules linked to the auth method with the given name."),
    format: outputFormatFlag,
  },
  async run({ values: f }, { io, client }) {
    try {
      const query = f.method === "" ? {} : { authmethod: f.method };
      const out = await client().json("GET", "/v1/acl/binding-rules", { read: true, query });
      return print(io, f.format, out, prettyBindingRule);
    } catch (err) {
      io.err(`Failed to retrieve the binding rule list: ${errorText(err)}`);
      return 1;
    }
  },
});

export const aclBindingRuleCommand: Command = commandGroup(
  "Manage Cairn's ACL binding rules",
  `
Usage: cairn acl binding-rule <subcommand> [options] [args]

  This command has subcommands for managing Cairn's ACL binding rules.

    $ cairn acl binding-rule list -method my-k8s`,
  { create, read, update, delete: del, list },
);
