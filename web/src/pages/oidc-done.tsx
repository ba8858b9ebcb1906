/**
 * Where the server sends the browser back after an OIDC login, with the new key in the query: the key leaves
 * the address bar (and the history) at once, then the page learns whose key it is and signs in with it.
 */
import { useEffect, useState } from "preact/hooks";
import { api, errorText, ok } from "../api";
import { ErrorNote, Loading, PageTitle } from "../ui";
import { finishSignIn } from "../components/sign-in-kit";

export default function OidcDone() {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const query = new URLSearchParams(location.search);
    const key = query.get("api_key");
    const next = query.get("next");
    query.delete("api_key");
    // Not through the router: the page is not to render again, only the address to lose the key.
    history.replaceState(history.state, "", `${location.pathname}${query.size ? `?${query}` : ""}`);
    if (!key) {
      setError("The sign-in did not finish: the server sent no key back. Sign in again.");
      return;
    }
    ok(api.GET("/api/data/get_user", { headers: { "Api-Key": key } }))
      .then((who) => finishSignIn(key, who.retrieved_id, next))
      .catch((err) => setError(errorText(err)));
  }, []);
  return (
    <>
      <PageTitle title="Signing in">Signing in</PageTitle>
      {error ? (
        <>
          <ErrorNote error={error} />
          <p>
            <a href="/sign-in">Back to sign in</a>
          </p>
        </>
      ) : (
        <Loading what="your account" />
      )}
    </>
  );
}
