// What the WAN workload observed, judged: local writes never fail; a request for another datacenter that
// overlaps a WAN cut either succeeds or fails cleanly (a 500 with an error text, within the forwarding
// deadline, never a hang); once a cut has healed, requests across datacenters work again within
// `recoveryMs` and every acknowledged write is read back (nothing lost).

export interface WanOp {
  readonly kind: "local-write" | "remote-read";
  /** The datacenter the request was sent to an agent of, and the one it names (`?dc=`; itself for local). */
  readonly from: string;
  readonly to: string;
  readonly agent: string;
  readonly key: string;
  /** ms since the run began. */
  readonly start: number;
  readonly end: number;
  /** The HTTP status, or 0 when no answer came (timeout, refused, reset). */
  readonly status: number;
  readonly body: string;
}

export interface WanCut {
  readonly dc: string;
  readonly at: number;
  readonly healedAt: number;
}

export interface WanVerdict {
  readonly valid: boolean;
  readonly anomalies: readonly string[];
  readonly stats: Readonly<Record<string, number>>;
  /** Per cut: ms from the heal until requests across the cut succeeded again (undefined: never seen). */
  readonly recoveries: readonly { dc: string; ms: number | undefined }[];
}

export interface WanCheckOptions {
  /** The forwarding deadline of a request that does not block, plus slack for a loaded machine. */
  readonly cleanFailureMs: number;
  /** How long after a heal requests across it may still fail. */
  readonly recoveryMs: number;
}

const CLEAN_ERROR = /rpc error|No path to datacenter/;

export function checkWan(ops: readonly WanOp[], cuts: readonly WanCut[], o: WanCheckOptions): WanVerdict {
  const anomalies: string[] = [];
  const stats: Record<string, number> = {};
  const count = (name: string) => {
    stats[name] = (stats[name] ?? 0) + 1;
  };
  const describe = (op: WanOp) =>
    `${op.kind} ${op.key} via ${op.agent} (${op.from} -> ${op.to}) at ${(op.start / 1000).toFixed(1)}s: ` +
    `${op.status === 0 ? "no answer" : op.status} ${op.body.slice(0, 120)} after ${Math.round(op.end - op.start)} ms`;
  /** The cut this op's datacenters were on two sides of while it ran, if any. */
  const across = (op: WanOp) =>
    cuts.find((c) => (c.dc === op.from) !== (c.dc === op.to) && op.start < c.healedAt && op.end > c.at);
  const recentlyHealed = (op: WanOp) =>
    cuts.some(
      (c) =>
        (c.dc === op.from) !== (c.dc === op.to) &&
        op.start >= c.healedAt &&
        op.start < c.healedAt + o.recoveryMs,
    );
  for (const op of ops) {
    const ok = op.status === 200;
    if (op.kind === "local-write") {
      count(ok ? "local writes ok" : "local writes failed");
      if (!ok) anomalies.push(`a local write failed: ${describe(op)}`);
      continue;
    }
    const cut = across(op);
    if (cut) {
      const clean = op.status === 500 && CLEAN_ERROR.test(op.body) && op.end - op.start <= o.cleanFailureMs;
      count(
        ok
          ? "reads across a cut ok"
          : clean
            ? "reads across a cut failed cleanly"
            : "reads across a cut failed uncleanly",
      );
      if (!ok && !clean) anomalies.push(`a request across the WAN cut did not fail cleanly: ${describe(op)}`);
      continue;
    }
    if (ok) {
      count("remote reads ok");
    } else if (recentlyHealed(op)) {
      count("remote reads failed while healing");
    } else {
      count("remote reads failed");
      anomalies.push(
        op.status === 404
          ? `an acknowledged write was not found through ?dc=: ${describe(op)}`
          : `a request across datacenters failed with the WAN whole: ${describe(op)}`,
      );
    }
  }
  const recoveries = cuts.map((c, i) => {
    const next = cuts[i + 1]?.at ?? Number.POSITIVE_INFINITY;
    const involved = ops.filter((op) => op.kind === "remote-read" && (c.dc === op.from) !== (c.dc === op.to));
    const after = involved
      .filter((op) => op.start >= c.healedAt && op.end < next)
      .sort((a, b) => a.start - b.start);
    // Recovered at the start of the first success from which on every request across it succeeded.
    let recoveredAt: number | undefined;
    for (const op of after) {
      if (op.status === 200) recoveredAt ??= op.start;
      else recoveredAt = undefined;
    }
    return { dc: c.dc, ms: recoveredAt === undefined ? undefined : Math.round(recoveredAt - c.healedAt) };
  });
  return { valid: anomalies.length === 0, anomalies, stats, recoveries };
}
