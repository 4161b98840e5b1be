// Output shapes the consul CLI prints, so scripts that parse consul's output parse ours.
import type { KvEntry } from "./kv-api.js";

/** `kv get -detailed`: Go's tabwriter with padding 6, one `Field<pad>value` line per field. */
export function formatDetailed(entry: KvEntry, base64: boolean): Buffer {
  const rows: [string, string][] = [
    ["CreateIndex", entry.createIndex.toString()],
    ["Flags", entry.flags.toString()],
    ["Key", entry.key],
    ["LockIndex", entry.lockIndex.toString()],
    ["ModifyIndex", entry.modifyIndex.toString()],
    ["Session", entry.session === "" ? "-" : entry.session],
  ];
  const width = "ModifyIndex".length + 6;
  const head = rows.map(([name, value]) => `${name.padEnd(width)}${value}\n`).join("");
  return Buffer.concat([Buffer.from(`${head}${"Value".padEnd(width)}`), formatValue(entry.value, base64)]);
}

/** A value as consul prints it: the raw bytes, or their base64 with -base64. */
export function formatValue(value: Buffer, base64: boolean): Buffer {
  return base64 ? Buffer.from(value.toString("base64")) : value;
}

/** columnize: columns left-aligned, joined by two spaces, the last column unpadded. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  "))
    .join("\n");
}

/** Go's path.Clean, which `consul kv import` applies (through path.Join) to every imported key. */
export function cleanPath(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(part);
  }
  const joined = out.join("/");
  if (rooted) return `/${joined}`;
  return joined === "" ? "." : joined;
}

/** Go's path.Join: empty elements are ignored, the result is cleaned, "" when all are empty. */
export function joinPath(...parts: string[]): string {
  const nonEmpty = parts.filter((p) => p !== "");
  return nonEmpty.length === 0 ? "" : cleanPath(nonEmpty.join("/"));
}
