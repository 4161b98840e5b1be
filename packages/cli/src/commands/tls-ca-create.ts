// `cairn tls ca create`: a new agent CA in the working directory, as `consul tls ca create` writes it.
import { caFileNames, DEFAULT_CA_DAYS, DEFAULT_DOMAIN, generateCA } from "@cairn/tls";
import { boolFlag, intFlag, stringFlag } from "../args.js";
import { type Command, defineCommand } from "../command.js";
import { withRepeatedFlags } from "./catalog-repeated-flags.js";
import { CERT_MODE, fileExists, KEY_MODE, writeNewFile } from "./tls-files.js";

export const tlsCaCreateCommand: Command = withRepeatedFlags(
  ["additional-name-constraint"],
  ["name-constraint"],
  (repeated) =>
    defineCommand({
      synopsis: "Create a new Cairn CA",
      usage: `
Usage: cairn tls ca create [options]

  Create a new Cairn (Consul-compatible) agent CA:

  $ cairn tls ca create
  ==> Saved consul-agent-ca.pem
  ==> Saved consul-agent-ca-key.pem`,
      http: false,
      flags: {
        days: intFlag(
          "Number of days the CA is valid for. Defaults to 1825 days (approximately 5 years).",
          DEFAULT_CA_DAYS,
        ),
        domain: stringFlag(
          "The DNS domain of the cluster that agents are configured with. Defaults to consul. Only used " +
            "when -name-constraint is set; it also names the files (<domain>-agent-ca.pem).",
          DEFAULT_DOMAIN,
        ),
        "name-constraint": boolFlag(
          "Enables X.509 name constraints for the CA. If used, the CA only signs certificates for " +
            "localhost and the domains specified by -domain and -additional-name-constraint. Defaults to false.",
        ),
        "additional-name-constraint": stringFlag(
          "Add name constraints for the CA. Results in rejecting certificates for other DNS than " +
            "specified. Can be used multiple times. Only used in combination with -name-constraint.",
        ),
        "common-name": stringFlag("Common Name of the CA. Defaults to Cairn Agent CA <serial number>."),
      },
      async run({ values, positionals }, { io }) {
        if (positionals.length > 0) {
          io.err(`Too many arguments (expected 0, got ${positionals.length})`);
          return 1;
        }
        if (values.days <= 0) {
          io.err(`-days must be a positive number of days, got ${values.days}`);
          return 1;
        }
        const cwd = io.cwd ?? process.cwd();
        const files = caFileNames(values.domain);
        for (const name of [files.cert, files.key]) {
          if (fileExists(cwd, name)) {
            io.err(`${name} already exists.`);
            return 1;
          }
        }
        const ca = await generateCA({
          days: values.days,
          domain: values.domain,
          nameConstraint: values["name-constraint"],
          additionalNameConstraints: repeated["additional-name-constraint"] ?? [],
          commonName: values["common-name"],
        });
        writeNewFile(cwd, files.cert, ca.cert, CERT_MODE);
        io.out(`==> Saved ${files.cert}`);
        writeNewFile(cwd, files.key, ca.key, KEY_MODE);
        io.out(`==> Saved ${files.key}`);
        return 0;
      },
    }),
);
