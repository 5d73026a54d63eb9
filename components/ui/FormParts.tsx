import type { InputHTMLAttributes, ReactNode } from "react";
import { Button } from "./Button";
import type { ActionFormError } from "./useActionForm";

/** The input of a settings form's grid of short text fields (executors, connectors). */
export const gridInputClass = "mt-1 block w-full rounded-md border border-slate-300 px-2 py-1 text-sm";

/** A submitted form's text field ("" when it is missing or a file). */
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === "string" ? value : "";
}

/** What the server said about one field of an action's input. */
export function FieldError({ error, name }: { error: ActionFormError | null; name: string }) {
  const messages = error?.fields?.[name];
  return messages ? <span className="mt-0.5 block text-xs text-rose-700">{messages.join(" ")}</span> : null;
}

/**
 * A labelled short text field of a grid form, with what the server said about it (under `errorName`, its own name
 * unless told). The input's other attributes (placeholder, type, inputMode, …) pass through.
 */
export function GridField({
  label,
  error,
  errorName,
  onValue,
  className = "text-sm",
  ...input
}: {
  label: ReactNode;
  error: ActionFormError | null;
  errorName?: string;
  onValue: (value: string) => void;
  className?: string;
  name: string;
  value: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "className" | "name" | "value">) {
  return (
    <label className={className}>
      <span className="text-slate-600">{label}</span>
      <input {...input} onChange={(e) => onValue(e.target.value)} className={gridInputClass} />
      <FieldError error={error} name={errorName ?? input.name} />
    </label>
  );
}

/** A grid form's short text fields, one a `[name, label, placeholder]` row, over one object of the form's values. */
export function GridFields<V extends Record<string, unknown>>({
  fields,
  values,
  onValues,
  error,
}: {
  fields: readonly (readonly [keyof V & string, ReactNode, string])[];
  values: V;
  onValues: (values: V) => void;
  error: ActionFormError | null;
}) {
  return fields.map(([key, label, placeholder]) => (
    <GridField
      key={key}
      label={label}
      name={key}
      value={String(values[key])}
      placeholder={placeholder}
      onValue={(value) => onValues({ ...values, [key]: value })}
      error={error}
    />
  ));
}

/** An error that belongs to no single field. */
export function FormError({ error }: { error: ActionFormError | null }) {
  return error && Object.keys(error.fields).length === 0 ? (
    <span role="alert" className="ml-3 text-sm text-rose-700">
      {error.message}
    </span>
  ) : null;
}

/** What went wrong, on a line of its own, read out as it appears (nothing when nothing did). */
export function ErrorLine({ message, className = "" }: { message: ReactNode; className?: string }) {
  return message ? (
    <p role="alert" className={`${className} text-sm text-rose-700`.trim()}>
      {message}
    </p>
  ) : null;
}

/** A grid form's submit button across its columns, and an error that belongs to no single field. */
export function SubmitRow({
  label,
  pending,
  error,
  className = "sm:col-span-4",
}: {
  label: string;
  pending: boolean;
  error: ActionFormError | null;
  className?: string;
}) {
  return (
    <div className={className}>
      <Button type="submit" disabled={pending}>
        {label}
      </Button>
      <FormError error={error} />
    </div>
  );
}
