// `cairn tls cert create`: a server, client or cli certificate signed by the agent CA, named and
// written as `consul tls cert create` does (dc1-server-consul-0.pem, the next free index each time).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  type CertKind,
  certFileNames,
  certIdentity,
  DEFAULT_CERT_DAYS,
  DEFAULT_DATACENTER,
  DEFAULT_DOMAIN,
  generateCert,
} from "@cairn/tls";
import { boolFlag, intFlag, stringFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";
import { withRepeatedFlags } from "./catalog-repeated-flags.js";
import { CERT_MODE, fileExists, KEY_MODE, writeNewFile } from "./tls-files.js";

const MAX_INDEX = 10_000;

const SERVER_WARNING = `==> WARNING: Server Certificates grants authority to become a
    server and access all state in the cluster including root keys
    and all ACL tokens. Do not distribute them to production hosts
    that are not server nodes. Store them as securely as CA keys.`;

export const tlsCertCreateCommand: Command = withRepeatedFlags(
  ["additional-dnsname", "additional-ipaddress"],
  ["server", "client", "cli"],
  (repeated) =>
    defineCommand({
      synopsis: "Create a new certificate",
      usage: `
Usage: cairn tls cert create [options]

  Create a new certificate

  $ cairn tls cert create -server
  ==> WARNING: Server Certificates grants authority to become a
      server and access all state in the cluster including root keys
      and all ACL tokens. Do not distribute them to production hosts
      that are not server nodes. Store them as securely as CA keys.
  ==> Using consul-agent-ca.pem and consul-agent-ca-key.pem
  ==> Saved dc1-server-consul-0.pem
  ==> Saved dc1-server-consul-0-key.pem
  $ cairn tls cert create -client
  ==> Using consul-agent-ca.pem and consul-agent-ca-key.pem
  ==> Saved dc1-client-consul-0.pem
  ==> Saved dc1-client-consul-0-key.pem`,
      http: false,
      flags: {
        ca: stringFlag("Provide path to the ca. Defaults to #DOMAIN#-agent-ca.pem.", "#DOMAIN#-agent-ca.pem"),
        key: stringFlag(
          "Provide path to the key. Defaults to #DOMAIN#-agent-ca-key.pem.",
          "#DOMAIN#-agent-ca-key.pem",
        ),
        server: boolFlag("Generate server certificate."),
        client: boolFlag("Generate client certificate."),
        cli: boolFlag("Generate cli certificate."),
        node: stringFlag(
          "When generating a server cert and this is set an additional dns name is included of the form " +
            "<node>.server.<datacenter>.<domain>.",
        ),
        days: intFlag(
          "Provide number of days the certificate is valid for from now on. Defaults to 1 year.",
          DEFAULT_CERT_DAYS,
        ),
        dc: stringFlag(
          "Provide the datacenter. Matters only for -server certificates. Defaults to dc1.",
          DEFAULT_DATACENTER,
        ),
        domain: stringFlag("Provide the domain. Matters only for -server certificates.", DEFAULT_DOMAIN),
        "additional-dnsname": stringFlag(
          "Provide an additional dnsname for Subject Alternative Names. localhost is always included. " +
            "This flag may be provided multiple times.",
        ),
        "additional-ipaddress": stringFlag(
          "Provide an additional ipaddress for Subject Alternative Names. 127.0.0.1 is always included. " +
            "This flag may be provided multiple times.",
        ),
      },
      async run({ values, positionals }, { io }) {
        if (positionals.length > 0) {
          io.err(`Too many arguments (expected 0, got ${positionals.length})`);
          return 1;
        }
        if (values.ca === "") {
          io.err("Please provide the ca");
          return 1;
        }
        if (values.key === "") {
          io.err("Please provide the key");
          return 1;
        }
        const kinds = (["server", "client", "cli"] as const).filter((k) => values[k]);
        const kind: CertKind | undefined = kinds.length === 1 ? kinds[0] : undefined;
        if (kind === undefined) {
          io.err("Please provide either -server, -client, or -cli");
          return 1;
        }
        if (values.node !== "" && kind !== "server") {
          io.err("-node requires -server");
          return 1;
        }
        if (values.days <= 0) {
          io.err(`-days must be a positive number of days, got ${values.days}`);
          return 1;
        }
        const names = {
          datacenter: values.dc,
          domain: values.domain,
          node: values.node || undefined,
          additionalDnsNames: repeated["additional-dnsname"] ?? [],
          additionalIpAddresses: repeated["additional-ipaddress"] ?? [],
        };
        try {
          certIdentity(kind, names);
        } catch (err) {
          io.err(errorText(err));
          return 1;
        }
        const cwd = io.cwd ?? process.cwd();
        let files: { cert: string; key: string } | undefined;
        for (let i = 0; i <= MAX_INDEX && files === undefined; i++) {
          const candidate = certFileNames(kind, i, values.dc, values.domain);
          if (!fileExists(cwd, candidate.cert) && !fileExists(cwd, candidate.key)) files = candidate;
        }
        if (files === undefined) {
          io.err("Could not find a filename that doesn't already exist");
          return 1;
        }
        const caFile = values.ca.replace("#DOMAIN#", values.domain);
        const keyFile = values.key.replace("#DOMAIN#", values.domain);
        let ca: { cert: string; key: string };
        try {
          ca = { cert: readFileSync(resolve(cwd, caFile), "utf8"), key: "" };
        } catch (err) {
          io.err(`Error reading CA: ${errorText(err)}`);
          return 1;
        }
        try {
          ca.key = readFileSync(resolve(cwd, keyFile), "utf8");
        } catch (err) {
          io.err(`Error reading CA key: ${errorText(err)}`);
          return 1;
        }
        if (kind === "server") io.out(SERVER_WARNING);
        io.out(`==> Using ${caFile} and ${keyFile}`);
        let generated: { cert: string; key: string };
        try {
          generated = await generateCert({ kind, ca, days: values.days, ...names });
        } catch (err) {
          io.err(errorText(err));
          return 1;
        }
        writeNewFile(cwd, files.cert, generated.cert, CERT_MODE);
        io.out(`==> Saved ${files.cert}`);
        writeNewFile(cwd, files.key, generated.key, KEY_MODE);
        io.out(`==> Saved ${files.key}`);
        return 0;
      },
    }),
);
