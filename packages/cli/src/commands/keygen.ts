// `cairn keygen`: a gossip encryption key for -encrypt, as `consul keygen` prints one.
import { randomBytes } from "node:crypto";
import type { Command } from "../command.js";

/** 32 bytes selects AES-256-GCM, the size Consul generates today. */
const KEY_BYTES = 32;

export const keygenCommand: Command = {
  synopsis: "Generates a new encryption key",
  help: () =>
    "Usage: cairn keygen\n\n  Generates a new encryption key that can be used to configure the agent to encrypt traffic.\n  The output of this command is already in the proper format that the agent expects.",
  async run(_argv, io) {
    io.out(randomBytes(KEY_BYTES).toString("base64"));
    return 0;
  },
};
