import "../forms.css";
import { useState } from "preact/hooks";
import { api } from "../../api/client";
import { useBlocking } from "../../api/hooks";
import { href, v1 } from "../../api/paths";
import { ErrorBanner } from "../../components/error-banner";
import { HealthBadge } from "../../components/health";
import { Loading, PagedList, Pairs } from "../../components/list";
import { worst } from "../../lib/health";
import type { ViewProps } from "../../router";

interface PreparedQuery {
  ID: string;
  Name: string;
  Session?: string;
  Service: { Service: string; OnlyPassing?: boolean; Tags?: string[] | null; Failover?: unknown };
  Template?: { Type?: string };
  DNS?: { TTL?: string };
}

interface ExecuteResult {
  Service: string;
  Datacenter: string;
  Failovers: number;
  Nodes: {
    Node: { Node: string; Address: string };
    Service: { ID: string; Service: string; Address: string; Port: number; Tags?: string[] | null };
    Checks: { CheckID: string; Status: string }[];
  }[];
}

/** `#/queries` lists prepared queries (live); `#/queries/<id>` reads one and executes it. */
export default function QueriesView({ params }: ViewProps) {
  const id = params.id ?? "";
  return id === "" ? <QueryList /> : <OneQuery id={id} />;
}

function QueryList() {
  const list = useBlocking<PreparedQuery[] | null>(v1("query"));
  return (
    <section>
      <h1>Prepared queries</h1>
      <ErrorBanner error={list.error} needs="query:read" />
      {list.data === undefined ? (
        list.error ? null : (
          <Loading what="prepared queries" />
        )
      ) : (
        <PagedList
          label="Prepared queries"
          items={list.data ?? []}
          keyOf={(q) => q.ID}
          empty="No prepared queries."
          render={(q) => (
            <>
              <a class="name" href={href("queries", q.ID)}>
                {q.Name || q.ID}
              </a>
              <span class="meta">
                service {q.Service.Service}
                {q.Template?.Type ? ` · template (${q.Template.Type})` : ""}
              </span>
            </>
          )}
        />
      )}
    </section>
  );
}

function OneQuery({ id }: { id: string }) {
  const query = useBlocking<PreparedQuery[] | null>(v1("query", id));
  const q = query.data?.[0];
  const [result, setResult] = useState<ExecuteResult>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  async function execute() {
    setBusy(true);
    try {
      const res = await api<ExecuteResult>(v1("query", id, "execute"));
      setResult(res.data);
      setError(undefined);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <section>
      <p>
        <a href="#/queries">Prepared queries</a> /
      </p>
      <h1>{q?.Name || id}</h1>
      <ErrorBanner error={query.error} needs="query:read" />
      {query.data === undefined && !query.error ? <Loading what="the query" /> : null}
      {q ? (
        <>
          <Pairs
            label="Query"
            pairs={{
              ID: q.ID,
              Service: q.Service.Service,
              "Only passing": q.Service.OnlyPassing ? "yes" : "no",
              Tags: (q.Service.Tags ?? []).join(", ") || "any",
              ...(q.Template?.Type ? { Template: q.Template.Type } : {}),
              ...(q.Session ? { Session: q.Session } : {}),
            }}
          />
          <details>
            <summary>Definition (JSON)</summary>
            <pre>{JSON.stringify(q, null, 2)}</pre>
          </details>
          <div class="actions">
            <button type="button" onClick={execute} disabled={busy}>
              Execute
            </button>
          </div>
        </>
      ) : null}
      <ErrorBanner error={error} needs="service:read and node:read" />
      {result ? <Results result={result} /> : null}
    </section>
  );
}

function Results({ result }: { result: ExecuteResult }) {
  return (
    <>
      <h2>
        Results: {result.Nodes.length} instance{result.Nodes.length === 1 ? "" : "s"} of {result.Service} in{" "}
        {result.Datacenter}
        {result.Failovers > 0
          ? ` (after ${result.Failovers} failover${result.Failovers === 1 ? "" : "s"})`
          : ""}
      </h2>
      {result.Nodes.length === 0 ? (
        <p class="empty">No instance matched.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Query results">
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">Instance</th>
                <th scope="col">Address</th>
                <th scope="col">Health</th>
              </tr>
            </thead>
            <tbody>
              {result.Nodes.map((n) => (
                <tr key={`${n.Node.Node}/${n.Service.ID}`}>
                  <td>
                    <a href={href("nodes", n.Node.Node)}>{n.Node.Node}</a>
                  </td>
                  <td>{n.Service.ID}</td>
                  <td>
                    {n.Service.Address || n.Node.Address}:{n.Service.Port}
                  </td>
                  <td>
                    <HealthBadge status={worst(n.Checks.map((c) => c.Status))} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
