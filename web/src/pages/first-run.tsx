/** A new server's first page: the first admin's account, then signed in with it. */
import { api, ok } from "../api";
import { PageTitle, ErrorNote, Loading, useLoad } from "../ui";
import { AccountForm } from "../components/sign-in-kit";

export default function FirstRun() {
  const status = useLoad(() => ok(api.GET("/api/data/self_service_status")), []);
  return (
    <>
      <PageTitle title="Create the first admin">Create the first admin</PageTitle>
      {status.loading && <Loading />}
      <ErrorNote error={status.error} />
      {status.data?.first_admin_created ? (
        <p>
          This server has its admin already. <a href="/sign-in">Sign in</a>.
        </p>
      ) : (
        status.data && (
          <>
            <p>This server is new. The account you create here manages it: its users, feeds and settings.</p>
            <AccountForm name="Create the first admin" submit="Create admin" create={(a) => ok(api.POST("/api/data/create_first", { body: a }))} />
          </>
        )
      )}
    </>
  );
}
