/** Search: new podcasts in the directory (through the search service), and the person's own library. */
import { PageTitle } from "../ui";
import { DirectorySearch } from "../components/directory-search";
import { LibrarySearch } from "../components/library-search";

export default function Search() {
  return (
    <>
      <PageTitle title="Search">Search</PageTitle>
      <DirectorySearch />
      <LibrarySearch />
    </>
  );
}
