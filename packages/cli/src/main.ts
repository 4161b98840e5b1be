#!/usr/bin/env node
// The `cairn` binary.
import { runCli } from "./cli.js";
import type { Io } from "./command.js";

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

const io: Io = {
  out: (text) => {
    process.stdout.write(text);
    process.stdout.write("\n");
  },
  err: (text) => process.stderr.write(`${text}\n`),
  readStdin,
  env: process.env,
};

process.exitCode = await runCli(process.argv.slice(2), io);
