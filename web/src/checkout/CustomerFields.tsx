// How the customer pays, part one: email and name, the billing address fields the checkout asks for, a
// business purchase (its name and tax id) and the product's custom fields. Each shows its own problem. What
// decides the tax (country, state, business, tax id) is reported as it changes, so the page's total follows.
import type { Checkout, CustomField } from "../checkout-api.js";
import { countryOptions } from "../regions.js";
import { CheckboxField, Field, SelectField, TextAreaField } from "../ui.js";
import type { FormAction } from "./form.js";
import { t } from "../i18n/intl.js";
import { ADDRESS_ORDER, addressLabel, addressMode, fieldId, type AddressKey, type FormState } from "./model.js";

const AUTOCOMPLETE: Record<AddressKey, string> = {
  country: "country",
  line1: "address-line1",
  line2: "address-line2",
  city: "address-level2",
  postal_code: "postal-code",
  state: "address-level1",
};

let countries: { value: string; label: string }[] | null = null;
const countryChoices = () => (countries ??= countryOptions().map((c) => ({ value: c.code, label: c.name })));

export interface CustomerFieldsProps {
  checkout: Checkout;
  values: FormState;
  issues: Record<string, string>;
  dispatch: (a: FormAction) => void;
  /** An entry that decides the tax was typed or chosen (country, state, tax id): the form as it is now. */
  onTaxChange: (values: FormState) => void;
  /** The business box was checked or unchecked: the form as it is now. */
  onBusiness: (values: FormState) => void;
}

/** The address fields the tax depends on (a US state's or Canadian province's rate; the rest only print). */
const TAX_KEYS: AddressKey[] = ["country", "state"];

export function CustomerFields({ checkout, values, issues, dispatch, onTaxChange, onBusiness }: CustomerFieldsProps) {
  const set = (patch: Partial<FormState>) => dispatch({ type: "set", patch });
  const setAddress = (key: AddressKey, value: string) => {
    dispatch({ type: "address", key, value });
    if (TAX_KEYS.includes(key)) onTaxChange({ ...values, address: { ...values.address, [key]: value } });
  };
  const asked = ADDRESS_ORDER.filter((k) => addressMode(checkout, k) !== "disabled");
  return (
    <>
      <Field
        id={fieldId("customer_email")}
        label={t("label.email")}
        type="email"
        autoComplete="email"
        inputMode="email"
        required
        value={values.email}
        error={issues.customer_email}
        onChange={(e) => set({ email: e.target.value })}
      />
      <Field
        id={fieldId("customer_name")}
        label={t("label.name")}
        autoComplete="name"
        required={checkout.is_payment_form_required}
        optional={!checkout.is_payment_form_required}
        value={values.name}
        error={issues.customer_name}
        onChange={(e) => set({ name: e.target.value })}
      />
      {asked.length > 0 && (
        <fieldset>
          <legend>{t("label.billingAddress")}</legend>
          {asked.map((key) =>
            key === "country" ? (
              <SelectField
                key={key}
                id={fieldId("customer_billing_address.country")}
                label={t("address.country")}
                autoComplete="country"
                placeholder={t("form.chooseCountry")}
                options={countryChoices()}
                required={addressMode(checkout, key) === "required"}
                optional={addressMode(checkout, key) !== "required"}
                value={values.address.country}
                error={issues["customer_billing_address.country"] ?? issues.customer_billing_address}
                onChange={(e) => setAddress(key, e.target.value)}
              />
            ) : (
              <Field
                key={key}
                id={fieldId(`customer_billing_address.${key}`)}
                label={addressLabel(key)}
                autoComplete={AUTOCOMPLETE[key]}
                required={addressMode(checkout, key) === "required"}
                optional={addressMode(checkout, key) !== "required"}
                value={values.address[key]}
                error={issues[`customer_billing_address.${key}`]}
                onChange={(e) => setAddress(key, e.target.value)}
              />
            ),
          )}
        </fieldset>
      )}
      <CheckboxField
        id={fieldId("is_business_customer")}
        label={t("form.business")}
        checked={values.business}
        onChange={(e) => {
          set({ business: e.target.checked });
          onBusiness({ ...values, business: e.target.checked });
        }}
      />
      {values.business && (
        <>
          <Field
            id={fieldId("customer_billing_name")}
            label={t("label.businessName")}
            autoComplete="organization"
            required
            value={values.billingName}
            error={issues.customer_billing_name}
            onChange={(e) => set({ billingName: e.target.value })}
          />
          <Field
            id={fieldId("customer_tax_id")}
            label={t("label.taxId")}
            optional
            value={values.taxId}
            error={issues.customer_tax_id}
            onChange={(e) => {
              set({ taxId: e.target.value });
              onTaxChange({ ...values, taxId: e.target.value });
            }}
          />
        </>
      )}
      {[...checkout.attached_custom_fields]
        .sort((a, b) => a.order - b.order)
        .map((a) => (
          <CustomFieldInput
            key={a.custom_field.slug}
            field={a.custom_field}
            required={a.required}
            value={values.custom[a.custom_field.slug]}
            error={issues[`custom_field_data.${a.custom_field.slug}`]}
            onChange={(v) => dispatch({ type: "custom", slug: a.custom_field.slug, value: v })}
          />
        ))}
    </>
  );
}

function CustomFieldInput(props: {
  field: CustomField;
  required: boolean;
  value: string | number | boolean | null | undefined;
  error?: string | undefined;
  onChange: (v: string | number | boolean | null) => void;
}) {
  const { field, required, value, error, onChange } = props;
  const common = {
    id: fieldId(`custom_field_data.${field.slug}`),
    label: field.properties.form_label || field.name,
    hint: field.properties.form_help_text ?? null,
    error,
    required,
  };
  if (field.type === "checkbox") {
    return <CheckboxField {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
  }
  if (field.type === "select") {
    return (
      <SelectField
        {...common}
        optional={!required}
        placeholder={field.properties.form_placeholder || t("ui.choose")}
        options={field.properties.options ?? []}
        value={typeof value === "string" ? value : ""}
        onChange={(e) => onChange(e.target.value || null)}
      />
    );
  }
  const text = value === null || value === undefined ? "" : String(value);
  if (field.type === "text" && field.properties.textarea === true) {
    return <TextAreaField {...common} optional={!required} placeholder={field.properties.form_placeholder ?? undefined} value={text} onChange={(e) => onChange(e.target.value || null)} />;
  }
  return (
    <Field
      {...common}
      optional={!required}
      type={field.type === "number" ? "number" : field.type === "date" ? "date" : "text"}
      placeholder={field.properties.form_placeholder ?? undefined}
      value={text}
      onChange={(e) => onChange(e.target.value === "" ? null : field.type === "number" ? Number(e.target.value) : e.target.value)}
    />
  );
}
