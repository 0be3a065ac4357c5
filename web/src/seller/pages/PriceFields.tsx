// One price of the product editor (react-hook-form's field array item): an existing price shown as it reads
// with Change and Remove, or the fields of its kind — fixed, pay what you want (minimum, maximum, suggested),
// free, usage of a meter (per unit or in tiers, with a cap), per seat (tiers) — and its currency.
import { useFieldArray, useWatch, type Control, type UseFormRegister, type UseFormSetValue } from "react-hook-form";
import { isPriceKind } from "../../../../shared/kinds.js";
import { FORM_PRICE_KIND, isMeteredKind } from "../../kinds.js";
import type { PriceDraft } from "../price-drafts.js";

export interface ProductFormValues {
  name: string;
  description: string;
  interval: string;
  intervalCount: string;
  prices: PriceDraft[];
}

export interface Meter {
  id: string;
  name: string;
}

interface Props {
  index: number;
  control: Control<ProductFormValues>;
  register: UseFormRegister<ProductFormValues>;
  setValue: UseFormSetValue<ProductFormValues>;
  meters: Meter[];
  recurring: boolean;
  onRemove: () => void;
}

/** The kinds in the order a seller meets them; usage prices only on a subscription. */
const KINDS: ReadonlyArray<PriceDraft["kind"]> = ["fixed", "custom", "free", "seat_based", "metered_unit"];

function UnitTiers({ index, control, register }: Pick<Props, "index" | "control" | "register">) {
  const tiers = useFieldArray({ control, name: `prices.${index}.unitTiers` });
  const p = `price-${index}-tier`;
  return (
    <fieldset className="tiers">
      <legend>Tiers</legend>
      <div className="field">
        <label htmlFor={`${p}-type`}>How tiers apply</label>
        <select id={`${p}-type`} {...register(`prices.${index}.tierType`)}>
          <option value="graduated">Graduated: each unit at its tier&apos;s price</option>
          <option value="volume">Volume: every unit at the tier the total reaches</option>
        </select>
      </div>
      {tiers.fields.map((f, t) => (
        <div key={f.id} className="tier-row" role="group" aria-label={`Tier ${t + 1}`}>
          <div className="field">
            <label htmlFor={`${p}-${t}-up`}>Up to (units)</label>
            <input id={`${p}-${t}-up`} inputMode="numeric" placeholder={t === tiers.fields.length - 1 ? "no limit" : ""} {...register(`prices.${index}.unitTiers.${t}.upTo`)} />
          </div>
          <div className="field">
            <label htmlFor={`${p}-${t}-unit`}>Per unit</label>
            <input id={`${p}-${t}-unit`} inputMode="decimal" {...register(`prices.${index}.unitTiers.${t}.unit`)} />
          </div>
          <div className="field">
            <label htmlFor={`${p}-${t}-flat`}>Flat fee</label>
            <input id={`${p}-${t}-flat`} inputMode="decimal" placeholder="0" {...register(`prices.${index}.unitTiers.${t}.flat`)} />
          </div>
          {tiers.fields.length > 1 && (
            <button type="button" className="link" onClick={() => tiers.remove(t)}>
              Remove tier {t + 1}
            </button>
          )}
        </div>
      ))}
      <button type="button" onClick={() => tiers.append({ upTo: "", unit: "", flat: "" })}>
        Add a tier
      </button>
      <p className="hint">The last tier has no upper limit. Amounts in the price&apos;s currency, e.g. 0.002 per unit.</p>
    </fieldset>
  );
}

function SeatTiers({ index, control, register }: Pick<Props, "index" | "control" | "register">) {
  const tiers = useFieldArray({ control, name: `prices.${index}.seatTiers` });
  const p = `price-${index}-seat`;
  return (
    <fieldset className="tiers">
      <legend>Seat tiers</legend>
      <div className="field">
        <label htmlFor={`${p}-type`}>How tiers apply</label>
        <select id={`${p}-type`} {...register(`prices.${index}.seatTierType`)}>
          <option value="volume">Volume: every seat at the tier the count reaches</option>
          <option value="graduated">Graduated: each seat at its tier&apos;s price</option>
        </select>
      </div>
      {tiers.fields.map((f, t) => (
        <div key={f.id} className="tier-row" role="group" aria-label={`Seat tier ${t + 1}`}>
          <div className="field">
            <label htmlFor={`${p}-${t}-min`}>From seat</label>
            <input id={`${p}-${t}-min`} inputMode="numeric" {...register(`prices.${index}.seatTiers.${t}.min`)} />
          </div>
          <div className="field">
            <label htmlFor={`${p}-${t}-max`}>To seat</label>
            <input id={`${p}-${t}-max`} inputMode="numeric" placeholder="no limit" {...register(`prices.${index}.seatTiers.${t}.max`)} />
          </div>
          <div className="field">
            <label htmlFor={`${p}-${t}-per`}>Price per seat</label>
            <input id={`${p}-${t}-per`} inputMode="decimal" {...register(`prices.${index}.seatTiers.${t}.perSeat`)} />
          </div>
          {tiers.fields.length > 1 && (
            <button type="button" className="link" onClick={() => tiers.remove(t)}>
              Remove seat tier {t + 1}
            </button>
          )}
        </div>
      ))}
      <button type="button" onClick={() => tiers.append({ min: "", max: "", perSeat: "" })}>
        Add a seat tier
      </button>
    </fieldset>
  );
}

