/** Answers of the rss service's routes. */
import { PlainText } from "./answers";

export const UserFeedXml = PlainText("The user's RSS 2.0 feed (itunes namespace)", "application/rss+xml");
