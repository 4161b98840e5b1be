import { useState } from "preact/hooks";
import { getToken, setToken } from "../../api/token";
import { ErrorBanner } from "../../components/error-banner";
import { Loading } from "../../components/list";
import { useAclState } from "./acl-state";
import { AclsDisabled, AclTabs } from "./tabs";

/** Log in with a token's secret (kept in local storage, sent as X-Consul-Token), see whose it is, log out. */
export function LoginView() {
  const state = useAclState();
  const [secret, setSecret] = useState("");
  const stored = getToken();
  function logIn(e: Event) {
    e.preventDefault();
    setToken(secret.trim());
    setSecret("");
  }
  return (
    <section>
      <h1>Access control</h1>
      <AclTabs current="" />
      {state.kind === "loading" ? <Loading what="the token" /> : null}
      {state.kind === "disabled" ? <AclsDisabled /> : null}
      {state.kind === "error" ? <ErrorBanner error={state.error} /> : null}
      {state.kind === "unknown-token" ? (
        <div class="banner banner-warn" role="alert">
          {stored === ""
            ? "ACLs are enabled and this browser sends no token, so requests use the anonymous token, which is not usable here."
            : "The stored token is not known to the cluster (deleted, expired, or mistyped); log in again."}{" "}
          <small>({state.reason})</small>
        </div>
      ) : null}
      {state.kind === "token" ? (
        <div class="banner banner-ok" role="status" data-testid="logged-in">
          {stored === "" ? "No token stored: requests use the anonymous token" : "Logged in with token"}{" "}
          <code>{state.token.AccessorID}</code>
          {state.token.Description ? <> ({state.token.Description})</> : null}
          {state.token.Policies?.length ? (
            <>, policies: {state.token.Policies.map((p) => p.Name).join(", ")}</>
          ) : null}
          {state.token.Roles?.length ? <>, roles: {state.token.Roles.map((r) => r.Name).join(", ")}</> : null}
          .
        </div>
      ) : null}
      {state.kind !== "disabled" ? (
        <form class="editor" onSubmit={logIn} aria-label="Log in">
          <label>
            Token secret ID
            <input
              type="password"
              autoComplete="off"
              value={secret}
              onInput={(e) => setSecret((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <p class="hint">
            Kept in this browser's local storage and sent with every request as X-Consul-Token.
          </p>
          <div class="actions">
            <button type="submit" disabled={secret.trim() === ""}>
              Log in
            </button>
            {stored !== "" ? (
              <button type="button" onClick={() => setToken("")}>
                Log out
              </button>
            ) : null}
          </div>
        </form>
      ) : null}
    </section>
  );
}
