// `cairn version`: the CLI's version and the Consul HTTP API it speaks.
import { createRequire } from "node:module";
import type { Command } from "../command.js";

const pkg: unknown = createRequire(import.meta.url)("../../package.json");
export const VERSION =
  typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string"
    ? pkg.version
    : "0.0.0";

export const versionCommand: Command = {
  synopsis: "Prints the Cairn version",
  help: () => "Usage: cairn version\n\n  Prints the version of this Cairn binary.",
  async run(_argv, io) {
    io.out(`Cairn v${VERSION}`);
    io.out("Speaks the Consul HTTP API (v1)");
    return 0;
  },
};
