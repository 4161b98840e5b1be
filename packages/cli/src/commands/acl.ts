// `cairn acl`: bootstrap and the token, policy and role subcommands, as `consul acl`.
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import { formatFlag, prettyToken, show } from "./acl-format.js";
import { aclPolicyCommand, aclRoleCommand } from "./acl-policy.js";
import { aclTokenCommand } from "./acl-token.js";
import { aclAuthMethodCommand } from "./auth-method.js";
import { aclBindingRuleCommand } from "./binding-rule.js";

const bootstrap: Command = defineCommand({
  synopsis: "Bootstrap Cairn's ACL system",
  usage: `
Usage: cairn acl bootstrap [options]

  Creates the initial management token. It works once per cluster.`,
  http: true,
  flags: { format: formatFlag },
  async run({ values: f }, { io, client }) {
    try {
      const token = await client().json("PUT", "/v1/acl/bootstrap");
      return show(io, f.format, token, prettyToken);
    } catch (err) {
      io.err(`Failed ACL bootstrapping: ${errorText(err)}`);
      return 1;
    }
  },
});

export const aclCommand: Command = commandGroup(
  "Interact with Cairn's ACLs",
  `
Usage: cairn acl <subcommand> [options] [args]

  This command has subcommands for interacting with Cairn's ACLs.

  Bootstrap ACLs:

    $ cairn acl bootstrap

  Create a policy and a token that uses it:

    $ cairn acl policy create -name "kv-read" -rules @rules.hcl
    $ cairn acl token create -description "app" -policy-name "kv-read"`,
  {
    bootstrap,
    token: aclTokenCommand,
    policy: aclPolicyCommand,
    role: aclRoleCommand,
    "auth-method": aclAuthMethodCommand,
    "binding-rule": aclBindingRuleCommand,
  },
);
