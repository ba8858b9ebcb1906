/** What travels to and from the users service. */

/** users.listening_settings result: the settings that shape a user's listening. */
export interface ListeningSettings {
  /** 0 to 300; 0 disables auto-complete. */
  auto_complete_seconds: number;
  /** IANA name: the user's days (streaks, per day statistics) are counted in it. */
  timezone: string;
  /** Default speed when a podcast has no override. */
  playback_speed: number;
}
