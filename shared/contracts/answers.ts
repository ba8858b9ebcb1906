/**
 * How an action declares the answer clients get (issue 19): a TypeBox schema as the action's `response`
 * option, next to its `params`. The schema is the one source for three things: the TypeScript type
 * (`Static<typeof X>`), the route's response in /api/openapi.json (shared/openapi.ts; the registry
 * carries it across nodes like params), and the test-time check of every answer (shared/response-check.ts).
 *
 *   export const ThemeAnswer = Type.Object({ theme: Type.String() });          // shared/contracts/users.ts
 *   export type ThemeAnswer = Static<typeof ThemeAnswer>;
 *   get_theme: { params: {...}, response: ThemeAnswer, handler(ctx): ThemeAnswer {...} }
 *
 * Answers that are not JSON say so with PlainText / Binary (their media type rides on the schema as
 * x-media-type), one whose media type follows the request with ByMediaType; a redirect with Redirect, an
 * empty body with NoBody. This file also holds the shapes many services answer.
 */
import { Type, type Static, type TSchema, type SchemaOptions } from "@sinclair/typebox";

export { Type, type Static, type TSchema };

/** The keyword that marks a non-JSON answer's media type (OpenAPI content key). */
export const MEDIA_TYPE = "x-media-type";
/** The keyword that marks an answer given with another status than 200 (a redirect). */
export const ANSWER_STATUS = "x-status";

/** A value the client reads as JSON null when there is none (serde Option, Dart nullable). */
export const Nullable = <T extends TSchema>(schema: T, options?: SchemaOptions) => Type.Union([schema, Type.Null()], options);

/** A text answer (text/plain unless told): the action returns a string and sets ctx.meta.$responseType. */
export const PlainText = (description: string, mediaType = "text/plain") => Type.String({ description, [MEDIA_TYPE]: mediaType });

/** A file or media answer (a stream or Buffer) of this media type; HEAD of the same route answers its headers. */
export const Binary = (mediaType: string, description: string) => Type.String({ format: "binary", description, [MEDIA_TYPE]: mediaType });

/** An image of whatever type the source has (image proxy, local artwork). */
export const ImageAnswer = Binary("image/*", "The image, with its own Content-Type");

/**
 * An answer whose media type follows the request (a format named in the path): one schema per media type,
 * the JSON one as application/json. The action sets ctx.meta.$responseType to one of them.
 */
export const ByMediaType = <T extends TSchema>(description: string, byType: Record<string, T>) =>
  Type.Union(
    Object.entries(byType).map(([mediaType, schema]) => ({ ...schema, [MEDIA_TYPE]: mediaType })),
    { description },
  );

/** A member of a ByMediaType answer: a schema marked with its media type. */
export type MediaTypeMember = Record<string, unknown> & { [MEDIA_TYPE]: string };

/** Whether a schema (as TypeBox builds it or as JSON from the registry) is a ByMediaType answer. */
export const byMediaType = (schema: unknown): schema is { anyOf: MediaTypeMember[] } => {
  // Any value may come in (a schema is an object, or true/false): only anyOf and its members' marker are read.
  const anyOf = (schema as { anyOf?: unknown } | null | undefined)?.anyOf;
  return Array.isArray(anyOf) && anyOf.length > 0 && anyOf.every((m: Record<string, unknown> | null | undefined) => m?.[MEDIA_TYPE]);
};

/** 200 with an empty body (the action returns null), where the protocol's clients count an empty body as success. */
export const NoBody = (description: string) => Type.Null({ description });

/** A 302 redirect (ctx.meta.$statusCode and $location): no body. */
export const Redirect = (description: string) => Type.Null({ description, [ANSWER_STATUS]: 302 });

/** The answers many operations share. */
export const DetailAnswer = Type.Object({ detail: Type.String() });
export type DetailAnswer = Static<typeof DetailAnswer>;
export const MessageAnswer = Type.Object({ message: Type.String() });
export type MessageAnswer = Static<typeof MessageAnswer>;
export const DataAnswer = Type.Object({ data: Type.String() });
export type DataAnswer = Static<typeof DataAnswer>;
export const SuccessAnswer = Type.Object({ success: Type.Boolean() });
export type SuccessAnswer = Static<typeof SuccessAnswer>;
export const SuccessMessageAnswer = Type.Object({ success: Type.Boolean(), message: Type.String() });
export type SuccessMessageAnswer = Static<typeof SuccessMessageAnswer>;
/**
 * A video channel's podcast or episode under PinePods' clients' name, right after the documents' is_vidsite (their
 * structs read is_youtube; shared/client-names.ts has the words).
 */
export const IsYoutube = Type.Boolean({ description: "is_vidsite again, under PinePods' clients' name" });
