import "../forms.css";
import { useBlocking } from "../../api/hooks";
import { href, v1 } from "../../api/paths";
import { ErrorBanner } from "../../components/error-banner";
import { Loading, PagedList } from "../../components/list";
import type { ViewProps } from "../../router";

/** The kinds Cairn stores, as Consul names them. */
const KINDS: readonly [kind: string, about: string][] = [
  ["service-defaults", "per-service protocol and proxy settings"],
  ["proxy-defaults", "mesh-wide proxy settings (one entry, global)"],
  ["service-router", "HTTP routes of the discovery chain"],
  ["service-splitter", "traffic splits of the discovery chain"],
  ["service-resolver", "subsets, redirects and failover of the discovery chain"],
  ["service-intentions", "which services may connect"],
  ["ingress-gateway", "listeners of an ingress gateway"],
  ["terminating-gateway", "services behind a terminating gateway"],
];

const CHAIN_KINDS = new Set(["service-router", "service-splitter", "service-resolver", "service-defaults"]);

interface Entry {
  Kind: string;
  Name: string;
  ModifyIndex?: number;
}

/** `#/config` lists kinds, `#/config/<kind>` its entries (live), `#/config/<kind>/<name>` one entry's JSON. */
export default function ConfigView({ params }: ViewProps) {
  const [kind = "", ...rest] = (params.rest ?? "").split("/");
  const name = rest.join("/");
  if (kind === "") return <Kinds />;
  if (name === "") return <KindEntries kind={kind} />;
  return <OneEntry kind={kind} name={name} />;
}

function Kinds() {
  return (
    <section>
      <h1>Config entries</h1>
      <ul class="rows" aria-label="Kinds">
        {KINDS.map(([kind, about]) => (
          <li class="row" key={kind}>
            <a class="name" href={href("config", kind)}>
              {kind}
            </a>
            <span class="meta">{about}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function KindEntries({ kind }: { kind: string }) {
  const list = useBlocking<Entry[] | null>(v1("config", kind));
  return (
    <section>
      <p>
        <a href="#/config">Config entries</a> /
      </p>
      <h1>{kind}</h1>
      <ErrorBanner error={list.error} needs="service:read or operator:read" />
      {list.data === undefined ? (
        list.error ? null : (
          <Loading what="entries" />
        )
      ) : (
        <PagedList
          label={`${kind} entries`}
          items={list.data ?? []}
          keyOf={(e) => e.Name}
          empty={`No ${kind} entries.`}
          render={(e) => (
            <>
              <a class="name" href={href("config", kind, e.Name)}>
                {e.Name}
              </a>
              {CHAIN_KINDS.has(kind) ? <a href={href("chain", e.Name)}>discovery chain</a> : null}
            </>
          )}
        />
      )}
    </section>
  );
}

function OneEntry({ kind, name }: { kind: string; name: string }) {
  const entry = useBlocking<Entry | null>(v1("config", kind, name), {}, "5m", { allowNotFound: true });
  return (
    <section>
      <p>
        <a href="#/config">Config entries</a> / <a href={href("config", kind)}>{kind}</a> /
      </p>
      <h1>{name}</h1>
      {CHAIN_KINDS.has(kind) ? (
        <p>
          <a href={href("chain", name)}>Discovery chain of {name}</a>
        </p>
      ) : null}
      <ErrorBanner error={entry.error} needs="service:read or operator:read" />
      {entry.data === undefined ? (
        entry.error ? null : (
          <Loading what="the entry" />
        )
      ) : entry.data === null ? (
        <p class="empty">No such entry.</p>
      ) : (
        <>
          <h2>JSON</h2>
          <pre>{JSON.stringify(entry.data, null, 2)}</pre>
        </>
      )}
    </section>
  );
}
