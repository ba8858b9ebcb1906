/**
 * Typed errors (house rule 5, docs/architecture.md). Services throw these; the gateway maps them to a status code and the
 * JSON body { error, message, detail, status_code }.
 */
import { Errors } from "moleculer";

const { MoleculerClientError, MoleculerError } = Errors;

export class BadRequestError extends MoleculerClientError {
  constructor(message: string) {
    super(message, 400, "bad_request");
  }
}
export class UnauthorizedError extends MoleculerClientError {
  constructor(message = "Invalid or missing credentials") {
    super(message, 401, "unauthorized");
  }
}
export class ForbiddenError extends MoleculerClientError {
  constructor(message = "Not allowed") {
    super(message, 403, "forbidden");
  }
}
export class NotFoundError extends MoleculerClientError {
  constructor(message = "Not found") {
    super(message, 404, "not_found");
  }
}
export class ConflictError extends MoleculerClientError {
  constructor(message: string) {
    super(message, 409, "conflict");
  }
}
export class PayloadTooLargeError extends MoleculerClientError {
  constructor(message = "Request body too large") {
    super(message, 413, "payload_too_large");
  }
}
export class TooManyRequestsError extends MoleculerClientError {
  constructor(message = "Too many requests") {
    super(message, 429, "too_many_requests");
  }
}
/** A failure the client must see as a 500 with a generic message (e.g. an upstream token exchange). */
export class InternalServerError extends MoleculerError {
  constructor(message = "Internal server error") {
    super(message, 500, "internal_error");
  }
}
export class ServiceUnavailableError extends MoleculerError {
  constructor(message = "Service unavailable") {
    super(message, 503, "service_unavailable");
  }
}

/** Category word of the JSON error body for each status code. */
export const ERROR_CATEGORIES: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  431: "headers_too_large",
  429: "too_many_requests",
  500: "internal_error",
  503: "service_unavailable",
};

export interface ErrorBody {
  error: string;
  message: string;
  detail: string;
  status_code: number;
}

/**
 * Turns any error into the status and body a client sees. Client errors keep their message; anything
 * else becomes a generic 500/503 so stacks, queries and internal data never leave the server.
 */
/** The fields of an error this reads: Moleculer's errors, body-parser's, the stores'. */
interface ErrorLike {
  name?: string;
  message?: string;
  type?: string;
  code?: unknown;
  status?: unknown;
  data?: unknown;
}

export function toErrorResponse(thrown: unknown): { status: number; body: ErrorBody } {
  const err = (thrown ?? {}) as ErrorLike;
  let status = 500;
  let message = "Internal server error";
  const code = typeof err?.code === "number" ? err.code : typeof err?.status === "number" ? err.status : undefined;
  if (err?.name === "ValidationError" || err?.type === "VALIDATION_ERROR") {
    status = 400;
    const fields = Array.isArray(err.data) ? (err.data as { message?: string }[]).map((d) => d.message).filter(Boolean) : [];
    message = fields.length ? fields.join("; ") : "Invalid parameters";
  } else if (err?.type === "entity.parse.failed") {
    status = 400;
    message = "Malformed JSON body";
  } else if (err?.type === "entity.too.large") {
    status = 413;
    message = "Request body too large";
  } else if (err?.name === "ServiceNotFoundError" || err?.name === "ServiceNotAvailableError" || err?.name === "RequestTimeoutError") {
    status = 503;
    message = "Service temporarily unavailable";
  } else if (code !== undefined && code >= 400 && code < 500) {
    status = code === 422 ? 400 : code;
    message = err.message || ERROR_CATEGORIES[status] || "Bad request";
  } else if (err?.name === "ResponseSchemaError") {
    // Only under the test-time answer check (shared/response-check.ts): the test must see which route broke its contract.
    message = err.message ?? message;
  } else if (code === 503) {
    status = 503;
    message = err.message || "Service unavailable";
  }
  const error = ERROR_CATEGORIES[status] || (status < 500 ? "client_error" : "internal_error");
  return { status, body: { error, message, detail: message, status_code: status } };
}
