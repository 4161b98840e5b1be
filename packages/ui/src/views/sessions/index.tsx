import "../forms.css";
import { useState } from "preact/hooks";
import { api } from "../../api/client";
import { useBlocking } from "../../api/hooks";
import { href, v1 } from "../../api/paths";
import { ErrorBanner } from "../../components/error-banner";
import { Loading, PagedList, Pairs } from "../../components/list";
import type { ViewProps } from "../../router";

interface Session {
  ID: string;
  Name: string;
  Node: string;
  Behavior: string;
  TTL: string;
  LockDelay: number;
  NodeChecks?: string[] | null;
  ServiceChecks?: { ID: string }[] | null;
  Checks?: string[] | null;
  CreateIndex: number;
}

/** `#/sessions` picks a node; `#/sessions/<node>` lists its sessions (live) with invalidate. */
export default function SessionsView({ params, query }: ViewProps) {
  const node = params.node ?? "";
  return node === "" ? <NodePicker /> : <NodeSessions node={node} highlight={query.get("id") ?? ""} />;
}

function NodePicker() {
  const nodes = useBlocking<{ Node: string; Address: string }[]>(v1("catalog/nodes"));
  const sessions = useBlocking<Session[]>(v1("session/list"));
  const count = new Map<string, number>();
  for (const s of sessions.data ?? []) count.set(s.Node, (count.get(s.Node) ?? 0) + 1);
  return (
    <section>
      <h1>Sessions</h1>
      <p class="hint">Sessions belong to a node; choose one.</p>
      <ErrorBanner error={nodes.error ?? sessions.error} needs="node:read and session:read" />
      {nodes.data === undefined ? (
        nodes.error ? null : (
          <Loading what="nodes" />
        )
      ) : (
        <PagedList
          label="Nodes"
          items={nodes.data}
          keyOf={(n) => n.Node}
          empty="No nodes in the catalog."
          render={(n) => (
            <>
              <a class="name" href={href("sessions", n.Node)}>
                {n.Node}
              </a>
              <span class="meta">
                {count.get(n.Node) ?? 0} session{count.get(n.Node) === 1 ? "" : "s"}
              </span>
            </>
          )}
        />
      )}
    </section>
  );
}

function lockDelay(nanos: number): string {
  return `${nanos / 1e9}s`;
}

function NodeSessions({ node, highlight }: { node: string; highlight: string }) {
  const sessions = useBlocking<Session[]>(v1("session/node", node));
  const [error, setError] = useState<unknown>();
  const [asking, setAsking] = useState("");
  async function invalidate(id: string) {
    setAsking("");
    try {
      await api(v1("session/destroy", id), { method: "PUT" });
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  }
  return (
    <section>
      <p>
        <a href="#/sessions">Sessions</a> /
      </p>
      <h1>Sessions of {node}</h1>
      <p>
        <a href={href("nodes", node)}>The node</a>
      </p>
      <ErrorBanner error={sessions.error ?? error} needs="session:read on the node" />
      {sessions.data === undefined ? (
        sessions.error ? null : (
          <Loading what="sessions" />
        )
      ) : (
        <PagedList
          label={`Sessions of ${node}`}
          items={sessions.data}
          keyOf={(s) => s.ID}
          empty="This node holds no sessions."
          render={(s) => (
            <div class={s.ID === highlight ? "card wide highlight" : "card wide"}>
              <h3>{s.Name || s.ID}</h3>
              <Pairs
                label={`Session ${s.ID}`}
                pairs={{
                  ID: s.ID,
                  Behavior: s.Behavior,
                  TTL: s.TTL || "none",
                  "Lock delay": lockDelay(s.LockDelay),
                  Checks:
                    [...(s.NodeChecks ?? s.Checks ?? []), ...(s.ServiceChecks ?? []).map((c) => c.ID)].join(
                      ", ",
                    ) || "none",
                  "Create index": String(s.CreateIndex),
                }}
              />
              {asking === s.ID ? (
                <p role="alert">
                  Invalidate this session? Its locks are released (or its keys deleted, by its behavior).{" "}
                  <button type="button" class="danger" onClick={() => invalidate(s.ID)}>
                    Invalidate
                  </button>{" "}
                  <button type="button" onClick={() => setAsking("")}>
                    Cancel
                  </button>
                </p>
              ) : (
                <button type="button" class="danger" onClick={() => setAsking(s.ID)}>
                  Invalidate…
                </button>
              )}
            </div>
          )}
        />
      )}
    </section>
  );
}
