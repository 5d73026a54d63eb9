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

/**
 * Binds text fields to a form's fields by name: `bind("seed", seed, setSeed)` gives a TextField its input's name,
 * its value and setter, and what the server said about that field (`errorsOf`, by the same name).
 */
export const fieldBinder =
  (errorsOf: (name: string) => string[] | undefined) =>
  (name: string, value: string, onValue: (value: string) => void) => ({
    name,
    value,
    onValue,
    errors: errorsOf(name),
  });

/** What a TextField or a TextAreaField takes besides its control's own attributes (placeholder, rows, …). */
type TextControlProps = {
  label: ReactNode;
  hint?: ReactNode;
  errors?: string[] | undefined;
  className?: string;
  /** The control's classes; the kit's input style unless told. */
  inputClassName?: string;
  onValue: (value: string) => void;
  value: string;
};
type Own = "onChange" | "className" | "value";

/** A text input told of each new value, in the kit's input style unless told: alone where its aria-label names it. */
export function TextInput({ onValue, className, ...input }: TextInputProps) {
  return <input {...input} onChange={(e) => onValue(e.target.value)} className={className ?? inputClass} />;
}
type TextInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "value"> & {
  value: string;
  onValue: (value: string) => void;
};

/** A Field holding a text input, told of each new value. */
export function TextField({ label, hint, errors, className, inputClassName, onValue, ...input }: TextFieldProps) {
  return (
    <Field label={label} hint={hint} errors={errors} className={className}>
      <TextInput {...input} onValue={onValue} className={inputClassName} />
    </Field>
  );
}
type TextFieldProps = TextControlProps & Omit<InputHTMLAttributes<HTMLInputElement>, Own>;

/** A Field holding a textarea, told of each new value. */
export function TextAreaField({ label, hint, errors, className, inputClassName, onValue, ...area }: TextAreaProps) {
  return (
    <Field label={label} hint={hint} errors={errors} className={className}>
      <textarea {...area} onChange={(e) => onValue(e.target.value)} className={inputClassName ?? inputClass} />
    </Field>
  );
}
type TextAreaProps = TextControlProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, Own>;
