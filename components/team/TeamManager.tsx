"use client";

import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/Button";
import { DataTable } from "@/components/ui/DataTable";
import { Field, inputClass } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { useActionForm } from "@/components/ui/useActionForm";
import type { ActionResult } from "@/lib/http/action";

export type TeamUser = {
  id: string;
  name: string;
  email: string;
  role: string;
  deactivated: boolean;
  signIn: string;
  self: boolean;
};

type Props = {
  users: TeamUser[];
  invitations: { id: string; role: string; email: string | null; expiresAt: string; createdBy: string }[];
  invite: (input: {
    role: "viewer" | "analyst" | "admin";
    email?: string;
    expiresInDays: number;
  }) => Promise<ActionResult<{ url: string; role: string; expiresAt: string }>>;
  changeRole: (input: { userId: string; role: "viewer" | "analyst" | "admin" }) => Promise<ActionResult<unknown>>;
  setDeactivated: (input: { userId: string; deactivated: boolean }) => Promise<ActionResult<unknown>>;
};

const ROLES = ["viewer", "analyst", "admin"] as const;
type RoleName = (typeof ROLES)[number];
const asRole = (v: string): RoleName => ((ROLES as readonly string[]).includes(v) ? (v as RoleName) : "viewer");

export function TeamManager({ users, invitations, invite, changeRole, setDeactivated }: Props) {
  const [link, setLink] = useState<string | null>(null);
  const { pending, error, run } = useActionForm();

  function onInvite(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = form.get("email");
    const role = asRole(typeof form.get("role") === "string" ? (form.get("role") as string) : "viewer");
    run(
      () =>
        invite({
          role,
          email: typeof email === "string" && email ? email : undefined,
          expiresInDays: Number(form.get("days")),
        }),
      (data) => setLink(new URL(data.url, window.location.origin).toString()),
    );
  }

  return (
    <div className="space-y-8">
      {error ? <Notice tone="error">{error.message}</Notice> : null}
      <section>
        <h2 className="mb-2 font-semibold text-slate-900">Invite someone</h2>
        <form onSubmit={onInvite} className="flex flex-wrap items-end gap-3" aria-label="Invite">
          <Field label="Email (optional)">
            <input name="email" type="email" className={inputClass} />
          </Field>
          <Field label="Role">
            <select name="role" defaultValue="analyst" className={inputClass}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </Field>
          <Field label="Link expires in">
            <select name="days" defaultValue="7" className={inputClass}>
              <option value="1">1 day</option>
              <option value="7">7 days</option>
              <option value="30">30 days</option>
            </select>
          </Field>
          <Button type="submit" disabled={pending}>
            Create invitation link
          </Button>
        </form>
        {link ? (
          <p className="mt-3 text-sm">
            Send this link (shown once):{" "}
            <code data-testid="invite-link" className="break-all font-mono">
              {link}
            </code>
          </p>
        ) : null}
        {invitations.length ? (
          <ul className="mt-3 text-sm text-slate-600">
            {invitations.map((i) => (
              <li key={i.id}>
                Open invitation: {i.role}
                {i.email ? ` for ${i.email}` : ""}, until {i.expiresAt.slice(0, 16).replace("T", " ")} UTC, by{" "}
                {i.createdBy}
              </li>
            ))}
          </ul>
        ) : null}
      </section>
      <section>
        <h2 className="mb-2 font-semibold text-slate-900">People</h2>
        <DataTable columns={["Name", "Email", "Signs in with", "Role", "Status"]} label="People">
          {users.map((u) => (
            <tr key={u.id} data-testid={`user-${u.email}`}>
              <td className="px-3 py-2">{u.name}</td>
              <td className="px-3 py-2">{u.email}</td>
              <td className="px-3 py-2">{u.signIn}</td>
              <td className="px-3 py-2">
                <select
                  aria-label={`Role of ${u.email}`}
                  value={u.role}
                  disabled={pending || u.self}
                  onChange={(e) => run(() => changeRole({ userId: u.id, role: asRole(e.target.value) }))}
                  className="rounded-md border border-slate-300 px-2 py-1"
                >
                  {ROLES.map((r) => (
                    <option key={r}>{r}</option>
                  ))}
                </select>
              </td>
              <td className="px-3 py-2 whitespace-nowrap">
                {u.self ? (
                  "you"
                ) : (
                  <Button
                    variant="secondary"
                    size="sm"
                    disabled={pending}
                    onClick={() => run(() => setDeactivated({ userId: u.id, deactivated: !u.deactivated }))}
                  >
                    {u.deactivated ? "Reactivate" : "Deactivate"}
                  </Button>
                )}
                {u.deactivated ? <span className="ml-2 text-red-700">deactivated</span> : null}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
    </div>
  );
}
