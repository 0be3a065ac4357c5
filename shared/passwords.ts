// The password rule of email-and-password accounts: the server enforces it (better-auth's sign-up, reset and
// change), the CLI states it and asks again before sending a password that breaks it.

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
