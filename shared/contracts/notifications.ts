/** What travels to the notifications service. */

/** notifications.send_mail params: one plain-text mail, sent with the admin's email settings. */
export interface SendMailParams {
  to: string;
  subject: string;
  text: string;
}
