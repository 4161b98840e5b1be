#!/usr/bin/env -S node --max-semi-space-size=32
// The `cairn` command as npm links it. Committed, so that `npm install` on a fresh clone links it before
// anything is built: it runs the built CLI when there is one, and otherwise the TypeScript sources through
// tsx with the workspace packages resolved to their sources (as `npm run cairn` does). The shebang carries the
// agent's Node flags (packages/cli/src/node-flags.ts).
import { existsSync } from "node:fs";
import { register } from "node:module";

const built = new URL("../dist/main.js", import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  let tsx;
  try {
    tsx = await import("tsx/esm/api");
  } catch {
    process.stderr.write(
      "cairn: not built (run `npm run build`) and tsx is not installed to run the sources\n",
    );
    process.exit(1);
  }
  register(new URL("./source-condition.js", import.meta.url));
  tsx.register();
  await import(new URL("../src/main.ts", import.meta.url).href);
}
