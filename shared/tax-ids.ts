// Tax ID formats (the spec's constants, Stripe's list as Polar uses it), which formats apply in which billing country,
// and the shape of each format. A customer's tax id is sent as a plain string and stored as [value, format]:
// the value is checked against the formats of the billing address's country, in order, and the first
// match wins. Shapes are checked on the compact form (upper case, without spaces, dots, dashes or slashes).
import type { CountryCode } from "./countries.js";

export const TAX_ID_FORMATS = [
  "ad_nrt", "ae_trn", "ar_cuit", "au_abn", "au_arn", "bg_uic", "bh_vat", "bo_tin", "br_cnpj", "br_cpf", "ca_bn",
  "ca_gst_hst", "ca_pst_bc", "ca_pst_mb", "ca_pst_sk", "ca_qst", "ch_uid", "ch_vat", "cl_tin", "cn_tin", "co_nit",
  "cr_tin", "de_stn", "do_rcn", "ec_ruc", "eg_tin", "es_cif", "eu_oss_vat", "eu_vat", "gb_vat", "ge_vat", "hk_br",
  "hr_oib", "hu_tin", "id_npwp", "il_vat", "in_gst", "is_vat", "jp_cn", "jp_rn", "jp_trn", "ke_pin", "kr_brn",
  "kz_bin", "li_uid", "mx_rfc", "my_frp", "my_itn", "my_sst", "ng_tin", "no_vat", "no_voec", "nz_gst", "om_vat",
  "pe_ruc", "ph_tin", "ro_tin", "rs_pib", "ru_inn", "ru_kpp", "sa_vat", "sg_gst", "sg_uen", "si_tin", "sv_nit",
  "th_vat", "tr_tin", "tw_vat", "ua_vat", "us_ein", "uy_ruc", "ve_rif", "vn_tin", "za_vat",
] as const;

export type TaxIdFormat = (typeof TAX_ID_FORMATS)[number];

/** VAT prefixes of the EU member states (Greece is EL, Northern Ireland XI). */
const EU_VAT_PREFIXES = "AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|XI";

/** The shape of each format, on the compact value. */
export const TAX_ID_PATTERNS: Record<TaxIdFormat, RegExp> = {
  ad_nrt: /^[A-Z]\d{6}[A-Z]$/,
  ae_trn: /^\d{15}$/,
  ar_cuit: /^\d{11}$/,
  au_abn: /^\d{11}$/,
  au_arn: /^\d{12}$/,
  bg_uic: /^\d{9}(\d{4})?$/,
  bh_vat: /^\d{15}$/,
  bo_tin: /^\d{7,12}$/,
  br_cnpj: /^\d{14}$/,
  br_cpf: /^\d{11}$/,
  ca_bn: /^\d{9}$/,
  ca_gst_hst: /^\d{9}RT\d{4}$/,
  ca_pst_bc: /^PST\d{8}$/,
  ca_pst_mb: /^\d{7}$/,
  ca_pst_sk: /^\d{7}$/,
  ca_qst: /^\d{10}TQ\d{4}$/,
  ch_uid: /^CHE\d{9}(HR)?$/,
  ch_vat: /^CHE\d{9}(MWST|TVA|IVA)$/,
  cl_tin: /^\d{7,8}[0-9K]$/,
  cn_tin: /^[0-9A-Z]{15}([0-9A-Z]{3})?$/,
  co_nit: /^\d{8,10}$/,
  cr_tin: /^\d{9,12}$/,
  de_stn: /^\d{10,13}$/,
  do_rcn: /^\d{9}(\d{2})?$/,
  ec_ruc: /^\d{13}$/,
  eg_tin: /^\d{9}$/,
  es_cif: /^[A-Z]\d{7}[0-9A-Z]$/,
  eu_oss_vat: /^EU\d{9}$/,
  eu_vat: new RegExp(`^(${EU_VAT_PREFIXES})[0-9A-Z]{2,13}$`),
  gb_vat: /^GB(\d{9}|\d{12})$/,
  ge_vat: /^\d{9}$/,
  hk_br: /^\d{8}$/,
  hr_oib: /^\d{11}$/,
  hu_tin: /^\d{11}$/,
  id_npwp: /^\d{15,16}$/,
  il_vat: /^\d{9}$/,
  in_gst: /^\d{2}[A-Z]{5}\d{4}[A-Z][0-9A-Z]Z[0-9A-Z]$/,
  is_vat: /^\d{5,6}$/,
  jp_cn: /^\d{13}$/,
  jp_rn: /^\d{5}$/,
  jp_trn: /^T\d{13}$/,
  ke_pin: /^[AP]\d{9}[A-Z]$/,
  kr_brn: /^\d{10}$/,
  kz_bin: /^\d{12}$/,
  li_uid: /^CHE\d{9}$/,
  mx_rfc: /^[A-Z&Ñ]{3,4}\d{6}[0-9A-Z]{3}$/,
  my_frp: /^\d{8}$/,
  my_itn: /^[A-Z]{1,2}\d{9,11}$/,
  my_sst: /^[A-Z]\d{14}$/,
  ng_tin: /^\d{8}(\d{4})?$/,
  no_vat: /^\d{9}MVA$/,
  no_voec: /^\d{7}$/,
  nz_gst: /^\d{8,9}$/,
  om_vat: /^OM\d{10}$/,
  pe_ruc: /^\d{11}$/,
  ph_tin: /^\d{9}(\d{3})?(\d{2})?$/,
  ro_tin: /^\d{13}$/,
  rs_pib: /^\d{9}$/,
  ru_inn: /^\d{10}(\d{2})?$/,
  ru_kpp: /^\d{9}$/,
  sa_vat: /^\d{15}$/,
  sg_gst: /^([A-Z]\d{8}|\d{9})[0-9A-Z]$/,
  sg_uen: /^(\d{8}[A-Z]|\d{9}[A-Z]|[ST]\d{2}[A-Z]{2}\d{4}[A-Z])$/,
  si_tin: /^\d{8}$/,
  sv_nit: /^\d{14}$/,
  th_vat: /^\d{13}$/,
  tr_tin: /^\d{10}$/,
  tw_vat: /^\d{8}$/,
  ua_vat: /^\d{9,12}$/,
  us_ein: /^\d{9}$/,
  uy_ruc: /^\d{12}$/,
  ve_rif: /^[VEJPG]\d{9}$/,
  vn_tin: /^\d{10}(\d{3})?$/,
  za_vat: /^4\d{9}$/,
};

