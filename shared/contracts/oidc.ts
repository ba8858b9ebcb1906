/** Answers of the oidc service's routes: providers (admin and public listings), state, the callback. */
import { Nullable, Redirect, Type, type Static } from "./answers";

export const AddOidcProviderAnswer = Type.Object({ detail: Type.String(), provider_id: Type.Integer() });
export type AddOidcProviderAnswer = Static<typeof AddOidcProviderAnswer>;

/** A provider as the admin listing shows it (never its client secret), the fields the web client's OIDCProvider reads. */
export const OidcProvider = Type.Object({
  provider_id: Type.Integer(),
  provider_name: Type.String(),
  client_id: Type.String(),
  authorization_url: Type.String(),
  token_url: Type.String(),
  user_info_url: Type.String(),
  button_text: Type.String(),
  scope: Type.String(),
  button_color: Type.String(),
  button_text_color: Type.String(),
  icon_svg: Nullable(Type.String()),
  name_claim: Nullable(Type.String()),
  email_claim: Nullable(Type.String()),
  username_claim: Nullable(Type.String()),
  roles_claim: Nullable(Type.String()),
  user_role: Nullable(Type.String()),
  admin_role: Nullable(Type.String()),
  /** Providers here are always in use, and stored through the API (none come from the environment). */
  enabled: Type.Boolean(),
  initialized_from_env: Type.Boolean(),
  created_at: Type.String({ format: "date-time" }),
});
export type OidcProvider = Static<typeof OidcProvider>;
export const OidcProvidersAnswer = Type.Object({ providers: Type.Array(OidcProvider) });
export type OidcProvidersAnswer = Static<typeof OidcProvidersAnswer>;

/**
 * public_oidc_providers: the documents' id, name, icon_url, login_url, what a login button needs, and the names
 * both PinePods clients read a provider by (provider_id, provider_name, authorization_url, icon_svg: the SVG markup
 * or image URL as configured; icon_url is it as a URL).
 */
export const PublicOidcProvidersAnswer = Type.Object({
  providers: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      icon_url: Nullable(Type.String()),
      login_url: Type.String(),
      client_id: Type.String(),
      scope: Type.String(),
      button_text: Type.String(),
      button_color: Type.String(),
      button_text_color: Type.String(),
      provider_id: Type.Integer(),
      provider_name: Type.String(),
      authorization_url: Type.String(),
      icon_svg: Nullable(Type.String()),
    }),
  ),
  disable_standard_login: Type.Boolean(),
});
export type PublicOidcProvidersAnswer = Static<typeof PublicOidcProvidersAnswer>;
export const StoreStateAnswer = Type.Object({ detail: Type.String(), expires_in: Type.Integer() });
export type StoreStateAnswer = Static<typeof StoreStateAnswer>;
export const CallbackAnswer = Redirect("Back to the application (origin_url), with the new key");
