// Plain-text templates for the account mails. Each returns the message and the one link that matters.
import type { MailMessage } from "../mail/mailer.js";

const footer = "\n\nIf you did not ask for this, you can ignore this message.\n\n— till";

export function verificationMail(to: string, url: string): MailMessage {
  return {
    to,
    subject: "Verify your email address",
    text: `Hello,\n\nconfirm that ${to} is your email address by opening this link (valid for one hour):\n\n${url}${footer}`,
    links: [url],
  };
}

export function resetPasswordMail(to: string, url: string): MailMessage {
  return {
    to,
    subject: "Reset your password",
    text: `Hello,\n\nsomeone asked to reset the password of your till account. Choose a new one here (valid for one hour):\n\n${url}${footer}`,
    links: [url],
  };
}

export function changeEmailMail(to: string, newEmail: string, url: string): MailMessage {
  return {
    to,
    subject: "Confirm your new email address",
    text: `Hello,\n\nyou asked to change the email address of your till account to ${newEmail}. Confirm the change here:\n\n${url}${footer}`,
    links: [url],
  };
}

export function deleteAccountMail(to: string, url: string): MailMessage {
  return {
    to,
    subject: "Confirm the deletion of your account",
    text: `Hello,\n\nyou asked to delete your till account. This removes your account, sessions and linked logins for good.\nConfirm here (valid for 24 hours):\n\n${url}${footer}`,
    links: [url],
  };
}

export function invitationMail(
  to: string,
  args: { inviter: string; organization: string; role: string; url: string },
): MailMessage {
  return {
    to,
    subject: `${args.inviter} invited you to ${args.organization} on till`,
    text: `Hello,\n\n${args.inviter} invited you to join the organization "${args.organization}" as ${args.role}.\nAccept or decline the invitation here:\n\n${args.url}${footer}`,
    links: [args.url],
  };
}
