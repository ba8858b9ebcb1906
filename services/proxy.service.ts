/**
 * The image proxy: GET /api/proxy/image?url= passes on podcast artwork so that web clients load it from
 * the server's origin. No key needed, so it is an open door into the server's network unless guarded:
 * every hop is checked by the outbound client as a normal user's URL (loopback, link-local and private
 * addresses refused unless OUTBOUND_ALLOW_PRIVATE lets them through), only image/* answers up to
 * IMAGE_PROXY_MAX_BYTES are passed on, and they go out with cache headers and a sandboxing CSP (an SVG
 * cannot run script on this origin). Recent images stay in a small per-node cache (IMAGE_PROXY_CACHE_MB).
 */
import type { Service, ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { BadRequestError, NotFoundError, ServiceUnavailableError } from "../shared/errors";
import { fetchUrl, OutboundHttpError, type FetchResult } from "../shared/http";
import { ImageAnswer } from "../shared/contracts/answers";
import type { Ctx } from "../shared/service-types";

interface Image {
  body: Buffer;
  type: string;
  etag: string | null;
  lastModified: string | null;
}

interface ProxyMethods {
  fetchImage(url: string): Promise<Image>;
  remember(url: string, image: Image): void;
}

type ProxyThis = Service &
  ProxyMethods & {
    /** URL -> image, least recently used first (a Map keeps insertion order). */
    cache: Map<string, Image>;
    /** Bytes of the images in cache. */
    cachedBytes: number;
  };

/** Why a fetch failed, as an HTTP answer: a refused address, bad URL or not an image 400 (as the outbound policy answers everywhere), gone 404, unreachable 503. */
function answerFor(err: OutboundHttpError): Error {
  switch (err.kind) {
    case "blocked_address":
      return new BadRequestError(err.message);
    case "invalid_url":
      return new BadRequestError("Not an http(s) image URL");
    case "too_large":
      return new BadRequestError(`The image is larger than ${config.imageProxyMaxBytes} bytes`);
    case "http_status":
      return err.status! < 500 ? new NotFoundError(`The image host answered HTTP ${err.status}`) : new ServiceUnavailableError("The image host failed");
    case "too_many_redirects":
      return new BadRequestError("The image URL redirects too often");
    default:
      return new ServiceUnavailableError("The image host could not be reached");
  }
}

const ProxyService: ServiceSchema<Record<string, never>, ProxyThis> = {
  name: "proxy",
  created(this: ProxyThis) {
    /** URL -> image, least recently used first (a Map keeps insertion order). */
    this.cache = new Map<string, Image>();
    this.cachedBytes = 0;
  },
  actions: {
    /** GET /api/proxy/image?url= */
    image: {
      idempotent: true,
      params: { url: { type: "string", min: 1, max: 4000 } },
      response: ImageAnswer,
      // A Binary answer is the image's bytes (its schema types it as a string for OpenAPI).
      async handler(this: ProxyThis, ctx: Ctx<{ url: string }>): Promise<Buffer> {
        const image: Image = this.cache.get(ctx.params.url) ?? (await this.fetchImage(ctx.params.url));
        this.remember(ctx.params.url, image);
        ctx.meta.$responseType = image.type;
        ctx.meta.$responseHeaders = {
          "Cache-Control": `public, max-age=${config.imageProxyMaxAge}`,
          "X-Content-Type-Options": "nosniff",
          "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
          ...(image.etag ? { ETag: image.etag } : {}),
          ...(image.lastModified ? { "Last-Modified": image.lastModified } : {}),
        };
        return image.body;
      },
    },
  },
  methods: {
    async fetchImage(this: ProxyThis, url: string): Promise<Image> {
      let res: FetchResult;
      try {
        // Open to anyone: always a normal user's rights, whoever asks.
        res = await fetchUrl(url, { rights: "user", maxBytes: config.imageProxyMaxBytes, accept: "image/*" });
      } catch (err) {
        if (err instanceof OutboundHttpError) throw answerFor(err);
        throw err;
      }
      const type = (res.contentType ?? "").split(";")[0].trim().toLowerCase();
      if (!/^image\/[\w.+-]+$/.test(type)) throw new BadRequestError(`Not an image (${type || "no content type"})`);
      return { body: res.body!, type, etag: res.etag, lastModified: res.lastModified };
    },
    /** Keeps the image as the most recent; the least recent go once the cache is over its size. */
    remember(this: ProxyThis, url: string, image: Image): void {
      const limit = config.imageProxyCacheMb * 1024 * 1024;
      if (this.cache.delete(url)) this.cachedBytes -= image.body.length;
      if (image.body.length > limit / 4) return; // one huge image would push out everything else
      this.cache.set(url, image);
      this.cachedBytes += image.body.length;
      for (const [key, old] of this.cache) {
        if (this.cachedBytes <= limit) break;
        this.cache.delete(key);
        this.cachedBytes -= old.body.length;
      }
    },
  },
};

export default ProxyService;
