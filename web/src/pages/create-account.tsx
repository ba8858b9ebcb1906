/** Self-service sign-up (when an admin switched it on): a new account, then signed in with it. */
import { api, ok } from "../api";
import { PageTitle, ErrorNote, Loading, useLoad } from "../ui";
import { AccountForm } from "../components/sign-in-kit";

export default function CreateAccount() {
  const status = useLoad(() => ok(api.GET("/api/data/self_service_status")), []);
  return (
    <>
      <PageTitle title="Create account">Create account</PageTitle>
      {status.loading && <Loading />}
      <ErrorNote error={status.error} />
      {status.data && !status.data.status ? (
        <p>
          This server does not let people create their own accounts. Ask its admin for one, or <a href="/sign-in">sign in</a>.
        </p>
      ) : (
        status.data && (
          <>
            <AccountForm
              name="Create account"
              submit="Create account"
              create={({ password, ...a }) => ok(api.POST("/api/data/add_login_user", { body: { ...a, hash_pw: password } }))}
            />
            <p>
              Have an account? <a href="/sign-in">Sign in</a>.
            </p>
          </>
        )
      )}
    </>
  );
}
