import { hashPassword, verifyPassword } from "better-auth/crypto";

/**
 * Password hashing for sign-in: the library's own scrypt, named here so that
 * both sign-in paths can be seen to do the same work. A wrong password for an
 * account costs one scrypt (verify); an email with no account costs one too
 * (the library hashes the typed password and throws the result away), so the
 * answer's timing does not tell whether the email has an account. Called
 * through this object so a test can watch which path ran which.
 */
export const passwords = {
  hash: (password: string): Promise<string> => hashPassword(password),
  verify: ({ hash, password }: { hash: string; password: string }): Promise<boolean> =>
    verifyPassword({ hash, password }),
};
