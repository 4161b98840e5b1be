import { describe, expect, it } from "vitest";
import { cleanPath, formatDetailed, formatTable, joinPath } from "../src/format.js";
import type { KvEntry } from "../src/kv-api.js";

const entry: KvEntry = {
  key: "foo",
  value: Buffer.from("bar"),
  flags: 18446744073709551615n,
  createIndex: 7n,
  modifyIndex: 9n,
  lockIndex: 0n,
  session: "",
};

describe("formatDetailed", () => {
  it("lays out fields as Go's tabwriter with padding 6", () => {
    expect(formatDetailed(entry, false).toString()).toBe(
      [
        "CreateIndex      7",
        "Flags            18446744073709551615",
        "Key              foo",
        "LockIndex        0",
        "ModifyIndex      9",
        "Session          -",
        "Value            bar",
      ].join("\n"),
    );
  });

  it("writes a non-UTF-8 value byte for byte", () => {
    const bytes = formatDetailed({ ...entry, value: Buffer.from([0xff, 0x00]) }, false);
    expect(bytes.subarray(-2)).toEqual(Buffer.from([0xff, 0x00]));
  });

  it("shows the session and a base64 value when asked", () => {
    const text = formatDetailed({ ...entry, session: "abc" }, true).toString();
    expect(text).toContain("Session          abc");
    expect(text.endsWith("Value            YmFy")).toBe(true);
  });
});

describe("formatTable", () => {
  it("aligns columns with two spaces and leaves the last column unpadded", () => {
    expect(
      formatTable([
        ["Node", "ID", "State"],
        ["server-one", "1", "leader"],
        ["s2", "22", "follower"],
      ]),
    ).toBe("Node        ID  State\nserver-one  1   leader\ns2          22  follower");
  });
});

describe("Go path helpers", () => {
  it("cleans as path.Clean", () => {
    const cases: [string, string][] = [
      ["", "."],
      ["a//b/./c/", "a/b/c"],
      ["/../a", "/a"],
      ["../a/../../b", "../../b"],
      ["a/..", "."],
    ];
    for (const [input, out] of cases) expect(cleanPath(input), input).toBe(out);
  });

  it("joins as path.Join", () => {
    expect(joinPath("", "")).toBe("");
    expect(joinPath("", "a/b/")).toBe("a/b");
    expect(joinPath("pre", "/a")).toBe("pre/a");
    expect(joinPath("", "/x")).toBe("/x");
    expect(joinPath("service", ".lock")).toBe("service/.lock");
  });
});
