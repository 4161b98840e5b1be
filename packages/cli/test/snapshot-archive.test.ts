import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { verifySnapshot } from "../src/snapshot-archive.js";

/** A minimal ustar archive of regular files. */
function tar(files: Record<string, string | Buffer>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const body = Buffer.from(content);
    const header = Buffer.alloc(512);
    header.write(name, 0);
    header.write("0000644\0", 100);
    header.write(`${body.length.toString(8).padStart(11, "0")}\0`, 124);
    header.write("0", 156);
    header.write("ustar\0", 257);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

function consulStyle(state: Buffer, sumOf = state): Buffer {
  const meta = JSON.stringify({ ID: "2-5-1", Size: state.length, Index: 5, Term: 2, Version: 1 });
  const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
  const sums = `${sha(meta)}  meta.json\n${sha(sumOf)}  state.bin\n`;
  return gzipSync(tar({ "meta.json": meta, "state.bin": state, SHA256SUMS: sums }));
}

describe("verifySnapshot", () => {
  it("reads the metadata of a consul-style archive whose checksums match", () => {
    const info = verifySnapshot(consulStyle(Buffer.from("state")));
    expect(info.meta).toMatchObject({ ID: "2-5-1", Index: 5, Term: 2, Version: 1 });
  });

  it("refuses a checksum mismatch, a corrupt gzip stream and an empty file", () => {
    expect(() => verifySnapshot(consulStyle(Buffer.from("state"), Buffer.from("other")))).toThrow(
      "sha256 hash mismatch for state.bin",
    );
    const gz = consulStyle(Buffer.from("state"));
    const at = gz.length - 5;
    gz.writeUInt8(gz.readUInt8(at) ^ 0xff, at);
    expect(() => verifySnapshot(gz)).toThrow(/failed to decompress/);
    expect(() => verifySnapshot(Buffer.alloc(0))).toThrow("snapshot is empty");
  });

  it("accepts a server format it does not know, reporting only its size", () => {
    expect(verifySnapshot(Buffer.from([1, 2, 3]))).toEqual({ size: 3, meta: undefined });
  });
});
