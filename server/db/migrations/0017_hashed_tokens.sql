-- Secrets at rest: session tokens, device codes, user codes and verification identifiers are stored as their
-- SHA-256, base64url without padding (server/auth/stored-tokens.ts; better-auth's verification.storeIdentifier
-- "hashed" for identifiers). The rows written before are hashed here, so their sessions and links keep working.
UPDATE "session" SET "token" = translate(rtrim(encode(sha256(convert_to("token", 'UTF8')), 'base64'), '='), '+/', '-_');--> statement-breakpoint
UPDATE "device_code" SET
  "device_code" = translate(rtrim(encode(sha256(convert_to("device_code", 'UTF8')), 'base64'), '='), '+/', '-_'),
  "user_code" = translate(rtrim(encode(sha256(convert_to("user_code", 'UTF8')), 'base64'), '='), '+/', '-_');--> statement-breakpoint
UPDATE "verification" SET "identifier" = translate(rtrim(encode(sha256(convert_to("identifier", 'UTF8')), 'base64'), '='), '+/', '-_');
