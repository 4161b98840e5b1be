// (c) Locks through sessions and ?acquire. Each client owns a session (TTL, lock-delay, behavior release),
// renews it before each attempt, holds the lock briefly when it gets it, then releases. A release answering
// anything but true means the session (and so the lock) was lost meanwhile: the client drops that session
// and makes a new one. Holds are checked for mutual exclusion per lock (see check/lock.ts).

import { sleep } from "../../../scripts/lib/wait.js";
import { checkLocks, type Hold, holdInterval } from "../check/lock.js";
import { Client, putKey, type Workload, type WorkloadContext, type WorkloadVerdict } from "./workload.js";

const LOCK_DELAY_MS = 3000;

export function lockWorkload(ctx: WorkloadContext, clients = 3, locks = 1): Workload {
  const holds: Hold[] = [];
  const events: unknown[] = [];
  let lostSessions = 0;

  async function createSession(client: Client): Promise<string | undefined> {
    const r = await client.call(
      "PUT",
      "/v1/session/create",
      JSON.stringify({ TTL: "10s", LockDelay: `${LOCK_DELAY_MS}ms`, Behavior: "release" }),
    );
    if (r.kind !== "reply" || r.status !== 200) return undefined;
    const parsed: unknown = JSON.parse(r.body);
    const id = typeof parsed === "object" && parsed !== null ? (parsed as { ID?: unknown }).ID : undefined;
    return typeof id === "string" ? id : undefined;
  }

  async function abandon(client: Client, session: string): Promise<void> {
    lostSessions++;
    await client.call("PUT", `/v1/session/destroy/${session}`);
  }

  async function runClient(id: number, running: () => boolean): Promise<void> {
    const client = new Client(id + 200, ctx);
    let session: string | undefined;
    while (running()) {
      session ??= await createSession(client);
      if (session === undefined) {
        await sleep(200);
        continue;
      }
      const renew = await client.call("PUT", `/v1/session/renew/${session}`);
      if (renew.kind === "reply" && renew.status === 404) {
        lostSessions++;
        session = undefined;
        continue;
      }
      const lock = `${ctx.prefix}/lock/${ctx.rng.int(0, locks - 1)}`;
      const acquireInvoke = ctx.now();
      const acquired = await putKey(client, `${lock}?acquire=${session}`, String(id));
      if (acquired === false) {
        await sleep(ctx.rng.int(20, 150));
        continue;
      }
      if (acquired === undefined) {
        // It may hold the lock without knowing: give the session up (its locks go after lock-delay).
        await abandon(client, session);
        session = undefined;
        continue;
      }
      const acquireAck = ctx.now();
      await sleep(ctx.rng.int(20, 300));
      const releaseInvoke = ctx.now();
      const released = await putKey(client, `${lock}?release=${session}`);
      const lost = released !== true;
      const interval = holdInterval(acquireAck, releaseInvoke, lost, acquireInvoke, LOCK_DELAY_MS);
      holds.push({ lock, client: id, session, ...interval });
      events.push({ lock, client: id, session, acquireInvoke, acquireAck, releaseInvoke, released });
      if (lost) {
        await abandon(client, session);
        session = undefined;
      }
    }
  }

  return {
    name: "lock",
    run: async (running) => {
      await Promise.all(Array.from({ length: clients }, (_, i) => runClient(i, running)));
    },
    finish: async () => {},
    check(): WorkloadVerdict {
      const v = checkLocks(holds);
      return {
        workload: "lock",
        valid: v.valid,
        summary: `${v.holds} holds, ${lostSessions} sessions lost or abandoned; ${v.overlaps.length} overlapping holds`,
        details: v,
      };
    },
    history: () => events,
  };
}
