// The password hash of the tests' in-process servers (tests/helpers/server.ts): scrypt at a small cost. better-auth's
// own (N=16384, r=16) costs about 0.1 s of CPU per sign-up or sign-in on a quiet machine, 0.28 s under load, and the
// suite signs up a user or more in most of its tests. Server processes (main.ts) and
// `startServer(…, { productionPasswords: true })` keep better-auth's: tests/auth/email-password.test.ts checks that
// such a server's hash is the production one.
// A cheap hash names itself, so a server of this kind still checks a production hash (a test that writes one
// with better-auth/crypto, or a user a server process signed up on the same database).
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { verifyPassword } from "better-auth/crypto";
import type { PasswordHashing } from "../../server/auth/index.js";

const PREFIX = "test-scrypt-n1024$";
const COST = { N: 1024, r: 8, p: 1 };

const derive = (password: string, salt: string) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, 64, COST, (err, key) => (err ? reject(err) : resolve(key))),
  );

export const testPasswordHashing: PasswordHashing = {
  async hash(password) {
    const salt = randomBytes(16).toString("hex");
    return `${PREFIX}${salt}:${(await derive(password, salt)).toString("hex")}`;
  },
  async verify({ hash, password }) {
    if (!hash.startsWith(PREFIX)) return verifyPassword({ hash, password });
    const [salt, key] = hash.slice(PREFIX.length).split(":");
    if (!salt || !key) throw new Error("Invalid password hash");
    const expected = Buffer.from(key, "hex");
    const actual = await derive(password, salt);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  },
};
