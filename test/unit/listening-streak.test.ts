/** listening_streak_days counts the user's local days: the same instants make different streaks in different zones. */
import { localDay, streakDays } from "../../services/episodes.parts/model";

const at = (s: string) => new Date(s);

describe("listening streak", () => {
  const now = at("2026-03-10T12:00:00Z");

  test("consecutive days ending today or yesterday; a gap ends it", () => {
    const days = ["2026-03-10T08:00:00Z", "2026-03-09T08:00:00Z", "2026-03-08T23:00:00Z", "2026-03-06T08:00:00Z"].map(at);
    expect(streakDays(days, "UTC", now)).toBe(3);
    expect(streakDays(days.slice(1), "UTC", now)).toBe(2); // nothing yet today: the streak still counts until the day is over
    expect(streakDays([at("2026-03-08T08:00:00Z")], "UTC", now)).toBe(0);
    expect(streakDays([], "UTC", now)).toBe(0);
  });

  test("the day boundary is the user's midnight", () => {
    // 23:30 UTC on the 8th is already the 9th in Berlin, and still the 8th in New York.
    const listened = [at("2026-03-10T10:00:00Z"), at("2026-03-08T23:30:00Z")];
    expect(localDay(listened[1], "Europe/Berlin")).toBe("2026-03-09");
    expect(streakDays(listened, "Europe/Berlin", now)).toBe(2);
    expect(streakDays(listened, "UTC", now)).toBe(1);
    expect(streakDays(listened, "America/New_York", now)).toBe(1);
  });

  test("a streak across a daylight saving change counts each local day once", () => {
    // Europe/Berlin moves to summer time on 2026-03-29 (a 23-hour day).
    const end = at("2026-03-30T10:00:00Z");
    const listened = ["2026-03-27T21:00:00Z", "2026-03-28T21:30:00Z", "2026-03-29T22:30:00Z", "2026-03-30T09:00:00Z"].map(at);
    expect(listened.map((d) => localDay(d, "Europe/Berlin"))).toEqual(["2026-03-27", "2026-03-28", "2026-03-30", "2026-03-30"]);
    expect(streakDays(listened, "Europe/Berlin", end)).toBe(1);
    expect(streakDays([...listened, at("2026-03-29T10:00:00Z")], "Europe/Berlin", end)).toBe(4);
  });
});
