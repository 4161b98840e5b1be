import { describe, expect, it } from "vitest";
import { LogHub } from "../../src/monitor/log-hub.js";

describe("log hub", () => {
  it("stdout keeps the configured level while a monitor gets the more detailed lines it asked for", () => {
    const out: string[] = [];
    const hub = new LogHub("info", false, { write: (t: string) => out.push(t) });
    const child = hub.logger.child({ component: "raft" });
    const seen: string[] = [];
    child.debug("before any monitor");
    const stop = hub.subscribe("debug", false, (line) => seen.push(line));
    child.debug({ term: 2 }, "debug detail");
    child.info("an info line");
    stop();
    child.debug("after the monitor left");
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/\[DEBUG\] agent\.raft: debug detail: term=2\n$/);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/\[INFO\] {2}agent\.raft: an info line\n$/);
    expect(child.level).toBe("info");
  });

  it("JSON subscribers and log_json stdout get Consul's JSON shape; setLevel (reload) changes what stdout gets", () => {
    const out: string[] = [];
    const hub = new LogHub("info", true, { write: (t: string) => out.push(t) });
    const json: string[] = [];
    const stop = hub.subscribe("warn", true, (line) => json.push(line));
    hub.logger.info("quiet");
    hub.logger.child({ component: "raft" }).warn({ term: 3 }, "loud");
    stop();
    expect(json).toHaveLength(1);
    const line = JSON.parse(json[0]!) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(["@level", "@message", "@module", "@timestamp", "term"]);
    expect(line).toMatchObject({ "@level": "warn", "@message": "loud", "@module": "agent.raft", term: 3 });
    expect(line["@timestamp"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    hub.setLevel("error");
    hub.logger.warn("now hidden");
    const stdout = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(stdout.map((l) => [l["@level"], l["@module"], l["@message"]])).toEqual([
      ["info", "agent", "quiet"],
      ["warn", "agent.raft", "loud"],
    ]);
  });
});
