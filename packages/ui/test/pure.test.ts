import { describe, expect, it } from "vitest";
import { missingPrivilege } from "../src/api/errors.js";
import { href, keyPath, queryString, v1 } from "../src/api/paths.js";
import { formatRtt, rttMs } from "../src/lib/coordinates.js";
import { matches, pageOf } from "../src/lib/filter.js";
import { type Check, count, countsByService, statusByNode, worst } from "../src/lib/health.js";
import { matchRoute, parseHash } from "../src/lib/route-match.js";

const check = (
  Node: string,
  ServiceName: string,
  Status: string,
  CheckID = `${ServiceName}-check`,
): Check => ({
  Node,
  CheckID,
  Name: CheckID,
  Status,
  ServiceID: ServiceName === "" ? "" : `${ServiceName}-1`,
  ServiceName,
});

describe("health summaries", () => {
  it("counts and ranks statuses, unknown ones as critical", () => {
    expect(count([{ Status: "passing" }, { Status: "warning" }, { Status: "maintenance" }])).toEqual({
      passing: 1,
      warning: 1,
      critical: 1,
    });
    expect(worst(["passing", "warning"])).toBe("warning");
    expect(worst([])).toBe("passing");
  });

  it("counts a service's checks plus the node checks of the nodes it runs on", () => {
    const counts = countsByService([
      check("n1", "", "critical", "serfHealth"),
      check("n2", "", "passing", "serfHealth"),
      check("n1", "web", "passing"),
      check("n2", "web", "warning"),
      check("n2", "db", "passing"),
    ]);
    expect(counts.get("web")).toEqual({ passing: 2, warning: 1, critical: 1 });
    expect(counts.get("db")).toEqual({ passing: 2, warning: 0, critical: 0 });
    expect(counts.has("")).toBe(false);
  });

  it("gives each node its worst check", () => {
    const status = statusByNode([check("n1", "", "passing", "serfHealth"), check("n1", "web", "warning")]);
    expect(status.get("n1")).toBe("warning");
  });
});

describe("URLs and routes", () => {
  const awkward = "web api ü%#?/x";

  it("encodes names so they round-trip through API paths and hash routes", () => {
    expect(v1("health/service", awkward)).toBe("/v1/health/service/web%20api%20%C3%BC%25%23%3F%2Fx");
    expect(keyPath("a b/c%/d#?/")).toBe("a%20b/c%25/d%23%3F/");
    const link = href("services", awkward);
    const { path } = parseHash(link);
    expect(matchRoute("/services/:name", path)).toEqual({ name: awkward });
  });

  it("keeps a KV key's slashes, dots and trailing slash under a rest pattern", () => {
    for (const key of ["", "a/b", "folder/", "a/../b", "x//y", "ü %#?"]) {
      const { path } = parseHash(href("kv", ...key.split("/")));
      expect(matchRoute("/kv/*key", path)).toEqual({ key });
    }
  });

  it("parses the query and rejects paths that do not match", () => {
    const loc = parseHash("#/services?health=critical&q=a%20b");
    expect(loc.path).toEqual(["services"]);
    expect(loc.query.get("q")).toBe("a b");
    expect(matchRoute("/services/:name", ["services"])).toBeUndefined();
    expect(matchRoute("/services", ["services", "x"])).toBeUndefined();
    expect(parseHash("").path).toEqual([]);
    expect(parseHash("#/bad%zz").path).toEqual(["bad%zz"]);
  });

  it("builds query strings without undefined values, flags bare", () => {
    expect(queryString({ index: 5, wait: "5m", dc: undefined, stale: true, recurse: false })).toBe(
      "?index=5&wait=5m&stale",
    );
    expect(queryString({ filter: 'Service == "a b"' })).toBe("?filter=Service+%3D%3D+%22a+b%22");
    expect(queryString({})).toBe("");
  });
});

describe("403 reasons", () => {
  it("names the missing privilege when the API says it", () => {
    expect(
      missingPrivilege(
        `Permission denied: token with AccessorID 'abc' lacks permission 'service:read' on "web"`,
      ),
    ).toEqual({ privilege: "service:read", resource: "web" });
    expect(missingPrivilege("Permission denied: token lacks permission 'operator:read'")).toEqual({
      privilege: "operator:read",
    });
    expect(missingPrivilege("Permission denied")).toBeUndefined();
  });
});

describe("lists", () => {
  it("matches every search word in any field, case-insensitively", () => {
    expect(matches("WEB blue", ["web-api", "blue"])).toBe(true);
    expect(matches("web red", ["web-api", "blue"])).toBe(false);
    expect(matches("  ", ["x"])).toBe(true);
  });

  it("pages, clamping the page into range", () => {
    const items = Array.from({ length: 250 }, (_, i) => i);
    expect(pageOf(items, 0, 100).rows).toHaveLength(100);
    expect(pageOf(items, 2, 100)).toMatchObject({ page: 2, pages: 3 });
    expect(pageOf(items, 9, 100).rows).toEqual(items.slice(200));
    expect(pageOf([], 3, 100)).toEqual({ rows: [], page: 0, pages: 1 });
  });
});

describe("round-trip estimates", () => {
  const at = (Vec: number[], Height = 0, Adjustment = 0) => ({ Vec, Error: 0.1, Height, Adjustment });

  it("is the Vivaldi distance plus heights, with adjustments when they keep it positive", () => {
    expect(rttMs(at([0, 0]), at([0.003, 0.004]))).toBeCloseTo(5, 6);
    expect(rttMs(at([0]), at([0.001], 0.001))).toBeCloseTo(2, 6);
    expect(rttMs(at([0], 0, 0.001), at([0.001], 0, 0.001))).toBeCloseTo(3, 6);
    expect(rttMs(at([0], 0, -0.01), at([0.001]))).toBeCloseTo(1, 6);
    expect(rttMs(at([0]), at([0, 0]))).toBeUndefined();
    expect(formatRtt(undefined)).toBe("unknown");
    expect(formatRtt(0.5)).toBe("0.500 ms");
  });
});