function KindFields({ index, control, register, meters }: Pick<Props, "index" | "control" | "register" | "meters">) {
  const kind = useWatch({ control, name: `prices.${index}.kind` });
  const tiered = useWatch({ control, name: `prices.${index}.tiered` });
  const id = (f: string) => `price-${index}-${f}`;
  const field = (f: "amount" | "minimum" | "maximum" | "preset" | "unit" | "cap", label: string, hint?: string) => (
    <div className="field">
      <label htmlFor={id(f)}>{label}</label>
      <input id={id(f)} inputMode="decimal" aria-describedby={hint ? `${id(f)}-hint` : undefined} {...register(`prices.${index}.${f}`)} />
      {hint && (
        <p className="hint" id={`${id(f)}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
  if (kind === "fixed") return field("amount", "Amount", "In the currency's units, e.g. 19.99.");
  if (kind === "custom")
    return (
      <div className="row-fields">
        {field("minimum", "Minimum", "Empty: the smallest chargeable amount; 0 lets buyers pay nothing.")}
        {field("maximum", "Maximum (optional)")}
        {field("preset", "Suggested (optional)")}
      </div>
    );
  if (kind === "seat_based") return <SeatTiers index={index} control={control} register={register} />;
  if (kind !== "metered_unit") return null;
  return (
    <>
      <div className="field">
        <label htmlFor={id("meter")}>Meter</label>
        <select id={id("meter")} {...register(`prices.${index}.meterId`)}>
          <option value="">Choose a meter</option>
          {meters.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
            </option>
          ))}
        </select>
        {meters.length === 0 && (
          <p className="hint">
            No meter yet: make one on the Meters page, or <code>till meters create</code>.
          </p>
        )}
      </div>
      <div className="field checkbox">
        <input id={id("tiered")} type="checkbox" {...register(`prices.${index}.tiered`)} />
        <label htmlFor={id("tiered")}>Price in tiers</label>
      </div>
      {tiered ? <UnitTiers index={index} control={control} register={register} /> : field("unit", "Price per unit", "In the currency's units, e.g. 0.002.")}
      {field("cap", "Cap per period (optional)", "The most one period of usage bills.")}
    </>
  );
}

export function PriceFields({ index, control, register, setValue, meters, recurring, onRemove }: Props) {
  const draft = useWatch({ control, name: `prices.${index}` });
  const id = (f: string) => `price-${index}-${f}`;
  const known = isPriceKind(draft.kind) && !(draft.id && !draft.edited && !draft.shown);
  if (draft.id && !draft.edited) {
    return (
      <div className="price-card" role="group" aria-label={`Price ${index + 1}`}>
        <p className="price-now">{draft.shown}</p>
        {!known && <p className="hint">Kept as it is: this page cannot edit this kind of price.</p>}
        <div className="price-card-actions">
          {known && (
            <button type="button" onClick={() => setValue(`prices.${index}.edited`, true)} aria-label={`Change ${draft.shown}`}>
              Change
            </button>
          )}
          <button type="button" className="link danger" onClick={onRemove} aria-label={`Remove ${draft.shown}`}>
            Remove
          </button>
        </div>
      </div>
    );
  }
  return (
    <fieldset className="price-card">
      <legend>Price {index + 1}</legend>
      {draft.id && <p className="hint">Replaces {draft.shown}: subscribers keep the price they have; new buyers get this one.</p>}
      <div className="row-fields">
        <div className="field">
          <label htmlFor={id("kind")}>Kind</label>
          <select id={id("kind")} {...register(`prices.${index}.kind`)}>
            {KINDS.filter((k) => recurring || !isMeteredKind(k)).map((k) => (
              <option key={k} value={k}>
                {FORM_PRICE_KIND[k]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={id("currency")}>Currency</label>
          <input id={id("currency")} maxLength={3} minLength={3} autoCapitalize="characters" {...register(`prices.${index}.currency`)} />
        </div>
      </div>
      <KindFields index={index} control={control} register={register} meters={meters} />
      <button type="button" className="link danger" onClick={onRemove}>
        Remove price {index + 1}
      </button>
    </fieldset>
  );
}
