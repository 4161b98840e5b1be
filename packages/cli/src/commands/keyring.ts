// `cairn keyring`, as `consul keyring`: lists, installs, makes primary and removes gossip encryption keys
// on every member of the cluster through /v1/operator/keyring.
import { boolFlag, intFlag, stringFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";
import { asString, field, isObject, type JsonValue } from "../json.js";

const PATH = "/v1/operator/keyring";

export const keyringCommand: Command = defineCommand({
  synopsis: "Manages gossip layer encryption keys",
  usage: `
Usage: cairn keyring [options]

  Manages encryption keys used for gossip messages. Gossip encryption is
  optional. When enabled, this command may be used to examine active encryption
  keys in the cluster, add new keys, and remove old ones. When combined, this
  functionality provides the ability to perform key rotation cluster-wide,
  without disrupting the cluster.

  All operations performed by this command can only be run against server nodes,
  and affect both the LAN and WAN keyrings in lock-step.

  All variations of the keyring command return 0 if all nodes reply and there
  are no errors. If any node fails to reply or reports failure, the exit code
  will be 1.`,
  http: true,
  flags: {
    install: stringFlag(
      "Install a new encryption key. This will broadcast the new key to all members in the cluster.",
    ),
    list: boolFlag("List all keys currently in use within the cluster."),
    "list-primary": boolFlag("List all primary keys currently in use within the cluster."),
    remove: stringFlag(
      "Remove the given key from the cluster. This operation may only be performed on keys which are not currently the primary key.",
    ),
    use: stringFlag(
      "Change the primary encryption key, which is used to encrypt messages. The key must already be installed before this operation can succeed.",
    ),
    "relay-factor": intFlag(
      "Setting this to a non-zero value will cause nodes to relay their response to the operation through this many randomly-chosen other nodes in the cluster. The maximum allowed value is 5.",
    ),
    "local-only": boolFlag(
      "Setting this to true will force the keyring query to only hit local servers (no WAN traffic). This flag can only be set for list queries.",
    ),
  },
  async run({ values: f }, { io, client }) {
    const list = f.list || f["list-primary"];
    const actions = [f.list, f["list-primary"], f.install !== "", f.use !== "", f.remove !== ""].filter(
      Boolean,
    );
    if (actions.length > 1) {
      io.err("Only a single action is allowed");
      return 1;
    }
    if (actions.length === 0) {
      io.err(keyringCommand.help());
      return 1;
    }
    const relay = f["relay-factor"];
    if (relay < 0 || relay > 5) {
      io.err("Error parsing relay factor: Relay factor must be in range: [0, 5]");
      return 1;
    }
    if (f["local-only"] && !f.list) {
      io.err("Error validating local-only: local-only can only be set for list requests");
      return 1;
    }
    const query = {
      "relay-factor": relay > 0 ? String(relay) : undefined,
      "local-only": f["local-only"] ? "true" : undefined,
    };
    try {
      if (list) {
        io.out(
          f.list
            ? "==> Gathering installed encryption keys..."
            : "==> Gathering installed primary encryption keys...",
        );
        const answers = await client().json("GET", PATH, { query, read: true });
        for (const pool of Array.isArray(answers) ? answers : [])
          io.out(formatPool(pool, f.list ? "Keys" : "PrimaryKeys"));
        return 0;
      }
      const [method, key, what] = f.install
        ? ["POST", f.install, "Installing new gossip encryption key..."]
        : f.use
          ? ["PUT", f.use, "Changing primary gossip encryption key..."]
          : ["DELETE", f.remove, "Removing gossip encryption key..."];
      io.out(`==> ${what}`);
      const res = await client().request(method, PATH, { query, body: JSON.stringify({ Key: key }) });
      res.discard();
      return 0;
    } catch (err) {
      io.err(`error: ${errorText(err)}`);
      return 1;
    }
  },
});

/** One pool as Consul's CLI prints it: its name, each member's error, then each key with its holders. */
function formatPool(pool: JsonValue, keysField: "Keys" | "PrimaryKeys"): string {
  if (!isObject(pool)) return "";
  const name = field(pool, "WAN") === true ? "WAN" : `${asString(field(pool, "Datacenter"))} (LAN)`;
  const lines = ["", `${name}:`];
  const messages = field(pool, "Messages");
  if (isObject(messages))
    for (const [node, msg] of Object.entries(messages)) lines.push(`  ===> ${node}: ${asString(msg)}`);
  const total = Number(field(pool, "NumNodes") ?? 0);
  const keys = field(pool, keysField);
  if (isObject(keys))
    for (const [key, n] of Object.entries(keys)) lines.push(`  ${key} [${Number(n)}/${total}]`);
  return lines.join("\n");
}
