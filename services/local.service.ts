/**
 * Local podcasts: folders of audio files under LOCAL_MEDIA_DIR (shared/contracts/local.ts). A folder a
 * user adds is a podcast record with a `local:` feed URL and its files are episodes, so it shows in
 * every list, queue, playlist and feed like any other podcast; feeds reads the folder through
 * local_feed (tags by music-metadata), and refreshes (scheduled, or refresh_local_podcast) pick up
 * added, removed and changed files. The stream route plays the files through media_info / media_stream.
 *
 * This service owns `local_folders` (what the channel says: the first adder's name, description,
 * author, explicit flag) and `local_artwork` (uploaded covers). Nothing outside LOCAL_MEDIA_DIR is ever
 * read: every path, including those inside stored `local:` URLs, goes through insideMediaDir.
 */
import fs from "fs";
import path from "path";
import type { Readable } from "stream";
import { Errors } from "moleculer";
import type { ServiceSchema } from "moleculer";
import type { Ctx, DbThis } from "../shared/service-types";
import type { Caller } from "../shared/contracts/call";
import { config } from "../shared/config";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { BadRequestError, ForbiddenError, NotFoundError, PayloadTooLargeError } from "../shared/errors";
import { TaskWaitMixin, type TaskWaitThis } from "../shared/task-wait.mixin";
import { LocalMediaInfo, localPathOf, localUrl } from "../shared/contracts/local";
import type { FetchedFeed, RefreshSummary } from "../shared/contracts/feeds";
import { refreshFeed } from "../shared/contracts/feeds";
import type { LibraryFeed, RefreshTarget } from "../shared/contracts/podcasts";
import { refreshTargets, subscribeLocal, updatePodcastInfo, userFeeds } from "../shared/contracts/podcasts";
import { CreateTasksResult, JOB_REFRESH_PODS, TaskRecord, tasksCreate } from "../shared/contracts/tasks";
import { audioFiles, audioType, coverFile, embeddedPicture, imageTypeOf, insideMediaDir, type Resolved } from "./local.parts/files";
import { ArtworkDoc, artworkUrl, folderFeed, FolderDoc } from "./local.parts/feed";
import { AddLocalPodcastAnswer, LocalArtworkAnswer, LocalCoverAnswer, LocalDirectoriesAnswer, RefreshLocalAnswer } from "../shared/contracts/local";
import { ImageAnswer } from "../shared/contracts/answers";
import type { AddCustomPodcastAnswer } from "../shared/contracts/podcasts";

const id = { type: "number", integer: true, positive: true, convert: true };
const relPath = { type: "string", max: 1000 };
/** Form fields of add_local_podcast_artwork, sent before the file. */
const UPLOAD_FIELDS = { user_id: id, podcast_id: id };

/** add_local_podcast's params. */
interface AddLocalParams {
  user_id: number;
  directory_path: string;
  podcast_name: string;
  description?: string | null;
  author?: string | null;
  explicit?: boolean;
}

/** fastest-validator's checker of the upload's form fields (Moleculer types compile() as Function): true or the errors. */
type FieldsChecker = (params: object) => true | object[];

interface LocalMethods {
  folderFor(
    rel: string,
    p: { podcast_name: string; description?: string | null; author?: string | null; explicit?: boolean },
  ): Promise<{ folder: FolderDoc; created: boolean }>;
  localPodcast(ctx: Caller, user_id: number, podcast_id: number): Promise<{ folder: FolderDoc; dir: Resolved }>;
  mediaFile(url: string): Promise<Resolved>;
  coverOf(folder: FolderDoc, file?: string): Promise<{ type: string; data: Buffer } | null>;
}

type LocalThis = DbThis<FolderDoc, { local_artwork: ArtworkDoc }> &
  TaskWaitThis &
  LocalMethods & {
    checkUploadFields: FieldsChecker;
  };