const EU: readonly TaxIdFormat[] = ["eu_vat"];

/** Formats that apply to a billing country, tried in this order (countries not listed take no tax id). */
export const COUNTRY_TAX_ID_FORMATS: Partial<Record<CountryCode, readonly TaxIdFormat[]>> = {
  AD: ["ad_nrt"], AE: ["ae_trn"], AR: ["ar_cuit"], AT: EU, AU: ["au_abn", "au_arn"], BE: EU, BG: ["bg_uic", "eu_vat"],
  BH: ["bh_vat"], BO: ["bo_tin"], BR: ["br_cnpj", "br_cpf"],
  CA: ["ca_gst_hst", "ca_pst_bc", "ca_pst_mb", "ca_pst_sk", "ca_qst", "ca_bn"],
  CH: ["ch_uid", "ch_vat"], CL: ["cl_tin"], CN: ["cn_tin"], CO: ["co_nit"], CR: ["cr_tin"], CY: EU, CZ: EU,
  DE: ["de_stn", "eu_vat"], DK: EU, DO: ["do_rcn"], EC: ["ec_ruc"], EE: EU, EG: ["eg_tin"], ES: ["es_cif", "eu_vat"],
  FI: EU, FR: EU, GB: ["gb_vat"], GE: ["ge_vat"], GR: EU, HK: ["hk_br"], HR: ["hr_oib", "eu_vat"],
  HU: ["hu_tin", "eu_vat"], ID: ["id_npwp"], IE: EU, IL: ["il_vat"], IN: ["in_gst"], IS: ["is_vat"], IT: EU,
  JP: ["jp_cn", "jp_rn", "jp_trn"], KE: ["ke_pin"], KR: ["kr_brn"], KZ: ["kz_bin"], LI: ["li_uid"], LT: EU, LU: EU,
  LV: EU, MT: EU, MX: ["mx_rfc"], MY: ["my_frp", "my_itn", "my_sst"], NG: ["ng_tin"], NL: EU,
  NO: ["no_vat", "no_voec"], NZ: ["nz_gst"], OM: ["om_vat"], PE: ["pe_ruc"], PH: ["ph_tin"], PL: EU, PT: EU,
  RO: ["ro_tin", "eu_vat"], RS: ["rs_pib"], RU: ["ru_inn", "ru_kpp"], SA: ["sa_vat"], SE: EU,
  SG: ["sg_gst", "sg_uen"], SI: ["si_tin", "eu_vat"], SK: EU, SV: ["sv_nit"], TH: ["th_vat"], TR: ["tr_tin"],
  TW: ["tw_vat"], UA: ["ua_vat"], US: ["us_ein"], UY: ["uy_ruc"], VE: ["ve_rif"], VN: ["vn_tin"], ZA: ["za_vat"],
};

/** Upper case without the separators people type (spaces, dots, dashes, slashes). */
export const compactTaxId = (value: string) => value.toUpperCase().replace(/[\s.\-/]/g, "");

/** [compact value, format] for a tax id in a billing country, or null when no format of that country fits. */
export function matchTaxId(value: string, country: string): [string, TaxIdFormat] | null {
  const compact = compactTaxId(value);
  const formats = COUNTRY_TAX_ID_FORMATS[country as CountryCode] ?? [];
  const format = formats.find((f) => TAX_ID_PATTERNS[f].test(compact));
  return format ? [compact, format] : null;
}
