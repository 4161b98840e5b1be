// The harnesses' port picker (scripts/lib/ports.ts) must not hand out a port that fetch() refuses: tests
// reach agents with fetch, and an agent given 10080 served while every request to it failed at once.
import { describe, expect, it } from "vitest";
import { reachableByFetch } from "../../../scripts/lib/ports.js";

describe("harness ports", () => {
  it("skips 10080, which fetch refuses as a bad port", async () => {
    await expect(fetch("http://127.0.0.1:10080/")).rejects.toMatchObject({ cause: { message: "bad port" } });
    expect(reachableByFetch(10_080)).toBe(false);
    expect(reachableByFetch(10_081)).toBe(true);
  });
});
