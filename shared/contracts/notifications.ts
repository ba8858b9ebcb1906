/** What travels to the notifications service. */

/** notifications.send_mail params: one plain-text mail, sent with the admin's email settings. */
export interface SendMailParams {
  to: string;
  subject: string;
  text: string;
}

/** notifications.notify_followers params item: a new episode in which a person the user follows appears (following.service). */
export interface FollowerMessage {
  user_id: number;
  person: string;
  podcast_id: number;
  podcast_title: string | null;
  episode_id: number;
  episode_title: string;
  episode_url: string | null;
  pub_date: string | null;
}
