// oidc-provider (the OpenID peer of the OIDC tests) publishes no types; the tests use it as its README shows.
declare module "oidc-provider";
