// One form of fields described as data (fields.ts), saved on its own: react-hook-form holds the values, the save
// sends them as the API's body, success is a toast, and a 422's errors are shown at the fields they name (the rest
// beside the button). A role that may not change it reads the values in a disabled fieldset (its button disabled too).
import { useState, type ReactNode } from "react";
import { useForm, type FieldError, type UseFormRegister } from "react-hook-form";
import { CheckboxField, Field, SelectField, Status, TextAreaField } from "../../ui.js";
import type { Result } from "../../api.js";
import { formErrors } from "../api.js";
import { useToast } from "../Toasts.js";
import { bodyOf, fieldOfError, getPath, valuesOf, type FieldSpec, type FormValues } from "./fields.js";

export interface FieldsFormProps<T> {
  /** The form's name (its accessible name and its heading). */
  title: string;
  intro?: ReactNode;
  fields: readonly FieldSpec[];
  /** The resource the values are read from. */
  resource: unknown;
  /** The save button's text. */
  save: string;
  /** The toast once saved. */
  saved: string;
  mayWrite: boolean;
  /** Sends the body built from the values (`shape` first changes it where the API wants another shape). */
  submit: (body: Record<string, unknown>) => Promise<Result<T>>;
  shape?: (body: Record<string, unknown>, resource: unknown) => Record<string, unknown>;
  onSaved: (data: T) => void;
  children?: ReactNode;
}

const idOf = (title: string, path: string) => `${title}-${path}`.toLowerCase().replace(/[^a-z0-9]+/g, "-");

function Input({ field, id, register, error }: { field: FieldSpec; id: string; register: UseFormRegister<FormValues>; error: string | undefined }) {
  const common = { id, label: field.label, hint: field.help, error, ...register(field.path) };
  switch (field.kind) {
    case "bool":
      return <CheckboxField {...common} />;
    case "select":
      return <SelectField {...common} options={field.options ?? []} placeholder={field.placeholder} />;
    case "textarea":
    case "links":
      return <TextAreaField {...common} rows={3} maxLength={field.maxLength} />;
    case "number":
      return <Field {...common} type="number" inputMode="numeric" min={field.min} max={field.max} />;
    case "days":
      return <Field {...common} inputMode="numeric" autoComplete="off" />;
    default:
      return <Field {...common} type={field.kind} autoComplete={field.autoComplete ?? "off"} maxLength={field.maxLength} />;
  }
}

export function FieldsForm<T>({ title, intro, fields, resource, save, saved, mayWrite, submit, shape, onSaved, children }: FieldsFormProps<T>) {
  const toast = useToast();
  const [error, setError] = useState<string | undefined>(undefined);
  const { register, handleSubmit, setError: setFieldError, formState } = useForm<FormValues>({ defaultValues: valuesOf(fields, resource) });
  const onSubmit = handleSubmit(async (values) => {
    setError(undefined);
    const body = bodyOf(fields, values);
    const r = await submit(shape ? shape(body, resource) : body);
    if (r.ok) {
      toast(saved);
      return onSaved(r.data);
    }
    const said = formErrors(r.error, (path) => fieldOfError(fields, path)?.path);
    for (const [path, message] of Object.entries(said.at)) setFieldError(path, { type: "server", message }, { shouldFocus: true });
    setError(said.rest);
  });
  const headingId = idOf(title, "h");
  return (
    <section className="form-section settings-form" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {intro && <div className="hint">{intro}</div>}
      {children}
      <form onSubmit={(e) => void onSubmit(e)} aria-label={title} className="stack" noValidate>
        <fieldset disabled={!mayWrite}>
          <legend className="visually-hidden">{title}</legend>
          {fields.map((f) => (
            <Input key={f.path} field={f} id={idOf(title, f.path)} register={register} error={(getPath(formState.errors, f.path) as FieldError | undefined)?.message} />
          ))}
          <button type="submit" className="primary" disabled={formState.isSubmitting}>
            {save}
          </button>
        </fieldset>
      </form>
      <Status tone={error ? "error" : "info"}>{error ?? (formState.isSubmitting ? "Saving…" : null)}</Status>
    </section>
  );
}
