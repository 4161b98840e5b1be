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

  it("stops remembering past its bound but still answers", () => {
    const memo = new ViewMemo<ReturnType<typeof answer>>(2);
    const view = {};
    for (const q of ["a", "b", "c"]) memo.get(view, q, () => answer(q));
    let rebuilt = false;
    memo.get(view, "c", () => {
      rebuilt = true;
      return answer("c");
    });
    expect(rebuilt).toBe(true);
  });

  it("sends the prepared bytes and headers as a Response", async () => {
    const res = sendPrepared(prepareAnswer(404, null, { "X-Consul-Index": "3" }));
    expect([res.status, res.headers.get("x-consul-index"), await res.text()]).toEqual([404, "3", ""]);
    const ok = sendPrepared(answer('{"a":1}'));
    expect(await ok.json()).toEqual({ a: 1 });
  });
});
