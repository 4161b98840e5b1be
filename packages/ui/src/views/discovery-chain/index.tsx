import "../forms.css";
import { useState } from "preact/hooks";
import { useBlocking } from "../../api/hooks";
import { href, v1 } from "../../api/paths";
import { ErrorBanner } from "../../components/error-banner";
import { Loading, PagedList } from "../../components/list";
import type { ViewProps } from "../../router";
import { BOX_HEIGHT, BOX_WIDTH, type ChainLayout, type CompiledChain, layoutChain } from "./layout";

/** `#/chain` picks a service; `#/chain/<service>` draws its compiled discovery chain (live). */
export default function ChainView({ params }: ViewProps) {
  const service = params.service ?? "";
  return service === "" ? <ServicePicker /> : <Chain service={service} />;
}

function ServicePicker() {
  const services = useBlocking<Record<string, string[]>>(v1("catalog/services"));
  const [name, setName] = useState("");
  function go(e: Event) {
    e.preventDefault();
    if (name.trim() !== "") window.location.hash = href("chain", name.trim());
  }
  return (
    <section>
      <h1>Discovery chain</h1>
      <form class="editor" onSubmit={go} aria-label="Show a service's chain">
        <label>
          Service name <small>(any name: a chain does not need registered instances)</small>
          <input value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <div class="actions">
          <button type="submit">Show chain</button>
        </div>
      </form>
      <ErrorBanner error={services.error} needs="service:read" />
      {services.data === undefined ? (
        services.error ? null : (
          <Loading what="services" />
        )
      ) : (
        <PagedList
          label="Services"
          items={Object.keys(services.data).sort()}
          keyOf={(s) => s}
          empty="No services registered."
          render={(s) => (
            <a class="name" href={href("chain", s)}>
              {s}
            </a>
          )}
        />
      )}
    </section>
  );
}

function Chain({ service }: { service: string }) {
  const chain = useBlocking<{ Chain: CompiledChain }>(v1("discovery-chain", service));
  const layout = chain.data ? layoutChain(chain.data.Chain) : undefined;
  return (
    <section>
      <p>
        <a href="#/chain">Discovery chain</a> /
      </p>
      <h1>{service}</h1>
      <ErrorBanner error={chain.error} needs={`service:read on "${service}"`} />
      {chain.data === undefined ? (
        chain.error ? null : (
          <Loading what="the chain" />
        )
      ) : (
        <>
          <p class="hint">
            Protocol {chain.data.Chain.Protocol}, starts at <code>{chain.data.Chain.StartNode}</code>.
          </p>
          {layout ? <ChainGraph layout={layout} service={service} /> : null}
        </>
      )}
    </section>
  );
}

const PAD = 16;
const MAX_CHARS = 30;

function clip(text: string): string {
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 1)}…` : text;
}

function ChainGraph({ layout, service }: { layout: ChainLayout; service: string }) {
  const byId = new Map(layout.boxes.map((b) => [b.id, b]));
  return (
    <div class="chain">
      <svg
        width={layout.width + 2 * PAD}
        height={layout.height + 2 * PAD}
        viewBox={`${-PAD} ${-PAD} ${layout.width + 2 * PAD} ${layout.height + 2 * PAD}`}
        role="img"
        aria-label={`Discovery chain of ${service}`}
      >
        {layout.edges.map((e) => {
          const mid = (e.x1 + e.x2) / 2;
          return (
            <g key={`${e.from}>${e.to}:${e.kind}`}>
              <path
                class={`edge-${e.kind}`}
                d={`M${e.x1},${e.y1} C${mid},${e.y1} ${mid},${e.y2} ${e.x2},${e.y2}`}
              />
              {e.label ? (
                <text class="edge-label" x={e.x2 - 6} y={e.y2 - 6} text-anchor="end">
                  {clip(e.label)}
                </text>
              ) : null}
            </g>
          );
        })}
        {layout.boxes.map((b) => (
          <g key={b.id} class={`box-${b.kind}`} transform={`translate(${b.x},${b.y})`}>
            <title>{`${b.kind}: ${b.label} (${b.detail})`}</title>
            <rect width={BOX_WIDTH} height={BOX_HEIGHT} rx={6} />
            <text x={10} y={20}>
              {clip(b.label)}
            </text>
            <text class="detail" x={10} y={38}>
              {clip(b.detail)}
            </text>
          </g>
        ))}
      </svg>
      <ul class="sr-only" aria-label="Chain steps">
        {layout.edges.map((e) => (
          <li key={`${e.from}>${e.to}:${e.kind}`}>
            {byId.get(e.from)?.label} → {byId.get(e.to)?.label} ({e.kind}
            {e.label ? `: ${e.label}` : ""})
          </li>
        ))}
      </ul>
    </div>
  );
}
