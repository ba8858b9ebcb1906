import { PageTitle } from "../ui";

export default function NotFound() {
  return (
    <>
      <PageTitle title="Page not found">Page not found</PageTitle>
      <p>
        There is no page at this address. <a href="/">Go to Home</a>.
      </p>
    </>
  );
}
