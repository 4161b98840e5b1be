import { kvHref } from "./kv-api";
import { crumbs } from "./tree";

/** The folders leading to a key, each a link; names shown as text. */
export function KvCrumbs({ keyOrPrefix }: { keyOrPrefix: string }) {
  const trail = crumbs(keyOrPrefix);
  return (
    <nav aria-label="Folders" class="crumbs">
      {trail.map((c, i) => (
        <span key={c.prefix}>
          {i > 0 ? " / " : null}
          <a href={kvHref(c.prefix)}>{c.name === "" && i > 0 ? "(empty)" : c.name}</a>
        </span>
      ))}
      {" /"}
    </nav>
  );
}
