// `cairn login` and `cairn logout`, as `consul login` / `consul logout`: trade a bearer token from an auth
// method for a Cairn token written to a sink file; destroy such a token again.
import { readFile, writeFile } from "node:fs/promises";
import { stringFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";
import { asString, field, isObject, parseJson } from "../json.js";
import { withRepeatedFlags } from "./catalog-repeated-flags.js";
import { DEFAULT_CALLBACK_LISTEN_ADDR, oidcLogin } from "./login-oidc.js";

export const loginCommand: Command = withRepeatedFlags(["meta"], [], (repeated) =>
  defineCommand({
    synopsis: "Login to Cairn using an auth method",
    usage: `
Usage: cairn login [options]

  The login command exchanges a bearer token from an auth method for a newly created Cairn ACL token,
  written to the token sink file.

    $ cairn login -method=my-k8s -bearer-token-file=/var/run/secrets/kubernetes.io/serviceaccount/token \\
        -token-sink-file=consul.token

  With -type=oidc the command prints the OIDC provider's login URL and waits for the browser to come back
  to http://localhost:8550/oidc/callback (the port of -oidc-callback-listen-addr), which the method must
  list in AllowedRedirectURIs.

    $ cairn login -type=oidc -method=my-oidc -token-sink-file=consul.token`,
    http: true,
    flags: {
      method: stringFlag("Name of the auth method to login to."),
      type: stringFlag(
        "Type of the auth method to login to. Only oidc changes anything: it runs the browser flow.",
      ),
      "oidc-callback-listen-addr": stringFlag(
        "The address to listen on for the OIDC provider's redirect (with -type=oidc).",
        DEFAULT_CALLBACK_LISTEN_ADDR,
      ),
      "bearer-token-file": stringFlag(
        "Path to a file containing a secret bearer token to use with this auth method.",
      ),
      "token-sink-file": stringFlag("The most recent token's SecretID is kept up to date in this file."),
      meta: stringFlag(
        "Metadata to set on the token, formatted as key=value. This flag may be specified multiple times.",
      ),
    },
    async run({ values: f }, { io, client }) {
      if (f.method === "") {
        io.err("Missing required '-method' flag");
        return 1;
      }
      if (f["token-sink-file"] === "") {
        io.err("Missing required '-token-sink-file' flag");
        return 1;
      }
      const meta: Record<string, string> = {};
      for (const pair of repeated.meta ?? []) {
        const eq = pair.indexOf("=");
        if (eq <= 0) {
          io.err(`Error parsing -meta: "${pair}" is not a key=value pair`);
          return 1;
        }
        meta[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      if (f.type === "oidc") {
        let secret: string;
        try {
          secret = await oidcLogin(io, client(), {
            method: f.method,
            listenAddr: f["oidc-callback-listen-addr"],
            meta,
          });
        } catch (err) {
          io.err(`Error logging in: ${errorText(err)}`);
          return 1;
        }
        return writeSink(io, f["token-sink-file"], secret);
      }
      if (f["bearer-token-file"] === "") {
        io.err("Missing required '-bearer-token-file' flag");
        return 1;
      }
      let bearer: string;
      try {
        bearer = (await readFile(f["bearer-token-file"], "utf8")).trim();
      } catch (err) {
        io.err(`Error reading bearer token file: ${errorText(err)}`);
        return 1;
      }
      if (bearer === "") {
        io.err(`No bearer token found in ${f["bearer-token-file"]}`);
        return 1;
      }
      let secret: string;
      try {
        const body = {
          AuthMethod: f.method,
          BearerToken: bearer,
          ...(Object.keys(meta).length > 0 ? { Meta: meta } : {}),
        };
        const token = await client().json("POST", "/v1/acl/login", { body: JSON.stringify(body) });
        secret = isObject(token) ? asString(field(token, "SecretID") ?? "") : "";
      } catch (err) {
        io.err(`Error logging in: ${errorText(err)}`);
        return 1;
      }
      return writeSink(io, f["token-sink-file"], secret);
    },
  }),
);

async function writeSink(io: { err(text: string): void }, path: string, secret: string): Promise<number> {
  try {
    await writeFile(path, secret, { mode: 0o600 });
  } catch (err) {
    io.err(`Error writing token to file sink: ${errorText(err)}`);
    return 1;
  }
  return 0;
}

export const logoutCommand: Command = defineCommand({
  synopsis: "Destroy a Cairn token created with login",
  usage: `
Usage: cairn logout [options]

  The logout command destroys the token given with -token (or CAIRN_HTTP_TOKEN), which must have been
  created by cairn login.

    $ cairn logout -token-file consul.token`,
  http: true,
  flags: {},
  async run(_args, { io, client }) {
    try {
      parseJson(await (await client().request("POST", "/v1/acl/logout")).text());
    } catch (err) {
      io.err(`Error destroying token: ${errorText(err)}`);
      return 1;
    }
    return 0;
  },
});
