// What the kv commands share: key normalisation, DATA arguments, base64 checks.
import { readFile } from "node:fs/promises";
import { errorText, type Io } from "../../command.js";

/** Keys cannot start with "/", but users type "/foo"; consul strips one leading slash for them. */
export function stripSlash(key: string): string {
  return key.startsWith("/") ? key.slice(1) : key;
}

/** DATA arguments: `@file` reads a file, `-` reads stdin, anything else is the value itself. */
export async function loadDataSource(arg: string, io: Io): Promise<Buffer> {
  if (arg.startsWith("@")) {
    try {
      return await readFile(arg.slice(1));
    } catch (err) {
      throw new Error(`Failed to read file: ${errorText(err)}`);
    }
  }
  if (arg === "-") {
    try {
      return await io.readStdin();
    } catch (err) {
      throw new Error(`Failed to read stdin: ${errorText(err)}`);
    }
  }
  return Buffer.from(arg, "utf8");
}

/** Standard base64 with padding, as Go's base64.StdEncoding accepts it. */
export function isBase64(text: string): boolean {
  return /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0;
}
