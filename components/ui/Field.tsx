import { useId, type InputHTMLAttributes, type ReactElement, type ReactNode, type TextareaHTMLAttributes } from "react";
import { cloneElement } from "react";

export const inputClass =
  "w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 shadow-sm focus:border-indigo-500 focus:outline-none aria-[invalid=true]:border-rose-400";

/**
 * A labelled control with its hint and its errors. The control (an input,
 * select or textarea) gets the id, `aria-invalid` and `aria-describedby`
 * wiring, so a screen reader reads the error with the field.
 */
export function Field({
  label,
  hint,
  errors,
  children,
  className = "",
}: {
  label: ReactNode;
  hint?: ReactNode;
  errors?: string[] | undefined;
  children: ReactElement<{ id?: string; "aria-invalid"?: boolean; "aria-describedby"?: string }>;
  className?: string;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`flex flex-col gap-1 ${className}`}>
      <label htmlFor={id} className="text-xs font-medium text-slate-700">
        {label}
      </label>
      {cloneElement(children, {
        id,
        "aria-invalid": errors?.length ? true : undefined,
        "aria-describedby": describedBy,
      })}
      {hint ? (
        <p id={hintId} className="text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
      {errors?.length ? (
        <p id={errorId} className="text-xs text-rose-700">
          {errors.join(" ")}
        </p>
      ) : null}
    </div>
  );
}

/** A Field holding a text input in the kit's style (`inputClassName` to change it), told of each new value. */
export function TextField({
  label,
  hint,
  errors,
  className,
  inputClassName = inputClass,
  onValue,
  ...input
}: {
  label: ReactNode;
  hint?: ReactNode;
  errors?: string[] | undefined;
  className?: string;
  inputClassName?: string;
  onValue: (value: string) => void;
  value: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "className" | "value">) {
  return (
    <Field label={label} hint={hint} errors={errors} className={className}>
      <input {...input} onChange={(e) => onValue(e.target.value)} className={inputClassName} />
    </Field>
  );
}

/** A Field holding a textarea in the kit's style (`inputClassName` to change it), told of each new value. */
export function TextAreaField({
  label,
  hint,
  errors,
  className,
  inputClassName = inputClass,
  onValue,
  ...textarea
}: {
  label: ReactNode;
  hint?: ReactNode;
  errors?: string[] | undefined;
  className?: string;
  inputClassName?: string;
  onValue: (value: string) => void;
  value: string;
} & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "onChange" | "className" | "value">) {
  return (
    <Field label={label} hint={hint} errors={errors} className={className}>
      <textarea {...textarea} onChange={(e) => onValue(e.target.value)} className={inputClassName} />
    </Field>
  );
}
