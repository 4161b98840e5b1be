import { describe, expect, it } from "vitest";
import { prepareAnswer, sendPrepared } from "../../src/http/prepared-answer.js";
import { ViewMemo } from "../../src/http/view-memo.js";

const answer = (text: string) => prepareAnswer(200, text, { "Content-Type": "application/json" });

describe("answer memo", () => {
  it("builds once per view and question, and again for a new view even at the same index", () => {
    const memo = new ViewMemo<ReturnType<typeof answer>>();
    const view = { index: 7 };
    let builds = 0;
    const build = () => {
      builds++;
      return answer(`[${builds}]`);
    };
    const first = memo.get(view, "get\0k", build);
    expect(memo.get(view, "get\0k", build)).toBe(first);
    expect(memo.get(view, "get\0other", build)).not.toBe(first);
    // A restore can bring index 7 back with other data: a different view object is a different answer.
    expect(memo.get({ index: 7 }, "get\0k", build)).not.toBe(first);
    expect(builds).toBe(3);
  });

  it("keeps a question asked again and again while one-off questions go by, within its bound", () => {
    const memo = new ViewMemo<ReturnType<typeof answer>>(8);
    const view = {};
    const builds = new Map<string, number>();
    const ask = (q: string) =>
      memo.get(view, q, () => {
        builds.set(q, (builds.get(q) ?? 0) + 1);
        return answer(q);
      });
    // The memo is full of other questions before the hot one is first asked.
    for (let i = 0; i < 20; i++) ask(`before-${i}`);
    for (let i = 0; i < 1000; i++) {
      ask("hot");
      ask(`once-${i}`);
    }
    expect(builds.get("hot")).toBe(1);
    // At most 8 remembered: the one-off questions of long ago are built again when asked.
    ask("once-0");
    expect(builds.get("once-0")).toBe(2);
    ask("once-999");
    expect(builds.get("once-999")).toBe(1);
  });

  it("sends the prepared bytes and headers as a Response", async () => {
    const res = sendPrepared(prepareAnswer(404, null, { "X-Consul-Index": "3" }));
    expect([res.status, res.headers.get("x-consul-index"), await res.text()]).toEqual([404, "3", ""]);
    const ok = sendPrepared(answer('{"a":1}'));
    expect(await ok.json()).toEqual({ a: 1 });
  });
});
