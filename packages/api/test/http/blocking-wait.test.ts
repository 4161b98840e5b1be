// The wait a blocking query's URL asks for, as a client agent's tunnel and a forward to another datacenter
// read it without the request itself.
import { describe, expect, it } from "vitest";
import { blockingWaitMs } from "../../src/http/read-options.js";

describe("blockingWaitMs", () => {
  it("is undefined for a request that does not block", () => {
    for (const url of [
      "/v1/kv/a",
      "/v1/kv/a?recurse",
      "/v1/kv/a?index=0",
      "/v1/kv/a?index=",
      "/v1/kv/a?index=x",
    ])
      expect(blockingWaitMs(url)).toBeUndefined();
  });

  it("takes the wait, Consul's default 5 minutes without one, and at most 10", () => {
    expect(blockingWaitMs("/v1/kv/a?index=7")).toBe(300_000);
    expect(blockingWaitMs("/v1/kv/a?index=7&wait=")).toBe(300_000);
    expect(blockingWaitMs("/v1/kv/a?wait=16s&index=007")).toBe(16_000);
    expect(blockingWaitMs("/v1/health/service/web?index=7&wait=1h")).toBe(600_000);
  });

  it("is NaN for a wait the server refuses", () => {
    expect(blockingWaitMs("/v1/kv/a?index=7&wait=soon")).toBeNaN();
  });
});
