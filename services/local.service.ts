/**
 * Local podcasts: folders of audio files under LOCAL_MEDIA_DIR. So far admins browse the folders
 * (list_local_directories); nothing outside LOCAL_MEDIA_DIR is ever read: absolute paths, `..` and
 * symbolic links are refused, and every path is checked again after resolving links.
 */
import fs from "fs";
import path from "path";
import type { Context, ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { BadRequestError, NotFoundError } from "../shared/errors";

const AUDIO = /\.(mp3|m4a|m4b|aac|ogg|oga|opus|flac|wav|mp4|m4v|webm)$/i;

/** The real path of `rel` under the media folder; 400 for anything that could leave it, 404 when missing. */
async function insideMediaDir(rel: string): Promise<{ root: string; full: string }> {
  if (path.isAbsolute(rel) || /^[a-z]:/i.test(rel) || rel.includes("\0") || rel.split(/[\\/]+/).includes(".."))
    throw new BadRequestError("The path must be relative to the local media folder, without ..");
  let root: string;
  try {
    root = await fs.promises.realpath(config.localMediaDir);
  } catch {
    throw new NotFoundError("The local media folder does not exist");
  }
  const wanted = path.join(root, rel);
  const st = await fs.promises.lstat(wanted).catch(() => null);
  if (!st) throw new NotFoundError("No such folder");
  if (st.isSymbolicLink()) throw new BadRequestError("Symbolic links are not followed");
  // A link higher up the path could still lead elsewhere: the resolved path must stay under the root.
  const full = await fs.promises.realpath(wanted);
  if (full !== root && !full.startsWith(root + path.sep)) throw new BadRequestError("The path leaves the local media folder");
  if (!st.isDirectory()) throw new BadRequestError("Not a folder");
  return { root, full };
}

const LocalService: ServiceSchema = {
  name: "local",
  actions: {
    /** GET /api/data/list_local_directories?path= (admin): the subfolders of a folder, with their audio file counts. */
    list_local_directories: {
      params: { path: { type: "string", max: 1000, optional: true } },
      async handler(this: any, ctx: Context<{ path?: string }>) {
        const { root, full } = await insideMediaDir((ctx.params.path ?? "").trim());
        const entries = await fs.promises.readdir(full, { withFileTypes: true });
        const directories: { name: string; path: string; audio_files: number }[] = [];
        for (const e of entries.filter((x) => x.isDirectory() && !x.name.startsWith(".")).sort((a, b) => a.name.localeCompare(b.name))) {
          const inner = await fs.promises.readdir(path.join(full, e.name), { withFileTypes: true }).catch(() => []);
          directories.push({ name: e.name, path: path.relative(root, path.join(full, e.name)), audio_files: inner.filter((f) => f.isFile() && AUDIO.test(f.name)).length });
        }
        const audio_files = entries.filter((f) => f.isFile() && AUDIO.test(f.name)).length;
        return { path: path.relative(root, full), directories, audio_files };
      },
    },
  },
};

export default LocalService;
