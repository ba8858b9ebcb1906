/** The inbox's page cut (services/episodes.parts/inbox.actions.ts newestPage): the same page as sorting every list together. */
import { CatalogRow, newestFirst } from "../../services/episodes.parts/catalog-index";
import { newestPage } from "../../services/episodes.parts/inbox.actions";

test("a heap of the lists' heads cuts the same pages as one sort of all rows, ties by id", () => {
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  let id = 0;
  // 40 podcasts of 0 to 30 rows, publication times with ties (whole hours).
  const lists = Array.from({ length: 40 }, (_, p) =>
    Array.from({ length: Math.floor(rnd() * 31) }, () => ({ ep: new CatalogRow(++id, p, "", Math.floor(rnd() * 50) * 3_600_000, true, 0, null) })).sort(
      (a, b) => newestFirst(a.ep, b.ep),
    ),
  );
  const all = lists.flat().sort((a, b) => newestFirst(a.ep, b.ep));
  for (const [offset, limit] of [
    [0, 1],
    [0, 50],
    [3, 7],
    [100, 50],
    [all.length - 5, 50],
    [all.length + 10, 5],
    [0, all.length],
  ])
    expect(newestPage(lists, offset, limit).map((r) => r.ep._id)).toEqual(all.slice(offset, offset + limit).map((r) => r.ep._id));
  expect(newestPage([], 0, 10)).toEqual([]);
});
