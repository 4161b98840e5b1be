import { describe, expect, it } from "vitest";
import { decodeExport } from "../src/commands/kv/import.js";

describe("decodeExport", () => {
  it("reads consul's export format with exact flags and case-insensitive fields", () => {
    expect(
      decodeExport('[{"key":"a","flags":18446744073709551615,"value":"eA=="},{"Key":"b","Value":""}]'),
    ).toEqual([
      { key: "a", flags: 18446744073709551615n, value: "eA==" },
      { key: "b", flags: 0n, value: "" },
    ]);
  });

  it("rejects what consul's decoder rejects", () => {
    expect(() => decodeExport('{"key":"a"}')).toThrow(/JSON array/);
    expect(() => decodeExport('[{"key":"a","flags":-1}]')).toThrow(/flags/);
    expect(() => decodeExport('[{"key":"a","flags":18446744073709551616}]')).toThrow(/flags/);
    expect(() => decodeExport('[{"key":1}]')).toThrow(/key/);
  });
});