/** Reads an upload, refusing it (413) as soon as it passes max bytes. */
async function readCapped(stream: Readable, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  // An upload is a byte stream (not object mode): its chunks are Buffers.
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      stream.destroy();
      throw new PayloadTooLargeError(`The image is larger than ${max} bytes`);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

const LocalService: ServiceSchema<Record<string, never>, LocalThis> = {
  name: "local",
  mixins: [TaskWaitMixin, DbMixin({ name: "local_folders", indexes: [{ fields: { path: 1 }, unique: true }] }, [{ name: "local_artwork" }])],
  created(this: LocalThis) {
    this.checkUploadFields = this.broker.validator!.compile(UPLOAD_FIELDS) as FieldsChecker;
  },
  actions: {
    /** GET /api/data/list_local_directories?path= (admin): the subfolders of a folder, with their audio file counts (subfolders included, as add_local_podcast reads them). */
    list_local_directories: {
      idempotent: true,
      params: { path: { ...relPath, optional: true } },
      response: LocalDirectoriesAnswer,
      async handler(this: LocalThis, ctx: Ctx<{ path?: string }>): Promise<LocalDirectoriesAnswer> {
        const { root, full } = await insideMediaDir((ctx.params.path ?? "").trim(), "dir");
        const entries = await fs.promises.readdir(full, { withFileTypes: true });
        const directories: LocalDirectoriesAnswer["directories"] = [];
        for (const e of entries.filter((x) => x.isDirectory() && !x.name.startsWith(".")).sort((a, b) => a.name.localeCompare(b.name))) {
          // The files add_local_podcast would take: subfolders included.
          const inner = await audioFiles(path.join(full, e.name)).catch(() => []);
          // audio_count and current_path: the web client's spelling of the same figures.
          directories.push({ name: e.name, path: path.relative(root, path.join(full, e.name)), audio_files: inner.length, audio_count: inner.length });
        }
        const here = path.relative(root, full);
        return { path: here, current_path: here, directories, audio_files: (await audioFiles(full)).length };
      },
    },
    /** POST /api/data/add_local_podcast: a folder with audio files becomes a podcast the user is subscribed to. */
    add_local_podcast: {
      params: {
        user_id: id,
        directory_path: { ...relPath, trim: true, min: 1 },
        podcast_name: { type: "string", trim: true, min: 1, max: 1000 },
        description: { type: "string", max: 20_000, optional: true, nullable: true },
        author: { type: "string", trim: true, max: 1000, optional: true, nullable: true },
        explicit: { type: "boolean", convert: true, optional: true },
      },
      response: AddLocalPodcastAnswer,
      async handler(this: LocalThis, ctx: Ctx<AddLocalParams>): Promise<AddLocalPodcastAnswer> {
        const p = ctx.params;
        const dir = await insideMediaDir(p.directory_path, "dir");
        if (!dir.rel) throw new BadRequestError("Choose a folder inside the local media folder, not the folder itself");
        if (!(await audioFiles(dir.full)).length) throw new BadRequestError("The folder has no audio files");
        const { folder, created } = await this.folderFor(dir.rel, p);
        const added: AddCustomPodcastAnswer = await subscribeLocal(ctx, { user_id: p.user_id, feed_url: localUrl(dir.rel) });
        // A folder someone added before keeps its channel; this user's name and details become their own overrides.
        if (!created && (folder.title !== p.podcast_name || p.description || p.author)) {
          await updatePodcastInfo(ctx, {
            user_id: p.user_id,
            podcast_id: added.podcast_id,
            podcast_name: p.podcast_name,
            description: p.description ?? undefined,
            author: p.author ?? undefined,
          });
        }
        this.logger.info("local podcast added", { user_id: p.user_id, podcast_id: added.podcast_id, folder_id: folder._id });
        // data: the podcast as the web client reads it, with this user's name and details.
        const data = {
          ...added.data,
          podcastname: p.podcast_name,
          description: p.description ?? added.data.description,
          author: p.author ?? added.data.author,
        };
        return { success: true, message: "Local podcast added", podcast_id: added.podcast_id, first_episode_id: added.first_episode_id, data };
      },
    },
    /** POST /api/data/refresh_local_podcast: rereads the folder now (a refresh job; figures when it ends within REFRESH_WAIT_MS). */
    refresh_local_podcast: {
      params: { user_id: id, podcast_id: id },
      response: RefreshLocalAnswer,
      async handler(this: LocalThis, ctx: Ctx<{ user_id: number; podcast_id: number }>): Promise<RefreshLocalAnswer> {
        const { user_id, podcast_id } = ctx.params;
        await this.localPodcast(ctx, user_id, podcast_id);
        const job = { task_type: JOB_REFRESH_PODS, user_id, payload: { podcast_ids: [podcast_id] }, dedupe_key: `refresh-local:${podcast_id}` };
        const res: CreateTasksResult = await tasksCreate(ctx, { tasks: [job] });
        const task_id = (res.created[0] ?? res.existing[0]).id;
        const done: TaskRecord | null = await this.waitForTask(ctx, task_id, config.refreshWaitMs);
        const summary = done?.status === "SUCCESS" ? (done.result as RefreshSummary) : null;
        if (summary && !summary.failed)
          return { success: true, detail: "Local podcast refreshed", task_id, new_episodes: summary.new_episodes, updated: summary.updated > 0 };
        if (done) return { success: false, detail: `Refresh failed: ${done.message}`, task_id };
        return { success: true, detail: "The refresh continues in the background", task_id };
      },
    },
    /** GET /api/data/detect_local_cover?path=: the cover a folder would get (upload, cover file or embedded picture). */
    detect_local_cover: {
      idempotent: true,
      params: { path: { ...relPath, optional: true } },
      response: LocalCoverAnswer,
      async handler(this: LocalThis, ctx: Ctx<{ path?: string }>): Promise<LocalCoverAnswer> {
        const dir = await insideMediaDir((ctx.params.path ?? "").trim(), "dir");
        const folder: FolderDoc | null = await this.adapter.findOne({ path: dir.rel });
        const upload: ArtworkDoc | null = folder ? await this.stores.local_artwork.findOne({ _id: folder._id }) : null;
        const base = { path: dir.rel, cover_found: true };
        if (upload) return { ...base, source: "upload", file: null, content_type: upload.content_type };
        const file = await coverFile(dir.full);
        if (file) return { ...base, source: "file", file: file.name, content_type: imageTypeByName(file.name) };
        for (const f of await audioFiles(dir.full)) {
          const pic = await embeddedPicture(path.join(dir.full, f.name));
          if (pic) return { ...base, source: "embedded", file: f.name, content_type: pic.type };
        }
        return { path: dir.rel, cover_found: false, source: null, file: null, content_type: null };
      },
    },
    /**
     * POST /api/data/add_local_podcast_artwork (multipart/form-data: fields user_id and podcast_id, then
     * one image file): a JPEG, PNG, GIF or WebP (told by its bytes) up to ARTWORK_MAX_BYTES becomes the
     * local podcast's cover. The form fields are checked here: the params of an upload are its stream.
     */
    add_local_podcast_artwork: {
      response: LocalArtworkAnswer,
      multipart: UPLOAD_FIELDS,
      async handler(this: LocalThis, ctx: Ctx<Readable>): Promise<LocalArtworkAnswer> {
        const fields = ctx.meta.$multipart ?? {};
        const checked = this.checkUploadFields({ ...fields });
        if (checked !== true) throw new Errors.ValidationError("Send the form fields user_id and podcast_id before the file", "VALIDATION_ERROR", checked);
        const user_id = Number(fields.user_id);
        const podcast_id = Number(fields.podcast_id);
        const { folder } = await this.localPodcast(ctx, user_id, podcast_id);
        const image = await readCapped(ctx.params, config.artworkMaxBytes);
        const type = imageTypeOf(image);
        if (!type || !/^image\//i.test(ctx.meta.mimetype ?? "")) throw new BadRequestError("Only JPEG, PNG, GIF or WebP images are accepted");
        const artwork: Omit<ArtworkDoc, "_id"> = { content_type: type, data: image.toString("base64"), size: image.length, updated_at: new Date() };
        await this.upsert(this.stores.local_artwork, folder._id, { $set: artwork });
        // The refresh writes the cover's address into the podcast record (its content hash covers the upload).
        await refreshFeed(ctx, { podcast_id });
        this.logger.info("local artwork uploaded", { user_id, podcast_id, size: image.length, type });
        return { success: true, message: "Artwork uploaded", artwork_url: artworkUrl(folder._id) };
      },
    },
    /** GET /api/data/local_artwork/{folder_id}?file= (no key, as images are loaded by players): a local podcast's cover, or an episode's embedded picture. */
    local_artwork: {
      idempotent: true,
      params: { folder_id: id, file: { type: "string", min: 1, max: 1000, optional: true } },
      response: ImageAnswer,
      // The image's bytes: ImageAnswer documents them as a binary string.
      async handler(this: LocalThis, ctx: Ctx<{ folder_id: number; file?: string }>): Promise<Buffer> {
        const folder: FolderDoc | null = await this.adapter.findOne({ _id: ctx.params.folder_id });
        if (!folder) throw new NotFoundError("No such local podcast");
        const image = await this.coverOf(folder, ctx.params.file);
        if (!image) throw new NotFoundError("No cover found");
        ctx.meta.$responseType = image.type;
        ctx.meta.$responseHeaders = {
          "Cache-Control": "public, max-age=300",
          "X-Content-Type-Options": "nosniff",
          "Content-Security-Policy": "default-src 'none'; sandbox",
        };
        return image.data;
      },
    },

    // --- Internal actions (not in the route table) ---

    /** A `local:` folder read as a feed (the shape of feeds.fetch_feed); unchanged when its content hash is the known one. */
    local_feed: {
      visibility: "public",
      params: { url: { type: "string", max: 4000 }, content_hash: { type: "string", optional: true, nullable: true } },
      async handler(this: LocalThis, ctx: Ctx<{ url: string; content_hash?: string | null }>): Promise<FetchedFeed> {
        const rel = localPathOf(ctx.params.url);
        if (rel === null) throw new BadRequestError("Not a local folder address");
        const dir = await insideMediaDir(rel, "dir");
        const folder: FolderDoc | null = await this.adapter.findOne({ path: dir.rel });
        if (!folder) throw new NotFoundError("This folder was never added as a local podcast");
        const artwork: ArtworkDoc | null = await this.stores.local_artwork.findOne({ _id: folder._id });
        return folderFeed(folder, dir, artwork, ctx.params.content_hash ?? null, (msg, data) => this.logger.warn(msg, data));
      },
    },
    /** Size and type of a local episode's file (its `local:` enclosure URL); the path guard applies. */
    media_info: {
      visibility: "public",
      params: { url: { type: "string", max: 4000 } },
      async handler(this: LocalThis, ctx: Ctx<{ url: string }>): Promise<LocalMediaInfo> {
        const { full } = await this.mediaFile(ctx.params.url);
        return { size: (await fs.promises.stat(full)).size, content_type: audioType(full) };
      },
    },
    /** The bytes start..end (inclusive) of a local episode's file, as a stream. */
    media_stream: {
      visibility: "public",
      params: { url: { type: "string", max: 4000 }, start: { type: "number", integer: true, min: 0 }, end: { type: "number", integer: true, min: 0 } },
      async handler(this: LocalThis, ctx: Ctx<{ url: string; start: number; end: number }>): Promise<Readable> {
        const { full } = await this.mediaFile(ctx.params.url);
        // O_NOFOLLOW: a file swapped for a link after the check is not followed either.
        const file = await fs.promises.open(full, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
        return file.createReadStream({ start: ctx.params.start, end: ctx.params.end });
      },
    },
  },
  methods: {
    /** The folder record of a relative path, created with the adder's channel fields when nobody added it yet. */
    async folderFor(
      this: LocalThis,
      rel: string,
      p: { podcast_name: string; description?: string | null; author?: string | null; explicit?: boolean },
    ): Promise<{ folder: FolderDoc; created: boolean }> {
      const known: FolderDoc | null = await this.adapter.findOne({ path: rel });
      if (known) return { folder: known, created: false };
      const folder: FolderDoc = {
        _id: await this.nextId("local_folders"),
        path: rel,
        title: p.podcast_name,
        description: p.description ?? null,
        author: p.author ?? null,
        explicit: !!p.explicit,
        created_at: new Date(),
      };
      try {
        await this.adapter.insert(folder);
      } catch (err) {
        // Two users adding the same folder at once: the first record wins.
        if (isDuplicateKeyError(err)) return { folder: (await this.adapter.findOne({ path: rel }))!, created: false };
        throw err;
      }
      return { folder, created: true };
    },
    /** A local podcast of the user's (any for an admin reading a user's): 404 unknown, 403 not theirs, 400 not local, then the folder checked again. */
    async localPodcast(this: LocalThis, ctx: Caller, user_id: number, podcast_id: number): Promise<{ folder: FolderDoc; dir: Resolved }> {
      const feeds: LibraryFeed[] = await userFeeds(ctx, { user_id });
      const mine = feeds.find((f) => f.podcast_id === podcast_id);
      if (!mine) {
        const [exists]: RefreshTarget[] = await refreshTargets(ctx, { podcast_ids: [podcast_id] });
        if (!exists) throw new NotFoundError("Podcast not found");
        throw new ForbiddenError("This podcast is not one of your podcasts");
      }
      const rel = localPathOf(mine.feed_url);
      if (rel === null) throw new BadRequestError("Not a local podcast");
      const dir = await insideMediaDir(rel, "dir");
      const folder: FolderDoc | null = await this.adapter.findOne({ path: dir.rel });
      if (!folder) throw new NotFoundError("This folder was never added as a local podcast");
      return { folder, dir };
    },
    /** The file of a `local:` enclosure URL, through the path guard. */
    async mediaFile(this: LocalThis, url: string): Promise<Resolved> {
      const rel = localPathOf(url);
      if (rel === null) throw new BadRequestError("Not a local file address");
      return insideMediaDir(rel, "file");
    },
    /** A folder's cover (upload, cover file, else the first embedded picture) or one file's embedded picture; null when none. */
    async coverOf(this: LocalThis, folder: FolderDoc, file?: string): Promise<{ type: string; data: Buffer } | null> {
      const dir = await insideMediaDir(folder.path, "dir");
      if (file !== undefined) {
        // A file of a subfolder is named by its relative path ("CD1/01.mp3"); the guard refuses "..".
        if (file.includes("\\")) throw new BadRequestError("file must be a path inside the folder, with / between folders");
        return embeddedPicture((await insideMediaDir(path.join(dir.rel, file), "file")).full);
      }
      const upload: ArtworkDoc | null = await this.stores.local_artwork.findOne({ _id: folder._id });
      if (upload) return { type: upload.content_type, data: Buffer.from(upload.data, "base64") };
      const cover = await coverFile(dir.full);
      if (cover) {
        const data = await fs.promises.readFile(path.join(dir.full, cover.name));
        const type = imageTypeOf(data);
        if (type) return { type, data };
      }
      for (const f of await audioFiles(dir.full)) {
        const pic = await embeddedPicture(path.join(dir.full, f.name));
        if (pic) return pic;
      }
      return null;
    },
  },
};

/** Content type of a cover file by its extension. */
function imageTypeByName(name: string): string {
  const ext = path.extname(name).slice(1).toLowerCase();
  return ext === "jpg" ? "image/jpeg" : `image/${ext}`;
}

export default LocalService;
