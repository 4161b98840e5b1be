import { useBlocking } from "../../api/hooks";
import { href, v1 } from "../../api/paths";

interface SessionInfo {
  ID: string;
  Name: string;
  Node: string;
}

/** Who holds the key's lock: the session, its name and node, with a link to the node's sessions. */
export function LockHolder({ session }: { session: string }) {
  const info = useBlocking<SessionInfo[] | null>(v1("session/info", session));
  const s = info.data?.[0];
  const link = s ? `${href("sessions", s.Node)}?id=${encodeURIComponent(session)}` : undefined;
  return (
    <p class="lock" data-testid="lock-holder">
      <span aria-hidden="true">🔒</span> Locked by session{" "}
      {link ? <a href={link}>{s?.Name ? `${s.Name} (${session})` : session}</a> : <code>{session}</code>}
      {s ? ` on node ${s.Node}` : ""}.
    </p>
  );
}
