"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { ActionResult } from "@/lib/http/action";
import { Button } from "@/components/ui/Button";
import { formText } from "@/components/ui/FormParts";

const input =
  "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm focus:border-indigo-500 focus:outline-none";

/** Signs in through Better Auth's email route; the browser keeps the session cookie it sets. */
async function signIn(email: string, password: string): Promise<string | null> {
  const response = await fetch("/api/auth/sign-in/email", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (response.ok) return null;
  if (response.status === 429) return "Too many sign-in attempts; wait a minute and try again.";
  const body = (await response.json().catch(() => null)) as { message?: string; code?: string } | null;
  if (body?.code === "INVALID_EMAIL_OR_PASSWORD" || response.status === 401) return "Wrong email or password.";
  return body?.message ?? `Sign-in failed (HTTP ${response.status}).`;
}

function safeNext(next: string | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/sessions";
}

/** The end of both forms: what went wrong, if anything, then the full-width submit button. */
function SubmitRow({ error, busy, label }: { error: string | null; busy: boolean; label: string }) {
  return (
    <>
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
      <Button type="submit" size="lg" className="w-full" disabled={busy}>
        {label}
      </Button>
    </>
  );
}

export function SignInForm({ next, sso }: { next?: string; sso: { name: string } | null }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const problem = await signIn(formText(form, "email"), formText(form, "password"));
    setBusy(false);
    if (problem) return setError(problem);
    router.replace(safeNext(next));
    router.refresh();
  }
  async function startSso() {
    setBusy(true);
    // Generic OIDC providers go through Better Auth's social sign-in, by provider id.
    const response = await fetch("/api/auth/sign-in/social", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider: "oidc", callbackURL: safeNext(next), errorCallbackURL: "/sign-in" }),
    });
    const body = (await response.json().catch(() => null)) as { url?: string; message?: string } | null;
    if (body?.url) window.location.assign(body.url);
    else {
      setBusy(false);
      setError(body?.message ?? "Single sign-on could not start.");
    }
  }
  return (
    <div className="space-y-4">
      <form onSubmit={submit} className="space-y-4" aria-label="Sign in">
        <label className="block text-sm font-medium text-slate-700">
          Email
          <input name="email" type="email" autoComplete="username" required className={input} />
        </label>
        <label className="block text-sm font-medium text-slate-700">
          Password
          <input name="password" type="password" autoComplete="current-password" required className={input} />
        </label>
        <SubmitRow error={error} busy={busy} label="Sign in" />
      </form>
      {sso ? (
        <Button variant="secondary" size="lg" className="w-full" onClick={startSso} disabled={busy}>
          Sign in with {sso.name}
        </Button>
      ) : null}
    </div>
  );
}

type AccountAction = (input: unknown) => Promise<ActionResult<{ email: string }>>;

/** New account (first admin, or from an invitation), then signed in. */
export function NewAccountForm({
  token,
  action,
  submitLabel,
  email,
}: {
  token: string;
  action: AccountAction;
  submitLabel: string;
  email?: string | null;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = {
      token,
      name: formText(form, "name"),
      email: formText(form, "email"),
      password: formText(form, "password"),
    };
    setBusy(true);
    setError(null);
    const result = await action(values);
    if (!result.ok) {
      setBusy(false);
      setFieldErrors(result.error.fieldErrors);
      return setError(result.error.message);
    }
    const problem = await signIn(result.data.email, values.password);
    setBusy(false);
    if (problem) return setError(problem);
    router.replace("/sessions");
    router.refresh();
  }
  const fieldError = (name: string) =>
    fieldErrors[name]?.length ? (
      <span className="mt-1 block text-xs text-red-700">{fieldErrors[name].join("; ")}</span>
    ) : null;
  return (
    <form onSubmit={submit} className="space-y-4">
      <label className="block text-sm font-medium text-slate-700">
        Name
        <input name="name" required className={input} autoComplete="name" />
        {fieldError("name")}
      </label>
      <label className="block text-sm font-medium text-slate-700">
        Email
        <input
          name="email"
          type="email"
          required
          className={input}
          autoComplete="username"
          defaultValue={email ?? ""}
        />
        {fieldError("email")}
      </label>
      <label className="block text-sm font-medium text-slate-700">
        Password (8 characters or more)
        <input name="password" type="password" required minLength={8} className={input} autoComplete="new-password" />
        {fieldError("password")}
      </label>
      <SubmitRow error={error} busy={busy} label={submitLabel} />
    </form>
  );
}
