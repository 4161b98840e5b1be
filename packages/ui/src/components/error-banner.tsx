import { ApiError, describeError, missingPrivilege } from "../api/errors";

interface Props {
  error: unknown;
  /** The privilege the view needs, named when a 403's reason does not say which one was missing. */
  needs?: string;
}

/** An API error with its reason; a 403 says which privilege the token lacks and where to log in. */
export function ErrorBanner({ error, needs }: Props) {
  if (error === undefined || error === null) return null;
  if (error instanceof ApiError && error.status === 403) {
    const missing = missingPrivilege(error.reason);
    const privilege = missing?.privilege ?? needs;
    return (
      <div class="banner banner-denied" role="alert">
        <strong>Permission denied.</strong>{" "}
        {privilege ? (
          <>
            This needs a token with <code>{privilege}</code>
            {missing?.resource !== undefined ? (
              <>
                {" "}
                on <code>{missing.resource}</code>
              </>
            ) : null}
            .{" "}
          </>
        ) : null}
        <a href="#/acl">Log in with a token</a> that grants it, or ask an operator.{" "}
        <small>({error.reason})</small>
      </div>
    );
  }
  return (
    <div class="banner banner-error" role="alert">
      <strong>Request failed</strong> {describeError(error)}
    </div>
  );
}
