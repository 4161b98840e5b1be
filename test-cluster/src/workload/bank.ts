// (d) Bank transfers through /v1/txn: a transfer reads every account (one consistent recurse read), then
// commits check-index on both accounts plus both new balances in one transaction. Every read, including the
// final one, must show the initial total.

import { sleep } from "../../../scripts/lib/wait.js";
import { type BankRead, checkBank } from "../check/bank.js";
import {
  Client,
  parseKvEntries,
  type Workload,
  type WorkloadContext,
  type WorkloadVerdict,
} from "./workload.js";

const ACCOUNTS = 5;
const INITIAL = 20;

export function bankWorkload(ctx: WorkloadContext, clients = 2): Workload {
  const prefix = `${ctx.prefix}/bank`;
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `${prefix}/${i}`);
  const total = ACCOUNTS * INITIAL;
  const reads: BankRead[] = [];
  const transfers = { ok: 0, conflict: 0, unknown: 0 };
  let initialized = false;

  const b64 = (n: number) => Buffer.from(String(n)).toString("base64");

  async function readAll(
    client: Client,
  ): Promise<Map<string, { balance: number; index: number }> | undefined> {
    const invoke = ctx.now();
    const r = await client.call("GET", `/v1/kv/${prefix}/?recurse&consistent`);
    if (r.kind !== "reply" || (r.status !== 200 && r.status !== 404)) return undefined;
    const entries = r.status === 404 ? [] : parseKvEntries(r.body);
    const balances: Record<string, number> = {};
    const state = new Map<string, { balance: number; index: number }>();
    for (const e of entries) {
      balances[e.key] = Number(e.value);
      state.set(e.key, { balance: Number(e.value), index: e.modifyIndex });
    }
    reads.push({ time: invoke, balances });
    return state;
  }

  async function initialize(): Promise<void> {
    const client = new Client(300, ctx);
    const ops = accounts.map((key) => ({ KV: { Verb: "set", Key: key, Value: b64(INITIAL) } }));
    for (let attempt = 0; attempt < 60; attempt++) {
      const r = await client.call("PUT", "/v1/txn", JSON.stringify(ops));
      if (r.kind === "reply" && r.status === 200) {
        initialized = true;
        return;
      }
      await sleep(500);
    }
    throw new Error("bank: could not create the accounts");
  }

  async function runClient(id: number, running: () => boolean): Promise<void> {
    const client = new Client(id + 300, ctx);
    while (running()) {
      const state = await readAll(client);
      if (state === undefined || ctx.rng.next() < 0.3) continue;
      const from = ctx.rng.pick(accounts);
      const to = ctx.rng.pick(accounts.filter((a) => a !== from));
      const a = state.get(from);
      const b = state.get(to);
      if (!a || !b || a.balance <= 0) continue;
      const amount = ctx.rng.int(1, Math.min(5, a.balance));
      const ops = [
        { KV: { Verb: "check-index", Key: from, Index: a.index } },
        { KV: { Verb: "check-index", Key: to, Index: b.index } },
        { KV: { Verb: "set", Key: from, Value: b64(a.balance - amount) } },
        { KV: { Verb: "set", Key: to, Value: b64(b.balance + amount) } },
      ];
      const r = await client.call("PUT", "/v1/txn", JSON.stringify(ops));
      if (r.kind === "reply" && r.status === 200) transfers.ok++;
      else if (r.kind === "reply" && r.status === 409) transfers.conflict++;
      else transfers.unknown++;
    }
  }

  return {
    name: "bank",
    run: async (running) => {
      await initialize();
      await Promise.all(Array.from({ length: clients }, (_, i) => runClient(i, running)));
    },
    finish: async () => {
      if (!initialized) return;
      const client = new Client(300, ctx);
      for (let attempt = 0; attempt < 60; attempt++) {
        if ((await readAll(client)) !== undefined) return;
        await sleep(500);
      }
    },
    check(): WorkloadVerdict {
      const v = checkBank(reads, accounts, total);
      return {
        workload: "bank",
        valid: v.valid,
        summary: `${v.reads} reads, transfers ${transfers.ok} ok / ${transfers.conflict} conflicts / ${transfers.unknown} unknown; ${v.bad.length} bad reads`,
        details: { ...v, transfers },
      };
    },
    history: () => reads,
  };
}
