/** Sealed secrets: AES-256-GCM under SECRET_KEY or a key generated into DATA_DIR. */
import fs from "fs";
import os from "os";
import path from "path";
import { config } from "../../shared/config";
import { decryptSecret, encryptSecret } from "../../shared/secrets";

describe("sealed secrets", () => {
  const before = { dataDir: config.dataDir, secretKey: config.secretKey };
  afterEach(() => Object.assign(config, before));

  test("a key is generated into DATA_DIR once (owner-only) and opens what it sealed", () => {
    config.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "secrets-"));
    config.secretKey = "";
    const sealed = encryptSecret("hunter2 ünïcode");
    expect(sealed).not.toContain("hunter2");
    expect(encryptSecret("hunter2 ünïcode")).not.toBe(sealed); // a fresh IV each time
    expect(decryptSecret(sealed)).toBe("hunter2 ünïcode");
    const file = path.join(config.dataDir, "secret.key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(decryptSecret(sealed)).toBe("hunter2 ünïcode");
  });

  test("another SECRET_KEY, a damaged value or nothing gives null, never an exception", () => {
    config.secretKey = "key one";
    const sealed = encryptSecret("token");
    config.secretKey = "key two";
    expect(decryptSecret(sealed)).toBeNull();
    config.secretKey = "key one";
    expect(decryptSecret(sealed)).toBe("token");
    expect(decryptSecret(sealed.slice(0, -2) + "AA")).toBeNull();
    expect(decryptSecret("plain")).toBeNull();
    expect(decryptSecret(null)).toBeNull();
  });
});
