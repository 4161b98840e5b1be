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

const argv = process.argv.slice(2);
process.exitCode = await runCli(argv, io);
if (argv[0] === "agent") {
  // The agent has shut down in order; whatever handle a dependency may still hold must not keep a stopped
  // agent alive (harnesses would have to kill it). The timer itself holds nothing.
  setTimeout(() => process.exit(), 2000).unref();
}
