/** What the player tells the pages: the queue changed under them (an episode ended and left it). */
import { signal } from "@preact/signals";

/** Bumped whenever the player changes the queue; the queue page reloads on it. */
export const queueVersion = signal(0);
