import { useEffect, useState } from "preact/hooks";
import { Datacenter, useFetch } from "./api/hooks";
import { v1 } from "./api/paths";
import { Select } from "./components/list";
import { RouteView, resolve, useLocation } from "./router";
import { HOME, routes } from "./routes";

/** The shell: navigation, the datacenter selector, and the routed view. */
export function App() {
  const location = useLocation();
  const [dc, setDc] = useState("");
  const match = resolve(routes, location);
  useEffect(() => {
    if (!match) window.location.replace(`#${HOME}`);
  }, [match]);
  const section = location.path[0] ?? "";
  useEffect(() => {
    const nav = routes.find((r) => r.pattern.split("/")[1] === section && r.nav);
    document.title = nav?.nav ? `${nav.nav} · Cairn` : "Cairn";
  }, [section]);
  return (
    <Datacenter.Provider value={dc}>
      <button type="button" class="skip" onClick={skipToMain}>
        Skip to content
      </button>
      <header class="top">
        <a class="brand" href={`#${HOME}`}>
          Cairn
        </a>
        <nav aria-label="Main">
          <ul>
            {routes
              .filter((r) => r.nav)
              .map((r) => {
                const first = r.pattern.split("/")[1] ?? "";
                return (
                  <li key={r.pattern}>
                    <a href={`#/${first}`} aria-current={first === section ? "page" : undefined}>
                      {r.nav}
                    </a>
                  </li>
                );
              })}
          </ul>
        </nav>
        <DatacenterSelect value={dc} onChange={setDc} />
      </header>
      <main id="main" tabIndex={-1}>
        {match ? <RouteView route={match.route} params={match.params} query={location.query} /> : null}
      </main>
    </Datacenter.Provider>
  );
}

function skipToMain() {
  document.getElementById("main")?.focus();
}

/** Shown once there is more than one datacenter to choose from. */
function DatacenterSelect({ value, onChange }: { value: string; onChange(dc: string): void }) {
  const { data } = useFetch<string[]>(v1("catalog/datacenters"));
  if (!data || data.length < 2) return null;
  return (
    <Select
      label="Datacenter"
      value={value}
      onChange={onChange}
      options={[["", "This agent's"], ...data.map((d) => [d, d] as const)]}
    />
  );
}
