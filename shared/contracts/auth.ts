/** Answers of the auth service's routes: login, keys, the RSS key. */
import { Nullable, Type, type Static } from "./answers";

/** get_key: the key, or (MFA on) a session token for verify_mfa_and_get_key. */
export const GetKeyAnswer = Type.Object({
  status: Type.Union([Type.Literal("success"), Type.Literal("mfa_required")]),
  retrieved_key: Nullable(Type.String()),
  mfa_required: Type.Boolean(),
  user_id: Type.Integer(),
  mfa_session_token: Nullable(Type.String()),
});
export type GetKeyAnswer = Static<typeof GetKeyAnswer>;
export const VerifyMfaKeyAnswer = Type.Object({
  status: Type.Union([Type.Literal("success"), Type.Literal("invalid_code"), Type.Literal("session_expired"), Type.Literal("invalid_session")]),
  retrieved_key: Nullable(Type.String()),
  verified: Type.Boolean(),
});
export type VerifyMfaKeyAnswer = Static<typeof VerifyMfaKeyAnswer>;
export const VerifyKeyAnswer = Type.Object({ status: Type.String() });
export type VerifyKeyAnswer = Static<typeof VerifyKeyAnswer>;
export const GetUserAnswer = Type.Object({ status: Type.String(), retrieved_id: Type.Integer() });
export type GetUserAnswer = Static<typeof GetUserAnswer>;
/** create_api_key: the new key, shown once. */
export const CreateApiKeyAnswer = Type.Object({
  api_key: Type.String(),
  api_id: Type.Integer(),
  rssonly: Type.Boolean(),
  podcast_ids: Nullable(Type.Array(Type.Integer())),
});
export type CreateApiKeyAnswer = Static<typeof CreateApiKeyAnswer>;
/** get_api_info: the keys (never the key itself), as the web client's APIInfo reads them. */
export const ApiInfoAnswer = Type.Object({
  api_info: Type.Array(
    Type.Object({
      apikeyid: Type.Integer(),
      userid: Type.Integer(),
      username: Type.String(),
      lastfourdigits: Type.String(),
      created: Type.String({ format: "date-time" }),
      podcastids: Type.Array(Type.Integer()),
      rssonly: Type.Boolean(),
      kind: Type.String(),
    }),
  ),
});
export type ApiInfoAnswer = Static<typeof ApiInfoAnswer>;
export const RssKeyAnswer = Type.Object({ rss_key: Type.String() });
export type RssKeyAnswer = Static<typeof RssKeyAnswer>;
