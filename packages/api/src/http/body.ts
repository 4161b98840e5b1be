import type { Context } from "hono";
import { tooLarge } from "./errors.js";

/**
 * Reads the request body, refusing (413) more than `limit` bytes: first by Content-Length, then while
 * streaming, so a chunked upload cannot grow memory past the limit either.
 */
export async function readBodyLimited(
  c: Context,
  limit: number,
  describe: (size: number) => string,
): Promise<Buffer> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > limit) throw tooLarge(describe(declared));
  const stream = c.req.raw.body;
  if (stream === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(describe(size));
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** The body as UTF-8 text, under the same limit. */
export async function readTextLimited(
  c: Context,
  limit: number,
  describe: (size: number) => string,
): Promise<string> {
  return (await readBodyLimited(c, limit, describe)).toString("utf8");
}
